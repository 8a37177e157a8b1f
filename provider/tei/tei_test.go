package tei_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/tei"
	"github.com/situate/situate/provider/tei/teitest"
	"github.com/situate/situate/situatetest"
)

var _ interface {
	Retryable() bool
	RetryAfter() time.Duration
	RateLimited() bool
} = (*tei.Error)(nil)

func newServer(t *testing.T, cfg teitest.Config) *teitest.Server {
	t.Helper()
	s := teitest.NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

func newEmbedder(t *testing.T, s *teitest.Server, o tei.Options) *tei.Embedder {
	t.Helper()
	o.BaseURL = s.URL
	e, err := tei.NewEmbedder(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func asError(t *testing.T, err error) *tei.Error {
	t.Helper()
	var e *tei.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *tei.Error", err, err)
	}
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("passage %d on subject %d", i, i%4)
	}
	return out
}

func TestNewReadsInfo(t *testing.T) {
	s := newServer(t, teitest.Config{MaxClientBatchSize: 8, MaxInputLength: 256})
	e := newEmbedder(t, s, tei.Options{})
	if e.Name() != "tei:"+teitest.DefaultModelID || e.BatchSize() != 8 {
		t.Errorf("Name %q, BatchSize %d", e.Name(), e.BatchSize())
	}
	if s.Stats().Info != 1 {
		t.Errorf("%d /info calls", s.Stats().Info)
	}
	// Everything given: no /info call.
	e, err := tei.NewEmbedder(context.Background(), tei.Options{BaseURL: s.URL, Model: "m", MaxInputTokens: 100, BatchSize: 4})
	if err != nil || e.Name() != "tei:m" || s.Stats().Info != 1 {
		t.Errorf("no-info construction: %v %q %d", err, e.Name(), s.Stats().Info)
	}
	// Wrong model or wrong kind of model is refused.
	if _, err := tei.NewEmbedder(context.Background(), tei.Options{BaseURL: s.URL, Model: "other/model"}); !errors.Is(err, driver.ErrInvalid) || !strings.Contains(err.Error(), "Model") {
		t.Errorf("model mismatch: %v", err)
	}
	if _, err := tei.NewReranker(context.Background(), tei.Options{BaseURL: s.URL}); !errors.Is(err, driver.ErrInvalid) || !strings.Contains(err.Error(), `model_type "embedding", want "reranker"`) {
		t.Errorf("reranker on embedding server: %v", err)
	}
	for _, o := range []tei.Options{{}, {BaseURL: "localhost:8080"}, {BaseURL: s.URL, BatchSize: -1}, {BaseURL: s.URL, Timeout: -1}} {
		if _, err := tei.NewEmbedder(context.Background(), o); !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("NewEmbedder(%v) = %v, want ErrInvalid", o, err)
		}
	}
	if strings.Contains(fmt.Sprintf("%v %#v", tei.Options{APIKey: "sekrit"}, tei.Options{APIKey: "sekrit"}), "sekrit") {
		t.Error("options print the key")
	}
}

func TestEmbedWire(t *testing.T) {
	s := newServer(t, teitest.Config{APIKey: "tok"})
	e := newEmbedder(t, s, tei.Options{APIKey: "tok", QueryPrefix: "query: ", DocumentPrefix: "passage: ", QueryPromptName: "query"})
	in := []string{"Paris is the capital of France.", "Москва — столица России."}
	docs, err := e.Embed(context.Background(), in, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), in[:1], driver.InputQuery); err != nil {
		t.Fatal(err)
	}
	for i, v := range docs {
		if w := teitest.Vector("passage: "+in[i], teitest.DefaultDim); v[9] != w[9] || len(v) != teitest.DefaultDim {
			t.Errorf("vector %d differs from the fake's", i)
		}
	}
	reqs := s.Requests()
	var doc, query map[string]any
	json.Unmarshal(reqs[1].Body, &doc)
	json.Unmarshal(reqs[2].Body, &query)
	if reqs[1].Path != "/embed" || reqs[1].Header.Get("Authorization") != "Bearer tok" || doc["truncate"] != false ||
		doc["normalize"] != true || doc["prompt_name"] != nil || doc["inputs"].([]any)[0] != "passage: "+in[0] {
		t.Errorf("document request %s", reqs[1].Body)
	}
	if query["prompt_name"] != "query" || query["inputs"].([]any)[0] != "query: "+in[0] {
		t.Errorf("query request %s", reqs[2].Body)
	}
}

