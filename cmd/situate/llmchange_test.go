package main

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate/provider/openai/openaitest"
)

// switchable is one URL in front of llama.cpp fakes that the test swaps,
// as a user swaps the model a llama-server on a fixed port serves.
type switchable struct {
	srv    *httptest.Server
	target atomic.Pointer[openaitest.Server]
}

func newSwitchable(t *testing.T, s *openaitest.Server) *switchable {
	sw := &switchable{}
	sw.target.Store(s)
	// The current fake's own handler answers, on this URL's connections.
	// A reverse proxy here (one per request, over http.DefaultTransport)
	// now and then cut a stream under load ("ReverseProxy read error during
	// body copy: use of closed network connection"); the client rightly
	// retried the call, and the fake counted one call more than there are
	// chunks (69 vs 68).
	sw.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw.target.Load().Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(sw.srv.Close)
	return sw
}

func llamaFake(t *testing.T, path string) *openaitest.Server {
	s := openaitest.NewServer(openaitest.Config{Flavor: openaitest.FlavorLlamaCpp, Model: "tiny.gguf", ModelPath: path})
	t.Cleanup(s.Close)
	return s
}

var resituatedRe = regexp.MustCompile(`re-situated (\d+) documents: (.*)`)

// TestLLMSettingsChangesResituate: with llama.cpp (a fake speaking its
// wire format behind one URL), changing the prompt template, the model
// served at the URL, max tokens or the forced language re-situates exactly
// the documents whose prompts changed, says why, and an unchanged run makes
// no call. status tells stale from fresh from the settings recorded in the
// store, without --llm.
func TestLLMSettingsChangesResituate(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	copyTree(t, filepath.Join(repoRoot(t), "examples", "corpus"), corpus)
	os.Remove(filepath.Join(corpus, "queries.jsonl"))
	store := filepath.Join(dir, "store")
	a := llamaFake(t, "/models/a/tiny.gguf")
	sw := newSwitchable(t, a)
	base := []string{"--store", store, "--llm", "llamacpp", "--llm-base-url", sw.srv.URL + "/v1"}
	calls := func() int {
		return sw.target.Load().Stats().Chat
	}
	index := func(extra ...string) (string, int) {
		t.Helper()
		before := calls()
		_, errOut := mustRun(t, dir, append(append([]string{"index"}, base...), append(extra, corpus)...)...)
		return errOut, calls() - before
	}
	status := func(args ...string) string {
		t.Helper()
		out, _ := mustRun(t, dir, append([]string{"status", "--store", store}, args...)...)
		return out
	}
	out, n := index()
	if n == 0 || !strings.Contains(out, "12 added") {
		t.Fatalf("first run: %d calls\n%s", n, out)
	}
	all := n
	show, _ := mustRun(t, dir, "show", "--store", store, "en/brightwater-logistics.md")
	if !strings.Contains(show, "llamacpp:tiny.gguf") {
		t.Errorf("contexts do not carry the served model's name:\n%s", show)
	}
	if st := status(); !strings.Contains(st, "stale       none") || !strings.Contains(st, "llamacpp:tiny.gguf") {
		t.Errorf("status after indexing:\n%s", st)
	}
	if out, n := index(); n != 0 || !strings.Contains(out, "12 documents unchanged") {
		t.Errorf("unchanged settings: %d calls\n%s", n, out)
	}

	tmpl := filepath.Join(dir, "tmpl.txt")
	os.WriteFile(tmpl, []byte("<document>\n{{WHOLE_DOCUMENT}}\n</document>\nSituate this chunk:\n<chunk>\n{{CHUNK_CONTENT}}\n</chunk>\nAnswer with the context only.\n"), 0o644)
	if st := status("--llm", "llamacpp", "--llm-base-url", sw.srv.URL+"/v1", "--llm-template", tmpl); !strings.Contains(st, "stale       12 documents: prompt template changed") {
		t.Errorf("status with another template:\n%s", st)
	}
	glossary := filepath.Join(dir, "glossary.json")
	os.WriteFile(glossary, []byte(`[{"term": "ferry", "definition": "a boat"}]`), 0o644)
	steps := []struct {
		name   string
		change func()
		args   []string
		reason string
		docs   int // documents re-situated
		calls  int // -1: every chunk
	}{
		{"template", func() {}, []string{"--llm-template", tmpl}, "prompt template changed (builtin → tmpl.txt)", 12, -1},
		{"same template again", func() {}, []string{"--llm-template", tmpl}, "", 0, 0},
		// The built-in template's contexts are still cached.
		{"back to the built-in template", func() {}, nil, "prompt template changed (tmpl.txt → builtin)", 0, 0},
		{"another model behind the URL", func() { sw.target.Store(llamaFake(t, "/models/b/tiny.gguf")) }, nil,
			"model changed (another model file named llamacpp:tiny.gguf)", 12, -1},
		{"max tokens", func() {}, []string{"--llm-max-tokens", "128"}, "max tokens changed (256 → 128)", 12, -1},
		// Forcing English changes the prompts of the 8 documents that are
		// not English; the English ones keep their cached contexts.
		{"language", func() {}, []string{"--llm-max-tokens", "128", "--llm-language", "en"}, "language changed (each document's own → en)", 8, -2},
		// Request fields (sampling) and the glossary change the answers.
		{"request fields", func() {}, []string{"--llm-max-tokens", "128", "--llm-language", "en", "--llm-extra", `{"temperature": 0}`},
			`request fields changed (none → {"temperature":0})`, 12, -1},
		{"same request fields again", func() {}, []string{"--llm-max-tokens", "128", "--llm-language", "en", "--llm-extra", `{"temperature":0}`}, "", 0, 0},
		{"glossary", func() {}, []string{"--llm-max-tokens", "128", "--llm-language", "en", "--llm-extra", `{"temperature":0}`, "--llm-glossary", glossary},
			"glossary changed (none → glossary.json)", 12, -1},
		{"glossary edited", func() {
			os.WriteFile(glossary, []byte(`[{"term": "ferry", "definition": "a boat that crosses the river"}]`), 0o644)
		},
			[]string{"--llm-max-tokens", "128", "--llm-language", "en", "--llm-extra", `{"temperature":0}`, "--llm-glossary", glossary},
			"glossary changed", 12, -1},
	}
	for _, s := range steps {
		s.change()
		out, n := index(s.args...)
		m := resituatedRe.FindStringSubmatch(out)
		switch {
		case s.calls == 0 && n != 0:
			t.Errorf("%s: %d calls, want none\n%s", s.name, n, out)
		case s.reason == "" && m != nil:
			t.Errorf("%s: %d calls, want none\n%s", s.name, n, out)
		case s.reason != "" && (m == nil || m[2] != s.reason || m[1] != itoa(s.docs)):
			t.Errorf("%s: want \"re-situated %d documents: %s\"\n%s", s.name, s.docs, s.reason, out)
		case s.calls == -1 && n != all:
			t.Errorf("%s: %d calls, want one per chunk (%d)", s.name, n, all)
		case s.calls == -2 && (n == 0 || n >= all):
			t.Errorf("%s: %d calls, want those of the affected documents only (fewer than %d)", s.name, n, all)
		}
		// The fake's contexts depend on the chunk only: every document
		// keeps its contexts, and its version (forcing English changes the
		// flags of the documents in other languages: those are new).
		if s.reason != "" && s.name != "language" && !strings.Contains(out, "0 documents got other contexts (new version), 12 kept theirs (same version)") {
			t.Errorf("%s: versions bumped although the contexts are the same:\n%s", s.name, tail(out, 1500))
		}
		if st := status(); !strings.Contains(st, "stale       none") {
			t.Errorf("%s: status after the run:\n%s", s.name, st)
		}
	}
}

