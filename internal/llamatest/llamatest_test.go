package llamatest_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/situate/situate/internal/llamatest"
)

// TestStart starts the real server and checks it serves the generated
// model with the requested slots, and that cleanup stops it.
func TestStart(t *testing.T) {
	var url string
	t.Run("server", func(t *testing.T) {
		s := llamatest.Start(t, llamatest.Options{Context: 4096, Parallel: 4})
		url = s.URL
		resp, err := http.Get(s.URL + "/props")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var props struct {
			TotalSlots int    `json:"total_slots"`
			ModelPath  string `json:"model_path"`
			Default    struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&props); err != nil {
			t.Fatal(err)
		}
		if props.TotalSlots != 4 || props.Default.NCtx != 1024 || props.ModelPath != s.ModelPath {
			t.Errorf("props = %+v, want 4 slots of 1024 tokens serving %s", props, s.ModelPath)
		}
		if !strings.Contains(s.Log(), "model loaded") {
			t.Errorf("log lacks \"model loaded\":\n%s", s.Log())
		}
		// One thread (DefaultThreads): more spin at a barrier per
		// operation and crawl when the machine's cores are oversubscribed.
		if !regexp.MustCompile(`n_threads = 1\b`).MatchString(s.Log()) {
			t.Errorf("the server does not run on one thread:\n%s", s.Log())
		}
	})
	if url == "" {
		return // skipped
	}
	if resp, err := http.Get(url + "/health"); err == nil {
		resp.Body.Close()
		t.Errorf("server still answers after cleanup")
	}
}

func TestBinaryFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(llamatest.EnvServer, filepath.Join(dir, "missing"))
	if _, err := llamatest.Binary(); err == nil || !strings.Contains(err.Error(), llamatest.EnvServer) {
		t.Errorf("missing binary: %v", err)
	}
	notExec := filepath.Join(dir, "llama-server")
	_ = os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	t.Setenv(llamatest.EnvServer, notExec)
	if _, err := llamatest.Binary(); err == nil {
		t.Error("non-executable binary accepted")
	}
	_ = os.Chmod(notExec, 0o755)
	if p, err := llamatest.Binary(); err != nil || p != notExec {
		t.Errorf("Binary = %q, %v", p, err)
	}
}
