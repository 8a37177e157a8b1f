package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/anthropic"
	"github.com/situate/situate/provider/anthropic/anthropictest"
)

type result struct {
	text string
	u    driver.Usage
	err  error
}

func collect(t *testing.T, c *anthropic.Client, id string) map[string]result {
	t.Helper()
	out := map[string]result{}
	err := c.BatchResults(context.Background(), id, func(customID string, comp driver.Completion, err error) error {
		if _, dup := out[customID]; dup {
			t.Errorf("result %s delivered twice", customID)
		}
		out[customID] = result{comp.Text, comp.Usage, err}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBatchRoundTripAndResume(t *testing.T) {
	clock := anthropictest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s := newServer(t, anthropictest.Config{Now: clock.Now, BatchProcessingTime: time.Hour})
	ctx := context.Background()
	c := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5"}) // CacheTTL 5m: batches still use 1h

	docs := map[string]string{"reports/a.md": doc(8000), "reports/b.md": doc(9000)}
	// Interleaved on purpose: SubmitBatch groups by document.
	var reqs []anthropic.BatchRequest
	for i := range 3 {
		for _, id := range []string{"reports/a.md", "reports/b.md"} {
			reqs = append(reqs, anthropic.BatchRequest{CustomID: anthropic.BatchCustomID(id, i),
				Prompt: prompt(id, docs[id], "chunk "+string(rune('A'+i))+" of "+id)})
		}
	}
	id, err := c.SubmitBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "msgbatch_") {
		t.Errorf("batch id %q", id)
	}

	// Wire shape: grouped by document, 1h TTL, no stream, custom ids kept.
	var body struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	last := s.Requests()[len(s.Requests())-1]
	if last.Path != "/v1/messages/batches" || json.Unmarshal(last.Body, &body) != nil || len(body.Requests) != 6 {
		t.Fatalf("batch request %s %.200s", last.Path, last.Body)
	}
	var order []string
	for _, r := range body.Requests {
		order = append(order, r.CustomID)
		p := string(r.Params)
		if !strings.Contains(p, `"ttl":"1h"`) || strings.Contains(p, `"stream"`) {
			t.Errorf("params %.300s: want ttl 1h and no stream", p)
		}
	}
	want := []string{anthropic.BatchCustomID("reports/a.md", 0), anthropic.BatchCustomID("reports/a.md", 1), anthropic.BatchCustomID("reports/a.md", 2),
		anthropic.BatchCustomID("reports/b.md", 0), anthropic.BatchCustomID("reports/b.md", 1), anthropic.BatchCustomID("reports/b.md", 2)}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("order %v, want grouped %v", order, want)
	}

	st, err := c.PollBatch(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Ended() || st.ProcessingStatus != anthropic.BatchInProgress || st.RequestCounts.Processing != 6 || st.ResultsURL != "" {
		t.Errorf("fresh batch %+v", st)
	}
	err = c.BatchResults(ctx, id, func(string, driver.Completion, error) error { return nil })
	if !errors.Is(err, anthropic.ErrBatchInProgress) {
		t.Errorf("results before end: %v, want ErrBatchInProgress", err)
	}

	// "Restart": a new client, the stored id, time passes.
	clock.Advance(61 * time.Minute)
	c2 := newClient(t, s, anthropic.Options{Model: "claude-sonnet-4-5"})
	st, err = c2.PollBatch(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Ended() || st.RequestCounts.Succeeded != 6 || st.RequestCounts.Processing != 0 || st.EndedAt == nil || !strings.HasPrefix(st.ResultsURL, s.URL) {
		t.Errorf("ended batch %+v", st)
	}
	got := collect(t, c2, id)
	if len(got) != 6 {
		t.Fatalf("%d results, want 6", len(got))
	}
	var writes, reads int
	for _, r := range reqs {
		res := got[r.CustomID]
		if res.err != nil {
			t.Errorf("%s: %v", r.CustomID, res.err)
			continue
		}
		if !strings.HasPrefix(res.text, "Context for: chunk ") || !strings.Contains(res.text, r.Prompt.DocID) {
			t.Errorf("%s: text %q", r.CustomID, res.text)
		}
		if res.u.CacheWriteTokens > 0 {
			writes++
		}
		if res.u.CacheReadTokens > 0 {
			reads++
		}
		if res.u.CostUSD <= 0 || res.u.Provider != "anthropic" || res.u.Operation != "context" {
			t.Errorf("%s: usage %+v", r.CustomID, res.u)
		}
	}
	if writes != 2 || reads != 4 {
		t.Errorf("batch cache: %d writes %d reads, want 2 and 4 (one write per document)", writes, reads)
	}
	// Batch pricing is half the streaming price of the same usage.
	r0 := got[anthropic.BatchCustomID("reports/a.md", 1)].u
	full := (float64(r0.InputTokens)*3 + float64(r0.CacheReadTokens)*0.3 + float64(r0.OutputTokens)*15) / 1e6
	if abs(r0.CostUSD-full/2) > 1e-12 {
		t.Errorf("batch cost %v, want %v", r0.CostUSD, full/2)
	}

	// Resume after a crash mid-download: the same results again.
	again := collect(t, c, id)
	for k, v := range got {
		if again[k].text != v.text {
			t.Errorf("%s: second download %q != %q", k, again[k].text, v.text)
		}
	}
	// fn's error stops the iteration and comes back.
	stop := errors.New("stop")
	n := 0
	err = c.BatchResults(ctx, id, func(string, driver.Completion, error) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("fn error: %v after %d calls", err, n)
	}
}

func TestBatchItemFailures(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{})
	ctx := context.Background()
	reqs := []anthropic.BatchRequest{
		{CustomID: "ok", Prompt: prompt("d", "doc", "fine")},
		{CustomID: "overloaded", Prompt: prompt("d", "doc", "x")},
		{CustomID: "invalid", Prompt: prompt("d", "doc", "y")},
		{CustomID: "expired", Prompt: prompt("d", "doc", "z")},
	}
	s.FailBatchItem("overloaded", "errored", "overloaded_error")
	s.FailBatchItem("invalid", "errored", "invalid_request_error")
	s.FailBatchItem("expired", "expired", "")
	id, err := c.SubmitBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, c, id)
	if got["ok"].err != nil || got["ok"].text == "" {
		t.Errorf("ok: %+v", got["ok"])
	}
	for cid, want := range map[string]struct {
		typ       string
		retryable bool
	}{"overloaded": {"overloaded_error", true}, "invalid": {"invalid_request_error", false}, "expired": {"expired", true}} {
		e := asError(t, got[cid].err)
		if e.Type != want.typ || e.Retryable() != want.retryable || e.Item != cid || !strings.Contains(e.Error(), cid) {
			t.Errorf("%s: %v (type %q retryable %v)", cid, e, e.Type, e.Retryable())
		}
	}
	st, _ := c.PollBatch(ctx, id)
	if st.RequestCounts.Succeeded != 1 || st.RequestCounts.Errored != 2 || st.RequestCounts.Expired != 1 {
		t.Errorf("counts %+v", st.RequestCounts)
	}
}

func TestBatchValidation(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{})
	ctx := context.Background()
	long := strings.Repeat("x", 65)
	for name, reqs := range map[string][]anthropic.BatchRequest{
		"empty":        nil,
		"bad char":     {{CustomID: "a/b", Prompt: prompt("d", "doc", "x")}},
		"too long":     {{CustomID: long, Prompt: prompt("d", "doc", "x")}},
		"no id":        {{CustomID: "", Prompt: prompt("d", "doc", "x")}},
		"duplicate":    {{CustomID: "a", Prompt: prompt("d", "doc", "x")}, {CustomID: "a", Prompt: prompt("d", "doc", "y")}},
		"empty prompt": {{CustomID: "a", Prompt: driver.Prompt{}}},
	} {
		if _, err := c.SubmitBatch(ctx, reqs); !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent for invalid batches", n)
	}
	if id := anthropic.BatchCustomID(strings.Repeat("ü/very long path ", 20), 123456); len(id) > anthropic.MaxCustomIDLen ||
		strings.ContainsAny(id, "/ü ") {
		t.Errorf("BatchCustomID = %q", id)
	}
	if anthropic.BatchCustomID("a", 1) == anthropic.BatchCustomID("b", 1) || anthropic.BatchCustomID("a", 1) != anthropic.BatchCustomID("a", 1) {
		t.Error("BatchCustomID not deterministic and distinct")
	}
	if _, err := c.PollBatch(ctx, "msgbatch_nope"); !errors.Is(err, driver.ErrNotFound) {
		t.Errorf("unknown batch: %v", err)
	}
}