// TestCostLocalServer: "cost --llm llamacpp" (bare, as index accepts it)
// asks a llama.cpp server (a fake speaking its wire format) for its model,
// slots and context, caps the concurrency at the slots, models the prefix
// cache, and reports server time instead of dollars; the predicted
// cache-read share is then compared with the one the run observes.
func TestCostLocalServer(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	copyTree(t, filepath.Join(repoRoot(t), "examples", "corpus"), corpus)
	os.Remove(filepath.Join(corpus, "queries.jsonl"))
	// Answers take a little time, as a real server's do: a document's
	// other chunks are queued at its slot while its first call runs.
	srv := openaitest.NewServer(openaitest.Config{Flavor: openaitest.FlavorLlamaCpp, Model: "tiny.gguf", ModelPath: "/models/tiny.gguf",
		FirstChunkDelay: 20 * time.Millisecond, StreamDelay: 2 * time.Millisecond})
	t.Cleanup(srv.Close)
	url := srv.URL + "/v1"
	out, _ := mustRun(t, dir, "cost", "--llm", "llamacpp", "--llm-base-url", url, corpus)
	for _, want := range []string{"estimate for llamacpp:tiny.gguf", "calls in flight (server slots 2", "no price for a local server", "cache read"} {
		if !strings.Contains(out, want) {
			t.Errorf("cost output lacks %q:\n%s", want, out)
		}
	}
	jsonOut, _ := mustRun(t, dir, "cost", "--json", "--llm", "llamacpp", "--llm-base-url", url, corpus)
	var est costJSON
	if err := json.Unmarshal([]byte(jsonOut), &est); err != nil {
		t.Fatal(err)
	}
	if !est.Local || est.Slots != 2 || est.Concurrency != 2 || est.ContextWindow != 4096 || est.CostUSD != 0 || est.CacheReadShare <= 0.3 {
		t.Errorf("cost --json: %+v", est)
	}
	before := srv.Stats()
	mustRun(t, dir, "index", "--store", filepath.Join(dir, "store"), "--llm", "llamacpp", "--llm-base-url", url, corpus)
	st := srv.Stats()
	observed := float64(st.CachedTokens-before.CachedTokens) / float64(st.PromptTokens-before.PromptTokens)
	t.Logf("cache-read share: predicted %.1f%%, observed %.1f%% (fake llama.cpp)", 100*est.CacheReadShare, 100*observed)
	if math.Abs(observed-est.CacheReadShare) > 0.05 {
		t.Errorf("predicted cache-read share %.3f, observed %.3f: more than 5 points apart", est.CacheReadShare, observed)
	}
	if code, _, errOut := run(t, dir, "cost", "--llm", "llamacpp", corpus); code != exitUsage || !strings.Contains(errOut, "--llm-base-url") {
		t.Errorf("cost --llm llamacpp without a URL: exit %d: %s", code, errOut)
	}
}