// The server's --max-client-batch-size is lower than the client was told:
// the 413 names the limit, the batch is resent in pieces of that size and
// later calls use it from the start.
func TestEmbed413LearnsBatchLimit(t *testing.T) {
	s := newServer(t, teitest.Config{MaxClientBatchSize: 5})
	e := newEmbedder(t, s, tei.Options{Model: teitest.DefaultModelID, MaxInputTokens: 512, BatchSize: 16})
	in := texts(23)
	vecs, err := e.Embed(context.Background(), in, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	// 16 -> 413, then 5+5+5+5+3.
	if st.TooLarge != 1 || st.Embeds != 6 || st.Texts != 23 || e.BatchSize() != 5 {
		t.Errorf("stats %+v, batch size %d", st, e.BatchSize())
	}
	for i, v := range vecs {
		if w := teitest.Vector(in[i], teitest.DefaultDim); v[1] != w[1] || v[200] != w[200] {
			t.Fatalf("vector %d out of order", i)
		}
	}
	if _, err := e.Embed(context.Background(), in, driver.InputDocument); err != nil || s.Stats().TooLarge != 1 {
		t.Errorf("second call: %v, 413s %d (want no new one)", err, s.Stats().TooLarge)
	}
	// The limit drops again at runtime.
	s.SetMaxClientBatchSize(2)
	if _, err := e.Embed(context.Background(), texts(5), driver.InputQuery); err != nil || e.BatchSize() != 2 {
		t.Errorf("after restart with 2: %v, batch size %d", err, e.BatchSize())
	}
}

// A body over --payload-limit gets a plain-text 413: halve and resend.
func TestEmbedPayloadLimit(t *testing.T) {
	s := newServer(t, teitest.Config{PayloadLimit: 3000})
	e := newEmbedder(t, s, tei.Options{})
	in := make([]string, 8)
	for i := range in {
		in[i] = strings.Repeat(fmt.Sprintf("t%d ", i), 150) // ~450 bytes
	}
	vecs, err := e.Embed(context.Background(), in, driver.InputDocument)
	if err != nil || len(vecs) != 8 {
		t.Fatalf("err %v", err)
	}
	if st := s.Stats(); st.TooLarge == 0 || st.Texts != 8 {
		t.Errorf("stats %+v", st)
	}
}

func TestEmbedTooLong(t *testing.T) {
	s := newServer(t, teitest.Config{MaxInputLength: 64})
	long := strings.Repeat("word ", 100)
	e := newEmbedder(t, s, tei.Options{})
	_, err := e.Embed(context.Background(), []string{"ok", long}, driver.InputDocument)
	if !errors.Is(err, driver.ErrPromptTooLarge) || asError(t, err).Index != 1 || s.Stats().Embeds != 0 {
		t.Fatalf("pre-check: %v (requests %d)", err, s.Stats().Embeds)
	}
	// A client told a bigger limit: the server's real 413 body.
	e = newEmbedder(t, s, tei.Options{MaxInputTokens: 1000})
	_, err = e.Embed(context.Background(), []string{"ok", long}, driver.InputDocument)
	te := asError(t, err)
	if !errors.Is(err, driver.ErrPromptTooLarge) || te.StatusCode != 413 || te.Type != tei.TypeTooLong ||
		!strings.Contains(err.Error(), "must have less than 64 tokens") || te.Retryable() {
		t.Fatalf("server 413: %v", err)
	}
}

func TestEmbedBadResponses(t *testing.T) {
	cases := []struct {
		kind  teitest.FaultKind
		want  string
		retry bool
	}{
		{teitest.FaultWrongCount, "got 1 vectors for 2 texts", false},
		{teitest.FaultWrongDim, "vector 0 has dimension 383, want 384 as earlier batches", false},
		{teitest.FaultNaN, "malformed", true},
		{teitest.FaultEmpty, "got no vectors for 2 texts", false},
		{teitest.FaultTruncated, "malformed or truncated", true},
		{teitest.FaultZero, "vector 0 is all zeros", false},
	}
	for _, tc := range cases {
		s := newServer(t, teitest.Config{})
		e := newEmbedder(t, s, tei.Options{BatchSize: 2})
		s.Inject(teitest.Fault{Kind: tc.kind, Skip: 1})
		_, err := e.Embed(context.Background(), texts(4), driver.InputDocument)
		prefix := "tei " + teitest.DefaultModelID + ": embed batch 2 (texts 2-3): bad_response: "
		if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("fault %d: err = %v, want %q...%q", tc.kind, err, prefix, tc.want)
			continue
		}
		if asError(t, err).Retryable() != tc.retry {
			t.Errorf("fault %d: Retryable = %v", tc.kind, !tc.retry)
		}
	}
}

