package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/sqlite"
)

// TestBatchIndexRoundTrip indexes through Message Batches: one batch, no
// streaming call, contexts identical to a streaming run's, a failed batch
// item indexed with the offline context flagged "fallback", usage recorded
// as operation "batch" at half price, and a second run with nothing to do.
func TestBatchIndexRoundTrip(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 3)
	f := newFakeAPI(t, anthropictest.Config{BatchProcessingTime: 150 * time.Millisecond})

	ref := filepath.Join(dir, "ref")
	f.mustRun(t, dir, "index", "--store", ref, "--llm", testModel, corpus)
	want := dumpStore(t, ref)
	chunks := storeStats(t, ref).Chunks
	streamed := f.srv.Stats().Messages

	f.srv.FailBatchItem(anthropic.BatchCustomID("doc001.md", 2), "errored", "api_error")
	// The results download is cut off once (truncated JSONL): fetched again.
	f.srv.Inject(anthropictest.Fault{Kind: anthropictest.FaultTruncated, Path: "/results"})
	store := filepath.Join(dir, "store")
	_, errOut := f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--batch", "--batch-poll", "20ms", "--allow-fallback", corpus)
	st := f.srv.Stats()
	if st.Faults != 1 {
		t.Errorf("%d faults used, want the truncated results download", st.Faults)
	}
	// The failed item is not run by the model, so not counted.
	if st.BatchesCreated != 1 || st.BatchRequests != chunks-1 || st.Messages != streamed {
		t.Fatalf("batch run: %d batches, %d batch requests run, %d streaming calls; want 1, %d, 0\n%s",
			st.BatchesCreated, st.BatchRequests, st.Messages-streamed, chunks-1, errOut)
	}
	if !strings.Contains(errOut, "3 added") || !strings.Contains(errOut, "1 failed (failed chunks get the offline context") {
		t.Errorf("batch run output:\n%s", errOut)
	}
	got := dumpStore(t, store)
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("batch store has %d lines, streaming store %d", len(gotLines), len(wantLines))
	}
	diff := 0
	for i := range gotLines {
		if gotLines[i] != wantLines[i] {
			diff++
			if !strings.HasPrefix(strings.TrimSpace(gotLines[i]), "2 ") {
				t.Errorf("batch and streaming stores differ beyond the failed item:\n got %s\nwant %s", gotLines[i], wantLines[i])
			}
		}
	}
	if diff != 1 {
		t.Errorf("%d chunk lines differ from the streaming run, want 1 (the failed item)", diff)
	}
	out, _ := f.mustRun(t, dir, "contexts", "--store", store, "--flagged", "--sample", "0", "--json")
	fl := reviewLines(t, out)
	if len(fl) != 1 || fl[0].Doc != "doc001.md" || fl[0].Chunk != 2 || fl[0].Source != "offline" || !strings.Contains(strings.Join(fl[0].Flags, ","), "fallback") {
		t.Errorf("flagged after batch: %+v", fl)
	}
	u := usageOf(t, f, dir, store)
	b := usageGroup(u, "batch")
	if b.Calls != chunks || b.Errors != 1 || b.CacheReadTokens == 0 {
		t.Errorf("batch usage %+v: want %d calls, 1 error, cache reads", b, chunks)
	}
	// Half the list price of the same tokens (cache writes at the 1-hour
	// price batches use).
	full := (float64(b.InputTokens)*3 + float64(b.CacheWriteTokens)*6 + float64(b.CacheReadTokens)*0.30 + float64(b.OutputTokens)*15) / 1e6
	if b.CostUSD < 0.49*full || b.CostUSD > 0.51*full {
		t.Errorf("batch cost $%.5f, want half of $%.5f", b.CostUSD, full)
	}
	// The next run sends the failed request again, and only it.
	_, errOut = f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--batch", "--batch-poll", "20ms", corpus)
	if st := f.srv.Stats(); st.BatchesCreated != 2 || st.BatchRequests != chunks || !strings.Contains(errOut, "1 updated, 2 unchanged") {
		t.Errorf("second batch run: %d batches created, %d requests run in all\n%s", st.BatchesCreated, st.BatchRequests, errOut)
	}
	if got := dumpStore(t, store); got != strings.Replace(want, "doc doc001.md v1", "doc doc001.md v2", 1) {
		t.Errorf("after the retry the store differs from the streaming run's:\n%s", got)
	}
	_, errOut = f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--batch", "--batch-poll", "20ms", corpus)
	if st := f.srv.Stats(); st.BatchesCreated != 2 || !strings.Contains(errOut, "3 documents unchanged") {
		t.Errorf("third batch run: %d batches created\n%s", st.BatchesCreated, errOut)
	}
	if code, _, errOut := f.run(t, dir, "index", "--store", filepath.Join(dir, "capped"), "--llm", testModel, "--batch", "--max-cost", "0.001", corpus); code != exitFailure || !strings.Contains(errOut, "exceed --max-cost") {
		t.Errorf("--batch --max-cost 0.001: exit %d %s", code, errOut)
	}
	if st := f.srv.Stats(); st.BatchesCreated != 2 {
		t.Errorf("a batch over --max-cost was submitted")
	}
	if code, _, errOut := f.run(t, dir, "index", "--store", store, "--batch", corpus); code != exitUsage || !strings.Contains(errOut, "--llm anthropic:MODEL") {
		t.Errorf("--batch without --llm: exit %d %s", code, errOut)
	}
}

