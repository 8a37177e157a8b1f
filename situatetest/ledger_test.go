package situatetest_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/provider/ollama"
	"github.com/situate/situate/provider/ollama/ollamatest"
	"github.com/situate/situate/provider/openai"
	"github.com/situate/situate/provider/openai/openaitest"
	"github.com/situate/situate/situatetest"
	"github.com/situate/situate/sqlite"
)

// An endpoint that echoes the request's key, behind the LLM
// contextualizer recording its usage and caching its contexts into a
// SQLite store: whatever the provider, the run stops at a 401 with an
// error matching situate.ErrUnauthorized, every failed attempt is in the
// usage ledger, and no file of the store holds the key.
func TestNoKeyInStore(t *testing.T) {
	models := map[string]func(t *testing.T, url string) (driver.LLM, situatetest.ErrorBody){
		"anthropic": func(t *testing.T, url string) (driver.LLM, situatetest.ErrorBody) {
			c, err := anthropic.New(anthropic.Options{APIKey: situatetest.Key, BaseURL: url})
			must(t, err)
			return c, anthropictest.WriteError
		},
		"openai": func(t *testing.T, url string) (driver.LLM, situatetest.ErrorBody) {
			c, err := openai.New(openai.Options{APIKey: situatetest.Key, BaseURL: url + "/v1", Model: "gpt-5-mini"})
			must(t, err)
			return c, openaitest.ErrorWriter(openai.FlavorOpenAI)
		},
		"llamacpp": func(t *testing.T, url string) (driver.LLM, situatetest.ErrorBody) {
			c, err := openai.New(openai.Options{Flavor: openai.FlavorLlamaCpp, APIKey: situatetest.Key, BaseURL: url + "/v1", ContextWindow: 8192})
			must(t, err)
			return c, openaitest.ErrorWriter(openai.FlavorLlamaCpp)
		},
		"ollama": func(t *testing.T, url string) (driver.LLM, situatetest.ErrorBody) {
			c, err := ollama.New(ollama.Options{BaseURL: url, Model: "qwen3:4b", NumCtx: 8192,
				Headers: map[string][]string{"Authorization": {"Bearer " + situatetest.Key}}})
			must(t, err)
			return c, ollamatest.WriteError
		},
	}
	text := "Brightwater Logistics reported third quarter revenue of 4.2 million euros.\n\nThe board approved a dividend."
	doc := situate.Document{ID: "reports/q3.md", Title: "Q3", Text: text, Lang: "en", Format: situate.FormatMarkdown}
	chunks := []situate.Chunk{{DocID: doc.ID, Index: 0, Start: 0, End: 75, Text: text[:75]},
		{DocID: doc.ID, Index: 1, Start: 77, End: len(text), Text: text[77:]}}
	for name, newModel := range models {
		for _, f := range []situatetest.Fault{situatetest.FaultEchoKey, situatetest.FaultEchoServerError} {
			t.Run(name+"/"+f.String(), func(t *testing.T) {
				ctx := context.Background()
				dir := t.TempDir()
				st, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
				must(t, err)
				// The model's error body needs the model's wire format:
				// make one to learn it, then the server, then the client.
				_, body := newModel(t, "http://127.0.0.1:1")
				srv := situatetest.FaultServer(t, f, body)
				m, _ := newModel(t, srv.URL)
				opts := llm.DefaultOptions()
				opts.Usage, opts.Cache = st, st
				opts.Fallback = offline.New(offline.DefaultOptions())
				opts.MaxRetries, opts.BaseBackoff, opts.MaxBackoff = 2, time.Millisecond, time.Millisecond
				opts.Concurrency = 1
				c, err := llm.New(m, opts)
				must(t, err)
				_, err = c.Contextualize(ctx, doc, chunks)
				if f == situatetest.FaultEchoKey && !errors.Is(err, situate.ErrUnauthorized) {
					t.Errorf("a 401: Contextualize returned %v, want an error matching situate.ErrUnauthorized", err)
				}
				if err != nil && strings.Contains(err.Error(), situatetest.Key) {
					t.Errorf("the key appears in the error: %v", err)
				}
				sum, err := st.UsageSummary(ctx, time.Time{})
				must(t, err)
				if sum.Total.Calls == 0 || sum.Total.Errors == 0 {
					t.Errorf("usage ledger: %+v, want the failed calls recorded", sum.Total)
				}
				must(t, st.Close())
				situatetest.CheckNoKeyOnDisk(t, dir)
				if !anyFileHolds(t, dir, "[redacted]") {
					t.Errorf("no file of the store holds the redacted error: the check above proves nothing")
				}
			})
		}
	}
}

func anyFileHolds(t *testing.T, dir, s string) bool {
	found := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			found = found || bytes.Contains(data, []byte(s))
		}
		return nil
	})
	return found
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