func TestBatchFaults(t *testing.T) {
	s := newServer(t, anthropictest.Config{})
	c := newClient(t, s, anthropic.Options{})
	ctx := context.Background()
	reqs := []anthropic.BatchRequest{{CustomID: "a", Prompt: prompt("d", "doc", "one")}, {CustomID: "b", Prompt: prompt("d", "doc", "two")}}

	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultOverloaded, Path: "/batches"})
	_, err := c.SubmitBatch(ctx, reqs)
	if e := asError(t, err); e.StatusCode != 529 || !e.Retryable() || e.Op != "batches.create" {
		t.Errorf("overloaded submit: %v", err)
	}
	// A connection lost after sending may have created the batch: not retryable.
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultReset, Path: "/batches"})
	_, err = c.SubmitBatch(ctx, reqs)
	if e := asError(t, err); e.Retryable() || !strings.Contains(e.Error(), "may have been created") {
		t.Errorf("reset submit: %v retryable=%v", err, e.Retryable())
	}

	id, err := c.SubmitBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultTruncated, Path: "/results"})
	n := 0
	err = c.BatchResults(ctx, id, func(string, driver.Completion, error) error { n++; return nil })
	if e := asError(t, err); e.Type != anthropic.TypeStream || !e.Retryable() {
		t.Errorf("truncated results: %v", err)
	}
	if n >= 2 {
		t.Errorf("%d results delivered from a cut-off download of 2", n)
	}
	if got := collect(t, c, id); len(got) != 2 {
		t.Errorf("retry after truncation: %d results", len(got))
	}
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultTruncated, Path: id})
	_, err = c.PollBatch(ctx, id)
	if e := asError(t, err); e.Type != anthropic.TypeStream || !e.Retryable() {
		t.Errorf("truncated poll: %v", err)
	}
}

