package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/provider/anthropic/anthropictest"
)

func reviewLines(t *testing.T, out string) []reviewJSON {
	t.Helper()
	var rs []reviewJSON
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r reviewJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("contexts --json line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestFaultsInUsageAndContexts injects every kind of fault the Anthropic
// API produces into an LLM index run: retryable ones (429 with
// retry-after, 529, 500, connection reset, truncated JSON, an error event
// mid-stream) must appear as retries in "situate usage"; a final failure
// (429 spend limit, not retryable) as an error; it and an empty completion
// as contexts flagged "fallback" in "situate contexts --flagged"; a context
// in another language as "wrong-language". "--regenerate" then asks again
// for exactly the flagged contexts and clears the fallbacks.
func TestFaultsInUsageAndContexts(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 3)
	const german = "Dieser Abschnitt beschreibt die Geschichte des Hafens und die Arbeit der Leute in der Stadt während des langen Winters."
	f := newFakeAPI(t, anthropictest.Config{FirstTokenDelay: 2 * time.Millisecond, StreamDelay: 5 * time.Millisecond,
		Generate: func(model string, blocks []string) string {
			last := blocks[len(blocks)-1]
			if strings.Contains(last, "## Part 7") && strings.Contains(blocks[0], "Entity001") {
				return german
			}
			words := strings.Fields(last[strings.Index(last, "<chunk>")+len("<chunk>"):])
			return "Context for: " + strings.Join(words[:8], " ")
		}})
	f.srv.Inject(
		anthropictest.Fault{Kind: anthropictest.FaultRateLimit, RetryAfter: time.Second},
		anthropictest.Fault{Kind: anthropictest.FaultOverloaded},
		anthropictest.Fault{Kind: anthropictest.FaultServerError},
		anthropictest.Fault{Kind: anthropictest.FaultReset},
		anthropictest.Fault{Kind: anthropictest.FaultTruncated},
		anthropictest.Fault{Kind: anthropictest.FaultStreamError},
		anthropictest.Fault{Kind: anthropictest.FaultEmpty},
		anthropictest.Fault{Kind: anthropictest.FaultSpendLimit},
	)
	store := filepath.Join(dir, "store")
	f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--llm-concurrency", "2", "--allow-fallback", corpus)
	chunks := storeStats(t, store).Chunks
	st := f.srv.Stats()
	g := usageGroup(usageOf(t, f, dir, store), "context")
	t.Logf("%d chunks; server %d messages, %d faults; usage %+v", chunks, st.Messages, st.Faults, g)
	if st.Faults != 8 {
		t.Fatalf("%d faults used, want all 8", st.Faults)
	}
	if g.Calls != chunks || g.Retries != 6 || g.Errors != 1 {
		t.Errorf("usage: %d calls, %d retries, %d errors; want %d calls (one per chunk), 6 retries (the retryable faults), 1 error (spend limit)",
			g.Calls, g.Retries, g.Errors, chunks)
	}
	out, _ := f.mustRun(t, dir, "usage", "--store", store)
	if !strings.Contains(out, "retries") || !strings.Contains(out, "errors") {
		t.Errorf("usage table lacks retries/errors:\n%s", out)
	}

	out, _ = f.mustRun(t, dir, "contexts", "--store", store, "--flagged", "--sample", "0", "--json")
	flagged := reviewLines(t, out)
	var fallback, empty, failed, wrongLang int
	for _, r := range flagged {
		switch {
		case slices.Contains(r.Flags, "fallback") && slices.Contains(r.Flags, "empty"):
			fallback++
			empty++
		case slices.Contains(r.Flags, "fallback") && slices.Contains(r.Flags, "error"):
			fallback++
			failed++
		case slices.Contains(r.Flags, "wrong-language"):
			wrongLang++
		}
		if slices.Contains(r.Flags, "fallback") && (r.Source != "offline" || r.Context == "") {
			t.Errorf("fallback context of %s chunk %d: source %q, text %q; want the offline context", r.Doc, r.Chunk, r.Source, r.Context)
		}
	}
	if fallback != 2 || empty != 1 || failed != 1 || wrongLang != 1 {
		t.Errorf("flagged: %d fallback (%d empty, %d error), %d wrong-language; want 2 (1, 1), 1\n%s", fallback, empty, failed, wrongLang, out)
	}
	text, errOut := f.mustRun(t, dir, "contexts", "--store", store, "--flagged", "--sample", "0")
	if !strings.Contains(text, "flags    fallback") || !strings.Contains(text, "context  ") || !strings.Contains(errOut, "flagged") {
		t.Errorf("contexts review output:\n%s\n%s", text, errOut)
	}
	all, _ := f.mustRun(t, dir, "contexts", "--store", store, "--sample", "5", "--seed", "3", "--json")
	again, _ := f.mustRun(t, dir, "contexts", "--store", store, "--sample", "5", "--seed", "3", "--json")
	if n := len(reviewLines(t, all)); n != 5 || all != again {
		t.Errorf("--sample 5 --seed 3: %d chunks, same twice: %v", n, all == again)
	}

	// Regenerate: only the flagged contexts are asked again.
	before := f.srv.Stats().Messages
	_, errOut = f.mustRun(t, dir, "contexts", "--store", store, "--flagged", "--sample", "0", "--regenerate", "--llm", testModel)
	if calls := f.srv.Stats().Messages - before; calls != len(flagged) {
		t.Errorf("--regenerate made %d calls, want %d (the flagged contexts)\n%s", calls, len(flagged), errOut)
	}
	out, _ = f.mustRun(t, dir, "contexts", "--store", store, "--flagged", "--sample", "0", "--json")
	after := reviewLines(t, out)
	if len(after) != 1 || !slices.Contains(after[0].Flags, "wrong-language") {
		t.Errorf("after --regenerate, flagged: %+v; want only the wrong-language one (the model answers it again)", after)
	}
	if !strings.Contains(errOut, "version 2") {
		t.Errorf("regenerated documents not re-committed:\n%s", errOut)
	}
	if got := storeStats(t, store).Chunks; got != chunks {
		t.Errorf("%d chunks after regenerate, want %d", got, chunks)
	}
	res := search(t, dir, store, 3, "Entity002 Works founded Harbourton")
	if len(res.Results) == 0 || res.Results[0].Doc != "doc002.md" {
		t.Errorf("search after regenerate: %+v", res.Results)
	}
	// A clean re-index finds nothing to do.
	before = f.srv.Stats().Messages
	_, errOut = f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, corpus)
	if calls := f.srv.Stats().Messages - before; calls != 0 || !strings.Contains(errOut, "3 documents unchanged") {
		t.Errorf("index after regenerate: %d calls\n%s", calls, errOut)
	}
}

func TestContextsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"contexts", "--store", filepath.Join(dir, "none")}, exitFailure, "no store"},
		{[]string{"contexts", "--sample", "-1"}, exitUsage, "--sample"},
		{[]string{"contexts", "--regenerate"}, exitUsage, "--llm"},
	} {
		code, _, errOut := run(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("situate %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestRetryFallbacks: a chunk whose call kept failing gets the fallback;
// the next run asks the model again for it alone (Engine.Index with
// RetryFallbacks).
func TestRetryFallbacks(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 3)
	f := newFakeAPI(t, anthropictest.Config{})
	f.srv.Inject(anthropictest.Fault{Kind: anthropictest.FaultSpendLimit})
	store := filepath.Join(dir, "store")
	args := []string{"--store", store, "--llm", testModel}
	// A run with a fallback exits 1 and says so, unless --allow-fallback.
	code, _, errOut := f.run(t, dir, append(append([]string{"index"}, args...), corpus)...)
	if code != exitFailure || !strings.Contains(errOut, "1 chunks fell back") || !strings.Contains(errOut, "--allow-fallback") {
		t.Fatalf("index with a fallback chunk: exit %d, want %d with a message naming --allow-fallback:\n%s", code, exitFailure, errOut)
	}
	if n := storeStats(t, store).FlaggedContexts; n != 1 {
		t.Fatalf("%d flagged contexts after a spend-limit fault, want 1", n)
	}

	before := f.srv.Stats().Messages
	_, errOut = f.mustRun(t, dir, append(append([]string{"index"}, args...), corpus)...)
	if calls := f.srv.Stats().Messages - before; calls != 1 || !strings.Contains(errOut, "1 updated, 2 unchanged") {
		t.Errorf("rerun: %d calls, want 1 (the fallback chunk)\n%s", calls, errOut)
	}
	if n := storeStats(t, store).FlaggedContexts; n != 0 {
		t.Errorf("%d flagged contexts after the retry, want 0", n)
	}
}
