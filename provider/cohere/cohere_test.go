package cohere_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/cohere"
	"github.com/situate/situate/provider/cohere/coheretest"
	"github.com/situate/situate/situatetest"
)

var _ interface {
	Retryable() bool
	RetryAfter() time.Duration
	RateLimited() bool
} = (*cohere.Error)(nil)

const testKey = "co-test-0123456789"

func newServer(t *testing.T) *coheretest.Server {
	t.Helper()
	s := coheretest.NewServer(coheretest.Config{APIKey: testKey})
	t.Cleanup(s.Close)
	return s
}

func opts(s *coheretest.Server, o cohere.Options) cohere.Options {
	o.APIKey, o.BaseURL = testKey, s.URL
	return o
}

func newEmbedder(t *testing.T, s *coheretest.Server, o cohere.Options) *cohere.Embedder {
	t.Helper()
	e, err := cohere.NewEmbedder(opts(s, o))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func asError(t *testing.T, err error) *cohere.Error {
	t.Helper()
	var e *cohere.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *cohere.Error", err, err)
	}
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("document %d about theme %d", i, i%5)
	}
	return out
}

func TestNewValidates(t *testing.T) {
	for _, o := range []cohere.Options{{}, {APIKey: "k", BaseURL: "x"}, {APIKey: "k", Dimensions: -1}, {APIKey: "k", BatchSize: -2}} {
		if _, err := cohere.NewEmbedder(o); !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("NewEmbedder(%v) = %v", o, err)
		}
	}
	// The message names the package, the field and the fix.
	if _, err := cohere.NewEmbedder(cohere.Options{}); err == nil || err.Error() != "cohere: options: APIKey: empty (set CO_API_KEY): situate: invalid input" {
		t.Errorf("empty key: %v", err)
	}
	if _, err := cohere.NewEmbedder(cohere.Options{APIKey: "k", BatchSize: -2}); err == nil || err.Error() != "cohere: options: BatchSize: must be >= 0, got -2: situate: invalid input" {
		t.Errorf("negative BatchSize: %v", err)
	}
	if s := fmt.Sprintf("%v %#v", cohere.Options{APIKey: testKey}, cohere.Options{APIKey: testKey}); strings.Contains(s, testKey) {
		t.Errorf("key printed: %s", s)
	}
	e, _ := cohere.NewEmbedder(cohere.Options{APIKey: "k"})
	r, _ := cohere.NewReranker(cohere.Options{APIKey: "k"})
	if e.Name() != "cohere:embed-v4.0" || r.Name() != "cohere:rerank-v3.5" {
		t.Errorf("names %q %q", e.Name(), r.Name())
	}
}

func TestEmbedWireAndBatches(t *testing.T) {
	s := newServer(t)
	e := newEmbedder(t, s, cohere.Options{Dimensions: 512})
	in := texts(200)
	vecs, err := e.Embed(context.Background(), in, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), in[:1], driver.InputQuery); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Embeds != 4 || st.Texts != 201 {
		t.Errorf("stats %+v, want 3 batches of <= 96 plus the query", st)
	}
	for i, v := range vecs {
		if w := coheretest.Vector(in[i], 512); len(v) != 512 || v[11] != w[11] {
			t.Fatalf("vector %d differs from the fake's", i)
		}
	}
	reqs := s.Requests()
	for i, want := range map[int]string{0: "search_document", 3: "search_query"} {
		var body map[string]any
		json.Unmarshal(reqs[i].Body, &body)
		if reqs[i].Path != "/v2/embed" || reqs[i].Header.Get("Authorization") != "Bearer "+testKey ||
			body["input_type"] != want || body["truncate"] != "NONE" || body["model"] != "embed-v4.0" ||
			body["output_dimension"] != 512.0 || fmt.Sprint(body["embedding_types"]) != "[float]" {
			t.Errorf("request %d: %s", i, reqs[i].Body)
		}
	}
	if n := len(func() []any { var b map[string]any; json.Unmarshal(reqs[0].Body, &b); return b["texts"].([]any) }()); n != 96 {
		t.Errorf("first batch has %d texts, want 96", n)
	}
}

func TestEmbedTooLong(t *testing.T) {
	s := newServer(t)
	long := strings.Repeat("lorem ", 500) // ~750 tokens, above embed-english-v3.0's 512
	e := newEmbedder(t, s, cohere.Options{Model: "embed-english-v3.0"})
	_, err := e.Embed(context.Background(), []string{"fine", long}, driver.InputDocument)
	if !errors.Is(err, driver.ErrPromptTooLarge) || asError(t, err).Index != 1 || s.Stats().Embeds != 0 {
		t.Fatalf("pre-check: %v", err)
	}
	e = newEmbedder(t, s, cohere.Options{Model: "embed-english-v3.0", MaxInputTokens: 5000})
	_, err = e.Embed(context.Background(), []string{"fine", long}, driver.InputDocument)
	if ce := asError(t, err); !errors.Is(err, driver.ErrPromptTooLarge) || ce.StatusCode != 400 || ce.Retryable() || ce.RequestID == "" {
		t.Fatalf("server refusal: %v", err)
	}
}