// TestUsageCountsEveryAttempt: failed attempts that were retried are
// recorded with what the server processed, apart from the calls; "usage"
// totals equal the server's own counters (a fake speaking llama.cpp's wire
// format; see TestLlamaUsageEqualsMetrics for the real server).
func TestUsageCountsEveryAttempt(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	copyTree(t, filepath.Join(repoRoot(t), "examples", "corpus", "en"), corpus)
	srv := llamaFake(t, "/models/tiny.gguf")
	srv.Inject(openaitest.Fault{Kind: openaitest.FaultServerError}, openaitest.Fault{Kind: openaitest.FaultServerError},
		openaitest.Fault{Kind: openaitest.FaultStreamError})
	store := filepath.Join(dir, "store")
	mustRun(t, dir, "index", "--store", store, "--llm", "llamacpp", "--llm-base-url", srv.URL+"/v1", corpus)
	out, _ := mustRun(t, dir, "usage", "--store", store, "--json")
	var u usageJSON
	if err := json.Unmarshal([]byte(out), &u); err != nil {
		t.Fatal(err)
	}
	cu := u.Contexts
	st := srv.Stats()
	if cu == nil || cu.FailedAttempts != 3 || cu.Calls != cu.Succeeded || cu.Attempts != cu.Calls+3 || cu.Attempts != st.Chat+2 {
		t.Fatalf("usage contexts %+v; server saw %d chats (+2 refused before any work)", cu, st.Chat)
	}
	all := cu.AllAttempts
	if got := all.InputTokens + all.CacheReadTokens; got != int64(st.PromptTokens) || all.CacheReadTokens != int64(st.CachedTokens) {
		t.Errorf("usage: %d prompt tokens (%d cached) over all attempts; the server processed %d (%d cached)",
			got, all.CacheReadTokens, st.PromptTokens, st.CachedTokens)
	}
	text, _ := mustRun(t, dir, "usage", "--store", store)
	if !strings.Contains(text, "3 failed attempts retried") {
		t.Errorf("usage text:\n%s", text)
	}
}

// With the server down at the start, index fails at once, naming the
// server, before any document is touched.
func TestLLMServerDownAtStart(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeShortDoc(t, corpus)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1"
	srv.Close()
	start := time.Now()
	code, _, errOut := run(t, dir, "index", "--store", filepath.Join(dir, "store"), "--llm", "llamacpp", "--llm-base-url", url, corpus)
	if code != exitFailure || !strings.Contains(errOut, "which model it serves") || !strings.Contains(errOut, url) {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %v", el)
	}
}
