package openai

import (
	"context"
	"fmt"
	"net/http"

	"github.com/situate/situate"
)

var _ situate.ModelIdentifier = (*Client)(nil)

// wireModel is one entry of GET /v1/models: llama.cpp adds "meta" (the
// loaded GGUF's shape), vLLM "root" (the weights' path or hub id) and
// "max_model_len".
type wireModel struct {
	ID          string `json:"id"`
	Root        string `json:"root"`
	MaxModelLen int    `json:"max_model_len"`
	Meta        *struct {
		VocabType int     `json:"vocab_type"`
		NVocab    int64   `json:"n_vocab"`
		NCtxTrain int64   `json:"n_ctx_train"`
		NEmbd     int64   `json:"n_embd"`
		NParams   int64   `json:"n_params"`
		Size      int64   `json:"size"`
		FType     float64 `json:"ftype"`
	} `json:"meta"`
}

// ModelIdentity asks the server which model it serves, so contexts of
// different models behind one URL are told apart:
//
//   - llama.cpp: GET /v1/models (the served id and the GGUF's shape:
//     parameters, size, vocabulary, training context, file type) and
//     GET /props (model_path, the file the server loaded). Name is the
//     model file's name (or its alias); Digest holds the rest.
//   - vLLM: GET /v1/models, the entry of the configured model (its root:
//     the weights' path or hub id, and max_model_len).
//   - OpenAI and other servers: the configured model, without a digest
//     (their model names are versioned).
func (c *Client) ModelIdentity(ctx context.Context) (situate.ModelIdentity, error) {
	switch c.flavor {
	case FlavorLlamaCpp:
		return c.llamaIdentity(ctx)
	case FlavorVLLM:
		models, err := c.listModels(ctx)
		if err != nil {
			return situate.ModelIdentity{}, err
		}
		for _, m := range models {
			if m.ID == c.model {
				return situate.ModelIdentity{Name: m.ID, Digest: fmt.Sprintf("root=%s max_model_len=%d", m.Root, m.MaxModelLen)}, nil
			}
		}
		return situate.ModelIdentity{}, fmt.Errorf("openai: models: %s does not serve %q (it serves %s): %w", c.base, c.model, modelIDs(models), situate.ErrModelNotFound)
	}
	return situate.ModelIdentity{Name: c.model}, nil
}

func (c *Client) listModels(ctx context.Context) ([]wireModel, error) {
	var out struct {
		Data []wireModel `json:"data"`
	}
	if err := c.doJSON(ctx, "models", http.MethodGet, c.base.JoinPath("/models").String(), nil, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

func modelIDs(ms []wireModel) string {
	s := ""
	for i, m := range ms {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", m.ID)
	}
	if s == "" {
		return "no model"
	}
	return s
}

func (c *Client) llamaIdentity(ctx context.Context) (situate.ModelIdentity, error) {
	models, err := c.listModels(ctx)
	if err != nil {
		return situate.ModelIdentity{}, err
	}
	var m *wireModel
	for i := range models {
		if c.model == "" || models[i].ID == c.model {
			m = &models[i]
			break
		}
	}
	if m == nil {
		return situate.ModelIdentity{}, fmt.Errorf("openai: models: %s does not serve %q (it serves %s): %w", c.base, c.model, modelIDs(models), situate.ErrModelNotFound)
	}
	var props struct {
		ModelPath string `json:"model_path"`
	}
	// /props may be disabled or missing on older servers: the digest then
	// rests on /v1/models alone.
	_ = c.doJSON(ctx, "props", http.MethodGet, c.serverURL("/props"), nil, &props)
	id := situate.ModelIdentity{Name: m.ID}
	digest := "path=" + props.ModelPath
	if mm := m.Meta; mm != nil {
		digest += fmt.Sprintf(" params=%d size=%d vocab=%d/%d ctx_train=%d embd=%d ftype=%g",
			mm.NParams, mm.Size, mm.VocabType, mm.NVocab, mm.NCtxTrain, mm.NEmbd, mm.FType)
	}
	id.Digest = digest
	return id, nil
}

func (o chatOnly) ModelIdentity(ctx context.Context) (situate.ModelIdentity, error) {
	return o.c.ModelIdentity(ctx)
}