func TestEmbedBadResponses(t *testing.T) {
	cases := []struct {
		kind  coheretest.FaultKind
		want  string
		retry bool
	}{
		{coheretest.FaultWrongCount, "got 1 vectors for 2 texts", false},
		{coheretest.FaultWrongDim, "vector 0 has dimension 1535, want 1536 as earlier batches", false},
		{coheretest.FaultNaN, "malformed", true},
		{coheretest.FaultEmpty, "got no vectors for 2 texts", false},
		{coheretest.FaultTruncated, "malformed or truncated", true},
		{coheretest.FaultZero, "vector 0 is all zeros", false},
	}
	for _, tc := range cases {
		s := newServer(t)
		e := newEmbedder(t, s, cohere.Options{BatchSize: 2})
		s.Inject(coheretest.Fault{Kind: tc.kind, Skip: 1})
		_, err := e.Embed(context.Background(), texts(4), driver.InputDocument)
		prefix := "cohere embed-v4.0: embed batch 2 (texts 2-3): bad_response: "
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
	s := newServer(t)
	e := newEmbedder(t, s, cohere.Options{})
	ctx := context.Background()
	s.Inject(coheretest.Fault{Kind: coheretest.FaultRateLimit, RetryAfter: 4 * time.Second})
	_, err := e.Embed(ctx, texts(1), driver.InputQuery)
	if ce := asError(t, err); !ce.Retryable() || !ce.RateLimited() || ce.RetryAfter() != 4*time.Second || !strings.Contains(err.Error(), "Trial key") {
		t.Errorf("429: %v", err)
	}
	s.Inject(coheretest.Fault{Kind: coheretest.FaultServerError})
	if _, err := e.Embed(ctx, texts(1), driver.InputQuery); !asError(t, err).Retryable() {
		t.Errorf("500: %v", err)
	}
	bad, _ := cohere.NewEmbedder(cohere.Options{APIKey: "nope", BaseURL: s.URL})
	if _, err := bad.Embed(ctx, texts(1), driver.InputQuery); asError(t, err).Retryable() || asError(t, err).StatusCode != 401 {
		t.Errorf("401: %v", err)
	}
}

func TestUsage(t *testing.T) {
	s := newServer(t)
	rec := &situatetest.Recorder{}
	e := newEmbedder(t, s, cohere.Options{Usage: rec})
	if _, err := e.Embed(context.Background(), texts(100), driver.InputDocument); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, u := range rec.Usage() {
		sum += u.InputTokens
	}
	if len(rec.Usage()) != 2 || sum != s.Stats().Tokens || rec.Usage()[0].Operation != "embed" || rec.Usage()[0].Provider != "cohere" {
		t.Errorf("usage %+v, server tokens %d", rec.Usage(), s.Stats().Tokens)
	}
}

func TestRerank(t *testing.T) {
	s := newServer(t)
	rec := &situatetest.Recorder{}
	r, err := cohere.NewReranker(opts(s, cohere.Options{BatchSize: 4, Usage: rec}))
	if err != nil {
		t.Fatal(err)
	}
	q := "capital of France"
	docs := []string{"Berlin.", "Paris is the capital of France.", "France.", "Capital letters.", "Nothing.", "The French capital, Paris."}
	scores, err := r.Rerank(context.Background(), q, docs)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if want := coheretest.Score(q, d); scores[i] != float64(int(want*1e6+0.5))/1e6 {
			t.Errorf("score[%d] = %v, want %v", i, scores[i], want)
		}
	}
	var body map[string]any
	json.Unmarshal(s.Requests()[0].Body, &body)
	if s.Stats().Reranks != 2 || body["top_n"] != 4.0 || body["model"] != "rerank-v3.5" {
		t.Errorf("%d requests, body %s", s.Stats().Reranks, s.Requests()[0].Body)
	}
	if len(rec.Usage()) != 2 || rec.Usage()[0].Operation != "rerank" || rec.Usage()[0].InputTokens == 0 {
		t.Errorf("usage %+v", rec.Usage())
	}
	s.Inject(coheretest.Fault{Kind: coheretest.FaultBadIndex, Path: "/v2/rerank"})
	if _, err := r.Rerank(context.Background(), q, docs); err == nil || !strings.Contains(err.Error(), "cohere rerank-v3.5: rerank batch 1 (texts 0-3): bad_response: results[1].index") {
		t.Errorf("bad index: %v", err)
	}
	s.Inject(coheretest.Fault{Kind: coheretest.FaultWrongCount, Path: "/v2/rerank"})
	if _, err := r.Rerank(context.Background(), q, docs); err == nil || !strings.Contains(err.Error(), "got 3 scores for 4 texts") {
		t.Errorf("wrong count: %v", err)
	}
	long := strings.Repeat("word ", 4000)
	if _, err := r.Rerank(context.Background(), q, []string{"a", long}); !errors.Is(err, driver.ErrPromptTooLarge) || !strings.Contains(err.Error(), "text 1") {
		t.Errorf("long document: %v", err)
	}
}