// TestBatchIndexResumes kills "situate index --batch" while it polls and
// checks that the rerun polls the stored batch instead of submitting (and
// paying for) a second one, ending in the same store as a streaming run.
func TestBatchIndexResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 3)
	f := newFakeAPI(t, anthropictest.Config{BatchProcessingTime: 1500 * time.Millisecond})
	ref := filepath.Join(dir, "ref")
	f.mustRun(t, dir, "index", "--store", ref, "--llm", testModel, corpus)
	want := dumpStore(t, ref)
	chunks := storeStats(t, ref).Chunks

	store := filepath.Join(dir, "store")
	args := []string{"index", "--store", store, "--llm", testModel, "--batch", "--batch-poll", "50ms", corpus}
	cmd := f.command(dir, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := readUntil(t, bufio.NewReader(stderr), "in_progress", 20*time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !strings.Contains(seen, "submitted") {
		t.Fatalf("killed run did not submit:\n%s", seen)
	}
	s, err := sqlite.Open(context.Background(), filepath.Join(store, storeFile))
	if err != nil {
		t.Fatal(err)
	}
	meta, ok, err := s.Meta(context.Background(), "llm-batch:anthropic")
	s.Close()
	if err != nil || !ok || !strings.Contains(meta, `"id":"`) {
		t.Fatalf("batch id not stored before polling: %q %v %v", meta, ok, err)
	}

	_, errOut := f.mustRun(t, dir, args...)
	st := f.srv.Stats()
	if st.BatchesCreated != 1 || st.BatchRequests != chunks {
		t.Errorf("after resume: %d batches created, %d requests processed; want 1, %d\n%s", st.BatchesCreated, st.BatchRequests, chunks, errOut)
	}
	if !strings.Contains(errOut, "resuming") || !strings.Contains(errOut, "3 added") {
		t.Errorf("resumed run output:\n%s", errOut)
	}
	if got := dumpStore(t, store); got != want {
		t.Errorf("store after batch resume differs from a streaming run")
	}
}

// TestBatchUnknownStoredBatch: a stored batch the API no longer knows
// (deleted, or another account) is reported and its requests submitted
// again instead of failing every run.
func TestBatchUnknownStoredBatch(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	writeLongCorpus(t, corpus, 1)
	f := newFakeAPI(t, anthropictest.Config{BatchProcessingTime: 50 * time.Millisecond})
	store := filepath.Join(dir, "store")
	os.MkdirAll(store, 0o755)
	s, err := sqlite.Open(context.Background(), filepath.Join(store, storeFile))
	if err != nil {
		t.Fatal(err)
	}
	err = s.SetMeta(context.Background(), "llm-batch:anthropic", `{"id":"msgbatch_gone","model":"`+testModel+`","items":{}}`)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, errOut := f.mustRun(t, dir, "index", "--store", store, "--llm", testModel, "--batch", "--batch-poll", "10ms", corpus)
	if !strings.Contains(errOut, "msgbatch_gone: no longer known") || !strings.Contains(errOut, "1 added") || f.srv.Stats().BatchesCreated != 1 {
		t.Errorf("unknown stored batch:\n%s", errOut)
	}
	if st := storeStats(t, store); st.FlaggedContexts != 0 || st.ContextsBySource[testModel] != st.Chunks {
		t.Errorf("after the new batch: %+v", st)
	}
}
