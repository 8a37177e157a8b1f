package openai

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/situate/situate/driver"
)

var _ driver.ModelIdentifier = (*Client)(nil)

// wireModel is one entry of GET /v1/models: llama.cpp adds "meta" (the
// loaded GGUF's shape), vLLM "root" (the weights' path or hub id) and
// "max_model_len".
type wireModel struct {
	ID          string   `json:"id"`
	Aliases     []string `json:"aliases"`
	Root        string   `json:"root"`
	MaxModelLen int      `json:"max_model_len"`
	// Meta's fields changed types across llama.cpp releases (vocab_type
	// a number then a bool, ftype a number then a string): kept as given.
	Meta map[string]any `json:"meta"`
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
func (c *Client) ModelIdentity(ctx context.Context) (driver.ModelIdentity, error) {
	switch c.flavor {
	case FlavorLlamaCpp:
		return c.llamaIdentity(ctx)
	case FlavorVLLM:
		models, err := c.listModels(ctx)
		if err != nil {
			return driver.ModelIdentity{}, err
		}
		for _, m := range models {
			if m.ID == c.model {
				return driver.ModelIdentity{Name: m.ID, Digest: fmt.Sprintf("root=%s max_model_len=%d", m.Root, m.MaxModelLen)}, nil
			}
		}
		return driver.ModelIdentity{}, fmt.Errorf("openai: models: %s does not serve %q (it serves %s): %w", c.base, c.model, modelIDs(models), driver.ErrModelNotFound)
	}
	return driver.ModelIdentity{Name: c.model}, nil
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

func (c *Client) llamaIdentity(ctx context.Context) (driver.ModelIdentity, error) {
	models, err := c.listModels(ctx)
	if err != nil {
		return driver.ModelIdentity{}, err
	}
	var m *wireModel
	base := func(id string) string { return id[strings.LastIndexAny(id, `/\`)+1:] }
	for i := range models {
		if c.model == "" || models[i].ID == c.model || base(models[i].ID) == c.model || slices.Contains(models[i].Aliases, c.model) {
			m = &models[i]
			break
		}
	}
	if m == nil {
		return driver.ModelIdentity{}, fmt.Errorf("openai: models: %s does not serve %q (it serves %s): %w", c.base, c.model, modelIDs(models), driver.ErrModelNotFound)
	}
	var props struct {
		ModelPath string `json:"model_path"`
	}
	// /props may be disabled or missing on older servers: the digest then
	// rests on /v1/models alone.
	_ = c.doJSON(ctx, "props", http.MethodGet, c.serverURL("/props"), nil, &props)
	// llama-server names a model loaded with -m PATH by the path: the
	// file name is the model's name, the path goes into the digest.
	id := driver.ModelIdentity{Name: m.ID}
	id.Name = base(m.ID)
	digest := "path=" + props.ModelPath
	for _, k := range []string{"n_params", "size", "n_vocab", "vocab_type", "n_ctx_train", "n_embd", "ftype"} {
		if v, ok := m.Meta[k]; ok {
			digest += fmt.Sprintf(" %s=%v", k, v)
		}
	}
	id.Digest = digest
	return id, nil
}

func (o chatOnly) ModelIdentity(ctx context.Context) (driver.ModelIdentity, error) {
	return o.c.ModelIdentity(ctx)
}
