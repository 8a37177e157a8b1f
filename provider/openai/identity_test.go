package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/gguf"
	"github.com/situate/situate/internal/llamatest"
	"github.com/situate/situate/provider/openai"
	"github.com/situate/situate/provider/openai/openaitest"
)

// ModelIdentity against fakes speaking llama.cpp's and vLLM's /v1/models
// and /props: two model files under one name are told apart, a model the
// server does not serve is ErrModelNotFound.
func TestModelIdentityFakes(t *testing.T) {
	ctx := context.Background()
	id := func(cfg openaitest.Config, model string) (driver.ModelIdentity, error) {
		srv := openaitest.NewServer(cfg)
		defer srv.Close()
		c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1", Flavor: cfg.Flavor, Model: model})
		if err != nil {
			t.Fatal(err)
		}
		return c.LLM().(driver.ModelIdentifier).ModelIdentity(ctx)
	}
	a, err := id(openaitest.Config{Flavor: openaitest.FlavorLlamaCpp, Model: "tiny.gguf", ModelPath: "/models/a/tiny.gguf"}, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := id(openaitest.Config{Flavor: openaitest.FlavorLlamaCpp, Model: "tiny.gguf", ModelPath: "/models/b/tiny.gguf"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "tiny.gguf" || b.Name != "tiny.gguf" || a.Digest == b.Digest || !strings.Contains(a.Digest, "/models/a/tiny.gguf") {
		t.Errorf("llama.cpp identities %+v and %+v: want one name, two digests", a, b)
	}
	if _, err := id(openaitest.Config{Flavor: openaitest.FlavorLlamaCpp, Model: "tiny.gguf"}, "other.gguf"); !errors.Is(err, driver.ErrModelNotFound) {
		t.Errorf("llama.cpp, another model: %v", err)
	}
	v, err := id(openaitest.Config{Flavor: openaitest.FlavorVLLM, Model: "Qwen/Qwen3-8B", ContextWindow: 32768}, "Qwen/Qwen3-8B")
	if err != nil || v.Name != "Qwen/Qwen3-8B" || !strings.Contains(v.Digest, "max_model_len=32768") {
		t.Errorf("vLLM identity %+v, %v", v, err)
	}
	if _, err := id(openaitest.Config{Flavor: openaitest.FlavorVLLM, Model: "Qwen/Qwen3-8B"}, "Qwen/Qwen3-4B"); !errors.Is(err, driver.ErrModelNotFound) {
		t.Errorf("vLLM, another model: %v", err)
	}
}

// ModelIdentity against the real llama-server: the served model's file
// name, and two generated models (same file name, other shapes) differ.
func TestModelIdentityLlamaServer(t *testing.T) {
	ctx := context.Background()
	s1 := llamatest.Start(t, llamatest.Options{})
	s2 := llamatest.Start(t, llamatest.Options{Model: gguf.ModelOptions{Layers: 3}})
	var ids []driver.ModelIdentity
	for _, s := range []*llamatest.Server{s1, s2} {
		c, err := openai.New(openai.Options{BaseURL: s.BaseURL, Flavor: openai.FlavorLlamaCpp})
		if err != nil {
			t.Fatal(err)
		}
		id, err := c.ModelIdentity(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if ids[0].Name != "tiny-llama.gguf" || ids[0].Name != ids[1].Name || ids[0].Digest == ids[1].Digest {
		t.Errorf("identities %+v: want the file name, and different digests", ids)
	}
	t.Logf("llama-server identities: %+v", ids)
}

// A resample (Prompt.Sample > 0) varies the seed and, on local servers,
// warms the temperature and penalises repetition; OpenAI gets only a seed.
func TestBodySample(t *testing.T) {
	for _, flavor := range []string{openai.FlavorLlamaCpp, openai.FlavorOpenAI} {
		c, err := openai.New(openai.Options{BaseURL: "http://127.0.0.1:1/v1", Flavor: flavor, Model: "m", APIKey: "k",
			ExtraBody: map[string]any{"temperature": 0.0}})
		if err != nil {
			t.Fatal(err)
		}
		first, _ := c.Body(driver.Prompt{Prefix: "doc", Suffix: "chunk"})
		again, _ := c.Body(driver.Prompt{Prefix: "doc", Suffix: "chunk", Sample: 2})
		if _, ok := first["seed"]; ok {
			t.Errorf("%s: first sample sends a seed", flavor)
		}
		if again["seed"] != 2 {
			t.Errorf("%s: resample seed %v", flavor, again["seed"])
		}
		temp, _ := again["temperature"].(float64)
		switch flavor {
		case openai.FlavorLlamaCpp:
			if temp < 0.7 || again["repeat_penalty"] == nil {
				t.Errorf("llamacpp resample: %v", again)
			}
		case openai.FlavorOpenAI:
			if temp != 0 {
				t.Errorf("openai resample changed the temperature: %v", again)
			}
		}
	}
}