func TestBatchCancel(t *testing.T) {
	clock := anthropictest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s := newServer(t, anthropictest.Config{Now: clock.Now, BatchProcessingTime: time.Hour})
	c := newClient(t, s, anthropic.Options{})
	ctx := context.Background()
	id, err := c.SubmitBatch(ctx, []anthropic.BatchRequest{{CustomID: "a", Prompt: prompt("d", "doc", "x")}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.CancelBatch(ctx, id)
	if err != nil || st.ProcessingStatus != anthropic.BatchCanceling {
		t.Fatalf("cancel: %+v %v", st, err)
	}
	got := collect(t, c, id)
	if e := asError(t, got["a"].err); e.Type != "canceled" || !e.Retryable() {
		t.Errorf("canceled result: %v", e)
	}
}

// TestBatchResultsURLOtherHost: a results_url on another host never gets
// the API key; the documented path on BaseURL is used instead.
func TestBatchResultsURLOtherHost(t *testing.T) {
	var foreign atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { foreign.Add(1) }))
	defer evil.Close()
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/results") {
			w.Header().Set("content-type", "application/x-jsonl")
			_, _ = w.Write([]byte(`{"custom_id":"a","result":{"type":"succeeded","message":{"id":"m","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}}}` + "\n"))
			return
		}
		w.Header().Set("content-type", "application/json")
		_, _ = w.Write([]byte(`{"id":"msgbatch_1","type":"message_batch","processing_status":"ended","request_counts":{"processing":0,"succeeded":1,"errored":0,"canceled":0,"expired":0},"created_at":"2026-01-01T00:00:00Z","ended_at":"2026-01-01T00:10:00Z","expires_at":"2026-01-02T00:00:00Z","results_url":"` + evil.URL + `/v1/messages/batches/msgbatch_1/results"}`))
	}))
	defer srv.Close()
	c, _ := anthropic.New(anthropic.Options{APIKey: testKey, BaseURL: srv.URL + "/proxy"})
	var texts []string
	err := c.BatchResults(context.Background(), "msgbatch_1", func(id string, comp driver.Completion, err error) error {
		texts = append(texts, comp.Text)
		return err
	})
	if err != nil || len(texts) != 1 || texts[0] != "ok" || foreign.Load() != 0 {
		t.Fatalf("err %v texts %v foreign calls %d", err, texts, foreign.Load())
	}
	if paths[1] != "/proxy/v1/messages/batches/msgbatch_1/results" {
		t.Errorf("paths %v", paths)
	}
}