func TestErrorsCarryRetryAdvice(t *testing.T) {
	s := newServer(t, teitest.Config{})
	e := newEmbedder(t, s, tei.Options{})
	ctx := context.Background()
	s.Inject(teitest.Fault{Kind: teitest.FaultOverloaded, RetryAfter: 2 * time.Second})
	_, err := e.Embed(ctx, texts(1), driver.InputQuery)
	te := asError(t, err)
	if !te.Retryable() || !te.RateLimited() || te.RetryAfter() != 2*time.Second || te.Type != "overloaded" || !strings.Contains(err.Error(), "Model is overloaded") {
		t.Errorf("429: %v", err)
	}
	s.Inject(teitest.Fault{Kind: teitest.FaultUnhealthy})
	if _, err := e.Embed(ctx, texts(1), driver.InputQuery); !asError(t, err).Retryable() || asError(t, err).StatusCode != 503 {
		t.Errorf("503: %v", err)
	}
	s.Inject(teitest.Fault{Kind: teitest.FaultBackend})
	if _, err := e.Embed(ctx, texts(1), driver.InputQuery); asError(t, err).Retryable() || asError(t, err).StatusCode != 424 {
		t.Errorf("424: %v", err)
	}
	auth := newServer(t, teitest.Config{APIKey: "right"})
	if _, err := tei.NewEmbedder(ctx, tei.Options{BaseURL: auth.URL, APIKey: "wrong"}); asError(t, err).StatusCode != 401 || asError(t, err).Retryable() {
		t.Errorf("401: %v", err)
	}
	s.Close()
	if _, err := e.Embed(ctx, texts(1), driver.InputQuery); !asError(t, err).Retryable() || asError(t, err).Type != tei.TypeConnection {
		t.Errorf("closed: %v", err)
	}
}

func TestUsageFromComputeTokens(t *testing.T) {
	s := newServer(t, teitest.Config{})
	rec := &situatetest.Recorder{}
	e := newEmbedder(t, s, tei.Options{BatchSize: 3, Usage: rec})
	if _, err := e.Embed(context.Background(), texts(5), driver.InputDocument); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, u := range rec.Usage() {
		sum += u.InputTokens
		if u.Provider != "tei" || u.Operation != "embed" || u.Model != teitest.DefaultModelID {
			t.Errorf("usage %+v", u)
		}
	}
	if len(rec.Usage()) != 2 || sum != s.Stats().Tokens || sum == 0 {
		t.Errorf("%d records, %d tokens, server %d", len(rec.Usage()), sum, s.Stats().Tokens)
	}
}

func TestRerank(t *testing.T) {
	s := newServer(t, teitest.Config{Reranker: true, MaxClientBatchSize: 3})
	r, err := tei.NewReranker(context.Background(), tei.Options{BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if r.Name() != "tei:"+teitest.DefaultRerankerID {
		t.Errorf("Name %q", r.Name())
	}
	q := "capital of France"
	docs := []string{"Berlin is German.", "Paris is the capital of France.", "France.", "A capital idea.", "Nothing.", "France's capital is Paris."}
	scores, err := r.Rerank(context.Background(), q, docs)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		want := 1 / (1 + math.Exp(-(10*teitest.Score(q, d) - 5)))
		if math.Abs(scores[i]-want) > 1e-12 {
			t.Errorf("score[%d] = %v, want %v", i, scores[i], want)
		}
	}
	if scores[1] <= scores[0] || s.Stats().Reranks != 2 {
		t.Errorf("scores %v, %d requests", scores, s.Stats().Reranks)
	}
	var body map[string]any
	json.Unmarshal(s.Requests()[1].Body, &body)
	if body["truncate"] != false || body["raw_scores"] != false || body["query"] != q || len(body["texts"].([]any)) != 3 {
		t.Errorf("rerank body %s", s.Requests()[1].Body)
	}
	if _, err := r.Rerank(context.Background(), strings.Repeat("why ", 600), docs); !errors.Is(err, driver.ErrPromptTooLarge) || !strings.Contains(err.Error(), "query") {
		t.Errorf("long query: %v", err)
	}
	s.Inject(teitest.Fault{Kind: teitest.FaultBadIndex, Path: "/rerank", Skip: 1})
	_, err = r.Rerank(context.Background(), q, docs)
	if err == nil || !strings.Contains(err.Error(), "rerank batch 2 (texts 3-5): bad_response") || !strings.Contains(err.Error(), "repeated") {
		t.Errorf("bad index: %v", err)
	}
}
