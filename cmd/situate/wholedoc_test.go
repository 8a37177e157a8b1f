package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/provider/anthropic/anthropictest"
)

// A document that fits in one chunk gets no model call: the offline
// context serves, labelled offline, not flagged and not a failure; `situate
// cost` counts the calls and dollars that saves. The model is Anthropic's
// Messages API as its wire-format fake speaks it.
func TestOneChunkDocumentsGetNoCall(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 2) // two documents of many chunks
	faqs := map[string]string{
		"faq/opening-hours.md": "# Opening hours\n\nThe Harbourton archive opens at nine and closes at five, Monday to Friday.\n",
		"faq/parking.md":       "# Parking\n\nVisitors park behind the bell foundry; the lot is free after six.\n",
		"faq/tickets.txt":      "Tickets for the observatory telescope tour cost four pounds and are sold at the door.\n",
	}
	for name, text := range faqs {
		os.MkdirAll(filepath.Dir(filepath.Join(corpus, name)), 0o755)
		if err := os.WriteFile(filepath.Join(corpus, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFakeAPI(t, anthropictest.Config{FirstTokenDelay: time.Millisecond, StreamDelay: time.Millisecond})
	store := filepath.Join(dir, "store")

	// The estimate first: it calls nothing.
	out, _ := f.mustRun(t, dir, "cost", "--store", store, "--llm", testModel, "--json", corpus)
	var est costJSON
	if err := json.Unmarshal([]byte(out), &est); err != nil {
		t.Fatalf("cost --json: %v\n%s", err, out)
	}
	if f.srv.Stats().Messages != 0 {
		t.Fatalf("cost called the model")
	}
	if est.OneChunkDocs != 3 || est.SavedCalls != 3 || est.SavedCostUSD <= 0 || est.Calls != est.Chunks-3 {
		t.Errorf("cost: %d one-chunk documents, %d saved calls, $%g saved, %d calls of %d chunks; want 3, 3, > 0, chunks-3",
			est.OneChunkDocs, est.SavedCalls, est.SavedCostUSD, est.Calls, est.Chunks)
	}
	text, _ := f.mustRun(t, dir, "cost", "--store", store, "--llm", testModel, corpus)
	if !strings.Contains(text, "one-chunk docs   3 (the chunk is the whole document: no call, the offline context serves; saves 3 calls, $") {
		t.Errorf("cost does not show the saving:\n%s", text)
	}

	// The run: exit 0, exactly the estimated calls, none for the FAQs.
	code, _, errOut := f.run(t, dir, "index", "--store", store, "--llm", testModel, corpus)
	if code != exitOK {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	if n := f.srv.Stats().Messages; n != est.Calls {
		t.Errorf("index made %d calls, the estimate said %d", n, est.Calls)
	}
	if strings.Contains(errOut, "fallback") || strings.Contains(errOut, "fail ") || strings.Contains(errOut, " 0 failed") == false {
		t.Errorf("one-chunk documents reported as failures:\n%s", errOut)
	}
	for name := range faqs {
		show, _ := f.mustRun(t, dir, "show", "--store", store, name)
		if !strings.Contains(show, "[context by offline]") || strings.Contains(show, "flag") {
			t.Errorf("%s: not the unflagged offline context:\n%s", name, show)
		}
	}
	show, _ := f.mustRun(t, dir, "show", "--store", store, "doc000.md")
	if !strings.Contains(show, "[context by "+testModel) {
		t.Errorf("doc000.md: contexts not by the model:\n%s", show)
	}
	st, _ := f.mustRun(t, dir, "status", "--store", store)
	if !strings.Contains(st, "flagged     0 contexts") {
		t.Errorf("status:\n%s", st)
	}
	// A rerun retries nothing: the offline contexts are not fallbacks.
	before := f.srv.Stats().Messages
	_, errOut = f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, corpus)
	if n := f.srv.Stats().Messages - before; n != 0 || !strings.Contains(errOut, "nothing changed") {
		t.Errorf("rerun: %d calls\n%s", n, errOut)
	}

	// --llm-one-chunk call asks the model for them too: status sees the
	// change, and index calls for the three FAQs only (the other contexts
	// come from the cache).
	st, _ = f.mustRun(t, dir, "status", "--store", store, "--llm", testModel, "--llm-one-chunk", "call")
	if !strings.Contains(st, "documents of one chunk changed (offline context → model call)") {
		t.Errorf("status with --llm-one-chunk call:\n%s", st)
	}
	before = f.srv.Stats().Messages
	_, errOut = f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--llm-one-chunk", "call", corpus)
	if n := f.srv.Stats().Messages - before; n != 3 {
		t.Errorf("--llm-one-chunk call: %d calls, want 3 (the one-chunk documents)\n%s", n, errOut)
	}
	show, _ = f.mustRun(t, dir, "show", "--store", store, "faq/parking.md")
	if !strings.Contains(show, "[context by "+testModel) {
		t.Errorf("faq/parking.md after --llm-one-chunk call:\n%s", show)
	}
}
