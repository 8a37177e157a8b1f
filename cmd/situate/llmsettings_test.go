package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/provider/anthropic/anthropictest"
)

// The tests in this file run situate against anthropictest (standing in
// for api.anthropic.com, see usage_test.go) to check the LLM settings
// llm-timeout, llm-max-retries, llm-glossary, llm-price, llm-rpm and
// llm-tpm end to end.

// writeShortDoc writes one document of one chunk.
func writeShortDoc(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	text := "# Harbour ledger\n\nThe harbour ledger of Harbourton records every ship that docked in 1852, with its cargo and crew.\n"
	if err := os.WriteFile(filepath.Join(dir, "ledger.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// contextsOf returns every chunk's context as "situate contexts --json"
// shows it.
func contextsOf(t *testing.T, f *fakeAPI, dir, store string) []reviewJSON {
	t.Helper()
	out, _ := f.mustRun(t, dir, "contexts", "--store", store, "--sample", "0", "--json")
	var xs []reviewJSON
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var x reviewJSON
		if err := json.Unmarshal([]byte(line), &x); err != nil {
			t.Fatalf("contexts --json: %v\n%s", err, line)
		}
		xs = append(xs, x)
	}
	return xs
}

// TestLLMTimeoutHang: with --llm-timeout 300ms a call the server never
// answers is abandoned and retried; when it hangs once the retry writes
// the context, when it keeps hanging the chunk is indexed with the
// offline context flagged "fallback", and "situate usage" counts the retry
// and the error.
func TestLLMTimeoutHang(t *testing.T) {
	for _, c := range []struct {
		name     string
		hangs    int
		fallback bool
		errors   int
	}{
		{"hangs once", 1, false, 0},
		{"keeps hanging", 2, true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			corpus := filepath.Join(dir, "corpus")
			writeShortDoc(t, corpus)
			f := newFakeAPI(t, anthropictest.Config{})
			for range c.hangs {
				f.srv.Inject(anthropictest.Fault{Kind: anthropictest.FaultHang})
			}
			store := filepath.Join(dir, "store")
			start := time.Now()
			// The document is one chunk: --llm-one-chunk call asks the model anyway.
			f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--llm-one-chunk", "call", "--llm-timeout", "300ms", "--llm-max-retries", "1", "--allow-fallback", corpus)
			took := time.Since(start)
			st := f.srv.Stats()
			if st.Messages != 2 || st.Faults != c.hangs {
				t.Errorf("server saw %d message requests and %d faults, want 2 (one retry) and %d", st.Messages, st.Faults, c.hangs)
			}
			// Two 300ms attempts and at most 500ms of backoff; a client
			// that did not time out would wait for the server's close.
			if took > 20*time.Second {
				t.Errorf("index took %v", took)
			}
			if n := storeStats(t, store).Chunks; n != 1 {
				t.Fatalf("store holds %d chunks, want 1", n)
			}
			xs := contextsOf(t, f, dir, store)
			if len(xs) != 1 {
				t.Fatalf("%d contexts, want 1", len(xs))
			}
			flagged := slices.Contains(xs[0].Flags, "fallback")
			if flagged != c.fallback || (c.fallback && xs[0].Context == "") || (!c.fallback && xs[0].Source != testModel) {
				t.Errorf("context %+v: want fallback=%v", xs[0], c.fallback)
			}
			g := usageGroup(usageOf(t, f, dir, store), "context")
			if g.Calls != 1 || g.Retries != 1 || g.Errors != c.errors {
				t.Errorf("usage: %d calls, %d retries, %d errors; want 1, 1, %d", g.Calls, g.Retries, g.Errors, c.errors)
			}
		})
	}
}

// TestLLMGlossarySetting: --llm-glossary puts the file's terms in the
// cached document block of every request, after the document, and that
// block is byte-identical for all chunks of a document.
func TestLLMGlossarySetting(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 2)
	gloss := filepath.Join(dir, "glossary.toml")
	os.WriteFile(gloss, []byte("[[terms]]\nterm = \"Harbourton\"\ndefinition = \"the port village where every company of the corpus was founded\"\n"), 0o644)
	f := newFakeAPI(t, anthropictest.Config{})
	store := filepath.Join(dir, "store")
	f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--llm-glossary", gloss, corpus)
	docBlocks := map[string]int{}
	calls := 0
	for _, r := range f.srv.Requests() {
		if r.Path != "/v1/messages" {
			continue
		}
		calls++
		var body struct {
			Messages []struct {
				Content []struct {
					Text         string          `json:"text"`
					CacheControl json.RawMessage `json:"cache_control"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) != 1 || len(body.Messages[0].Content) != 2 {
			t.Fatalf("request body: %v\n%s", err, r.Body)
		}
		doc, chunk := body.Messages[0].Content[0], body.Messages[0].Content[1]
		if len(doc.CacheControl) == 0 {
			t.Error("document block not marked cache_control")
		}
		want := "</document>\n<glossary>\nTerms defined in other documents:\n- Harbourton: the port village where every company of the corpus was founded\n</glossary>\n"
		if !strings.HasSuffix(doc.Text, want) {
			t.Fatalf("glossary not after the document in the cached block:\n%s", doc.Text[max(0, len(doc.Text)-400):])
		}
		if strings.Contains(chunk.Text, "port village") {
			t.Error("glossary in the per-chunk block")
		}
		docBlocks[doc.Text]++
	}
	chunks := storeStats(t, store).Chunks
	if calls != chunks || len(docBlocks) != 2 {
		t.Errorf("%d calls for %d chunks with %d distinct document blocks; want one call per chunk and one block per document (2)", calls, chunks, len(docBlocks))
	}
	for _, n := range docBlocks {
		if n < 2 {
			t.Errorf("a document block was sent %d times; every chunk of a document should send the same one", n)
		}
	}
	st := f.srv.Stats()
	if st.CacheReads != calls-2 {
		t.Errorf("%d of %d calls read the cache, want all but the 2 documents' first", st.CacheReads, calls)
	}
}

// TestLLMPriceSetting: --llm-price replaces the model's price in the
// contextualizer's accounting ("situate usage" cost).
func TestLLMPriceSetting(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 2)
	f := newFakeAPI(t, anthropictest.Config{})
	store := filepath.Join(dir, "store")
	f.mustRun(t, dir, "index", "--store", store, "--llm", testModel,
		"--llm-price", "input=10,cache-write-5m=20,cache-read=2,output=40", corpus)
	g := usageGroup(usageOf(t, f, dir, store), "context")
	want := (float64(g.InputTokens)*10 + float64(g.CacheWriteTokens)*20 + float64(g.CacheReadTokens)*2 + float64(g.OutputTokens)*40) / 1e6
	if g.CacheReadTokens == 0 || math.Abs(g.CostUSD-want) > 1e-9*want {
		t.Errorf("usage cost $%g with the overridden price, want $%g (%+v)", g.CostUSD, want, g)
	}
}

// TestLLMRateSetting: --llm-rpm 45 lets a minute's worth (45 calls) go at
// once, then one every 4/3 seconds: the 48 calls of 4 documents take at
// least 4 seconds, and every chunk still gets exactly one call. (At 60 per
// minute, 192 chunks took 2m12s: the 60-call burst, then 132 at one per
// second.)
func TestLLMRateSetting(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 4s by design")
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 4)
	f := newFakeAPI(t, anthropictest.Config{})
	store := filepath.Join(dir, "store")
	const rpm = 45
	start := time.Now()
	f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--llm-rpm", fmt.Sprint(rpm), "--llm-tpm", "100000000", corpus)
	took := time.Since(start)
	chunks := storeStats(t, store).Chunks
	st := f.srv.Stats()
	t.Logf("%d chunks in %v at %d requests per minute", chunks, took, rpm)
	if st.Messages != chunks || chunks <= rpm {
		t.Fatalf("%d calls for %d chunks; want one per chunk and more than %d chunks", st.Messages, chunks, rpm)
	}
	if floor := time.Duration(chunks-rpm) * time.Minute / rpm; took < floor-50*time.Millisecond {
		t.Errorf("%d calls at %d/min took %v, less than the %v the limit allows", chunks, rpm, took, floor)
	}
}

// TestLLMSettingErrors: bad values of the new settings are usage errors
// naming the setting and the field.
func TestLLMSettingErrors(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeShortDoc(t, corpus)
	badGloss := filepath.Join(dir, "bad.json")
	os.WriteFile(badGloss, []byte(`[{"term":"A","definition":""}]`), 0o644)
	f := newFakeAPI(t, anthropictest.Config{})
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--llm-rpm", "-1"}, []string{"--llm-rpm", "must be >= 0"}},
		{[]string{"--llm-tpm", "many"}, []string{"--llm-tpm", "not an integer"}},
		{[]string{"--llm-timeout", "soon"}, []string{"--llm-timeout", "positive duration"}},
		{[]string{"--llm-timeout", "0s"}, []string{"--llm-timeout", "positive duration"}},
		{[]string{"--llm-max-retries", "-2"}, []string{"--llm-max-retries", "must be >= 0"}},
		{[]string{"--llm-one-chunk", "sometimes"}, []string{"--llm-one-chunk", "want offline or call"}},
		{[]string{"--llm-price", "input=1,output=x"}, []string{"--llm-price", "price field output"}},
		{[]string{"--llm-price", "outptu=1"}, []string{"--llm-price", "outptu", "unknown"}},
		{[]string{"--llm-glossary", filepath.Join(dir, "none.json")}, []string{"--llm-glossary", "none.json"}},
		{[]string{"--llm-glossary", badGloss}, []string{"--llm-glossary", "bad.json", "terms[0]", "definition is empty"}},
	} {
		args := append([]string{"index", "--store", filepath.Join(dir, "store"), "--llm", testModel}, c.args...)
		code, _, errOut := f.run(t, dir, append(args, corpus)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d (usage)\n%s", c.args, code, exitUsage, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, errOut)
			}
		}
	}
	if st := f.srv.Stats(); st.Messages != 0 {
		t.Errorf("bad settings still made %d calls", st.Messages)
	}
}

// TestLLMSettingsFromConfigFile: the settings work as situate.toml keys.
func TestLLMSettingsFromConfigFile(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeShortDoc(t, corpus)
	store := filepath.Join(dir, "store")
	os.MkdirAll(store, 0o755)
	conf := fmt.Sprintf("llm = %q\nllm-rpm = 1000\nllm-tpm = 400000\nllm-timeout = \"45s\"\nllm-price = \"input=2,output=8\"\nllm-one-chunk = \"call\"\n", testModel)
	os.WriteFile(filepath.Join(store, "situate.toml"), []byte(conf), 0o644)
	f := newFakeAPI(t, anthropictest.Config{})
	out, _ := f.mustRun(t, dir, "config", "--store", store)
	for _, w := range []string{`llm-rpm`, `"1000"`, `llm-timeout`, `"45s"`, `"input=2,output=8"`} {
		if !strings.Contains(out, w) {
			t.Errorf("situate config lacks %s:\n%s", w, out)
		}
	}
	f.mustRun(t, dir, "index", "--store", store, corpus)
	g := usageGroup(usageOf(t, f, dir, store), "context")
	// Sonnet's cache prices stay; input and output are overridden.
	want := (float64(g.InputTokens)*2 + float64(g.CacheWriteTokens)*3.75 + float64(g.CacheReadTokens)*0.30 + float64(g.OutputTokens)*8) / 1e6
	if g.Calls != 1 || math.Abs(g.CostUSD-want) > 1e-9*want {
		t.Errorf("usage %+v: cost want $%g", g, want)
	}
}
