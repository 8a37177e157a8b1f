package ollama_test

import (
	"context"
	"errors"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/ollama"
	"github.com/situate/situate/provider/ollama/ollamatest"
)

// ModelIdentity reads the model's digest from GET /api/tags (a tag
// re-pulled or re-created has another); an absent model is
// ErrModelNotFound.
func TestModelIdentity(t *testing.T) {
	ctx := context.Background()
	id := func(digest, model string) (driver.ModelIdentity, error) {
		srv := ollamatest.NewServer(ollamatest.Config{Model: "qwen3:4b", Digest: digest})
		defer srv.Close()
		c, err := ollama.New(ollama.Options{BaseURL: srv.URL, Model: model})
		if err != nil {
			t.Fatal(err)
		}
		return c.ModelIdentity(ctx)
	}
	a, err := id("aaa", "qwen3:4b")
	if err != nil || a.Name != "qwen3:4b" || a.Digest != "aaa" {
		t.Fatalf("identity %+v, %v", a, err)
	}
	if b, _ := id("bbb", "qwen3:4b"); b.Digest == a.Digest {
		t.Errorf("another digest under the same tag not told apart: %+v", b)
	}
	if _, err := id("aaa", "llama3"); !errors.Is(err, driver.ErrModelNotFound) {
		t.Errorf("absent model: %v", err)
	}
}
