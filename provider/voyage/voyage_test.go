package voyage_test

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
	"github.com/situate/situate/provider/voyage"
	"github.com/situate/situate/provider/voyage/voyagetest"
	"github.com/situate/situate/situatetest"
)

// The retry contract callers rely on.
var _ interface {
	Retryable() bool
	RetryAfter() time.Duration
	RateLimited() bool
} = (*voyage.Error)(nil)

const testKey = "pa-test-0123456789"

func newServer(t *testing.T, cfg voyagetest.Config) *voyagetest.Server {
	t.Helper()
	cfg.APIKey = testKey
	s := voyagetest.NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

func opts(s *voyagetest.Server, o voyage.Options) voyage.Options {
	o.APIKey = testKey
	o.BaseURL = s.URL
	return o
}

func newEmbedder(t *testing.T, s *voyagetest.Server, o voyage.Options) *voyage.Embedder {
	t.Helper()
	e, err := voyage.NewEmbedder(opts(s, o))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func asError(t *testing.T, err error) *voyage.Error {
	t.Helper()
	var e *voyage.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *voyage.Error", err, err)
	}
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("text number %d about topic %d", i, i%3)
	}
	return out
}

func TestNewValidates(t *testing.T) {
	cases := []struct {
		name  string
		opts  voyage.Options
		field string
	}{
		{"no key", voyage.Options{}, "APIKey"},
		{"bad url", voyage.Options{APIKey: "k", BaseURL: "ftp://x"}, "BaseURL"},
		{"dims", voyage.Options{APIKey: "k", Dimensions: -1}, "Dimensions"},
		{"max input", voyage.Options{APIKey: "k", MaxInputTokens: -1}, "MaxInputTokens"},
		{"batch", voyage.Options{APIKey: "k", BatchSize: -1}, "BatchSize"},
		{"tokens", voyage.Options{APIKey: "k", BatchTokens: -1}, "BatchTokens"},
		{"timeout", voyage.Options{APIKey: "k", Timeout: -time.Second}, "Timeout"},
	}
	for _, tc := range cases {
		_, err := voyage.NewEmbedder(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.field) || !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("%s: NewEmbedder = %v, want ErrInvalid naming %s", tc.name, err, tc.field)
		}
	}
	o := voyage.Options{APIKey: testKey}
	for _, s := range []string{o.String(), fmt.Sprintf("%v", o), fmt.Sprintf("%#v", o)} {
		if strings.Contains(s, testKey) {
			t.Errorf("printed options leak the key: %s", s)
		}
	}
	e, _ := voyage.NewEmbedder(voyage.Options{APIKey: "k", Dimensions: 512})
	if e.Name() != "voyage:voyage-3.5@512" {
		t.Errorf("Name = %q", e.Name())
	}
	r, _ := voyage.NewReranker(voyage.Options{APIKey: "k"})
	if r.Name() != "voyage:rerank-2.5" {
		t.Errorf("reranker Name = %q", r.Name())
	}
}

// The request carries the documented fields; the vectors are the fake's.
func TestEmbedWire(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	e := newEmbedder(t, s, voyage.Options{Dimensions: 512})
	in := []string{"The capital of France is Paris.", "Берлин — столица Германии.", "北京是中国的首都。"}
	for _, it := range []driver.InputType{driver.InputDocument, driver.InputQuery} {
		vecs, err := e.Embed(context.Background(), in, it)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vecs {
			want := voyagetest.Vector(in[i], 512)
			if len(v) != 512 || v[0] != want[0] || v[511] != want[511] {
				t.Fatalf("vector %d differs from the fake's", i)
			}
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, wantType := range []string{"document", "query"} {
		var body map[string]any
		if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		if reqs[i].Path != "/v1/embeddings" || reqs[i].Header.Get("Authorization") != "Bearer "+testKey {
			t.Errorf("request %d: path %s, auth %q", i, reqs[i].Path, reqs[i].Header.Get("Authorization"))
		}
		if body["input_type"] != wantType || body["model"] != "voyage-3.5" || body["truncation"] != false ||
			body["output_dimension"] != 512.0 || body["output_dtype"] != "float" || len(body["input"].([]any)) != 3 {
			t.Errorf("request %d body %s", i, reqs[i].Body)
		}
	}
}

func TestEmbedSplitsByCountAndKeepsOrder(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	e := newEmbedder(t, s, voyage.Options{BatchSize: 3})
	in := texts(8)
	vecs, err := e.Embed(context.Background(), in, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Embeds != 3 || st.Texts != 8 {
		t.Errorf("stats %+v, want 3 requests of 8 texts", st)
	}
	for i, v := range vecs {
		if w := voyagetest.Vector(in[i], voyagetest.DefaultDim); v[3] != w[3] || v[100] != w[100] {
			t.Fatalf("vector %d out of order", i)
		}
	}
}

func TestEmbedSplitsByTokens(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	// 8 texts of about 250 tokens each with a 600-token budget: 2 per request.
	in := make([]string, 8)
	for i := range in {
		in[i] = strings.Repeat(fmt.Sprintf("w%d ", i), 333)
	}
	e := newEmbedder(t, s, voyage.Options{BatchTokens: 600})
	if _, err := e.Embed(context.Background(), in, driver.InputDocument); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Embeds != 4 {
		t.Errorf("%d requests, want 4", st.Embeds)
	}
}

// A server whose token limit is lower than the client thinks answers 400
// "max allowed tokens per submitted batch": the client halves the batch.
func TestEmbedHalvesOnBatchTooLarge(t *testing.T) {
	s := newServer(t, voyagetest.Config{BatchTokens: func(string) int { return 40 }})
	e := newEmbedder(t, s, voyage.Options{})
	in := texts(10) // ~9 tokens each
	vecs, err := e.Embed(context.Background(), in, driver.InputQuery)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Rejected == 0 || st.Texts != 10 || len(vecs) != 10 {
		t.Errorf("stats %+v, %d vectors: want rejections, then all 10 texts", st, len(vecs))
	}
	for i, v := range vecs {
		if w := voyagetest.Vector(in[i], voyagetest.DefaultDim); v[7] != w[7] {
			t.Fatalf("vector %d out of order after splitting", i)
		}
	}
}

func TestEmbedTooLongIsNeverTruncated(t *testing.T) {
	s := newServer(t, voyagetest.Config{MaxInputTokens: 100})
	long := strings.Repeat("word ", 200) // ~250 tokens
	// Caught before sending.
	e := newEmbedder(t, s, voyage.Options{MaxInputTokens: 100})
	_, err := e.Embed(context.Background(), []string{"short", long}, driver.InputDocument)
	if !errors.Is(err, driver.ErrPromptTooLarge) || asError(t, err).Index != 1 || !strings.Contains(err.Error(), "text 1") {
		t.Fatalf("err = %v, want ErrPromptTooLarge naming text 1", err)
	}
	if s.Stats().Embeds != 0 {
		t.Fatal("a request was sent for a text known to be too long")
	}
	// Caught by the server, which was told not to truncate.
	e = newEmbedder(t, s, voyage.Options{MaxInputTokens: 10000})
	_, err = e.Embed(context.Background(), []string{"short", long}, driver.InputDocument)
	if !errors.Is(err, driver.ErrPromptTooLarge) || asError(t, err).Retryable() {
		t.Fatalf("err = %v, want a final ErrPromptTooLarge from the server", err)
	}
	// Empty texts are refused by name.
	_, err = e.Embed(context.Background(), []string{"a", ""}, driver.InputDocument)
	if !errors.Is(err, driver.ErrInvalid) || !strings.Contains(err.Error(), "text 1 is empty") {
		t.Fatalf("err = %v, want ErrInvalid naming text 1", err)
	}
}

func TestEmbedBadResponses(t *testing.T) {
	cases := []struct {
		kind  voyagetest.FaultKind
		want  string
		retry bool
	}{
		{voyagetest.FaultWrongCount, "got 1 vectors for 2 texts", false},
		{voyagetest.FaultWrongDim, "vector 0 has dimension 1023, want 1024 as earlier batches", false},
		{voyagetest.FaultNaN, "malformed", true},
		{voyagetest.FaultEmpty, "got 0 vectors for 2 texts", false},
		{voyagetest.FaultTruncated, "malformed or truncated", true},
		{voyagetest.FaultBadIndex, "index 0 is out of range or repeated", false},
		{voyagetest.FaultZero, "vector 0 is all zeros", false},
	}
	for _, tc := range cases {
		s := newServer(t, voyagetest.Config{})
		e := newEmbedder(t, s, voyage.Options{BatchSize: 2})
		s.Inject(voyagetest.Fault{Kind: tc.kind, Skip: 1})
		vecs, err := e.Embed(context.Background(), texts(5), driver.InputDocument)
		if err == nil {
			t.Errorf("fault %d: no error, %d vectors", tc.kind, len(vecs))
			continue
		}
		prefix := "voyage voyage-3.5: embed batch 2 (texts 2-3): bad_response: "
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("fault %d: err = %q, want %q...%q", tc.kind, err, prefix, tc.want)
		}
		if asError(t, err).Retryable() != tc.retry {
			t.Errorf("fault %d: Retryable = %v", tc.kind, !tc.retry)
		}
	}
}

// A deployment that changes dimension between calls is caught.
func TestEmbedDimensionChange(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	e := newEmbedder(t, s, voyage.Options{})
	if _, err := e.Embed(context.Background(), texts(2), driver.InputDocument); err != nil {
		t.Fatal(err)
	}
	s.SetDim(256)
	_, err := e.Embed(context.Background(), texts(2), driver.InputDocument)
	if err == nil || !strings.Contains(err.Error(), "vector 0 has dimension 256, want 1024 as earlier batches") {
		t.Fatalf("err = %v", err)
	}
}

func TestErrorsCarryRetryAdvice(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	e := newEmbedder(t, s, voyage.Options{})
	ctx := context.Background()

	s.Inject(voyagetest.Fault{Kind: voyagetest.FaultRateLimit, RetryAfter: 3 * time.Second})
	_, err := e.Embed(ctx, texts(1), driver.InputQuery)
	ve := asError(t, err)
	if !ve.Retryable() || !ve.RateLimited() || ve.RetryAfter() != 3*time.Second || ve.StatusCode != 429 ||
		!strings.Contains(err.Error(), "TPM rate limit") || !strings.Contains(err.Error(), "batch 1 (texts 0-0)") {
		t.Errorf("429: %v retryable=%v after=%v", err, ve.Retryable(), ve.RetryAfter())
	}
	s.Inject(voyagetest.Fault{Kind: voyagetest.FaultServerError})
	_, err = e.Embed(ctx, texts(1), driver.InputQuery)
	if ve := asError(t, err); !ve.Retryable() || ve.RateLimited() || ve.StatusCode != 500 {
		t.Errorf("500: %v", err)
	}
	bad, _ := voyage.NewEmbedder(voyage.Options{APIKey: "wrong", BaseURL: s.URL})
	_, err = bad.Embed(ctx, texts(1), driver.InputQuery)
	if ve := asError(t, err); ve.Retryable() || ve.StatusCode != 401 || !strings.Contains(err.Error(), "API key is invalid") {
		t.Errorf("401: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = e.Embed(cctx, texts(1), driver.InputQuery)
	if ve := asError(t, err); ve.Retryable() || ve.Type != voyage.TypeCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	s.Close()
	_, err = e.Embed(ctx, texts(1), driver.InputQuery)
	if ve := asError(t, err); !ve.Retryable() || ve.Type != voyage.TypeConnection {
		t.Errorf("closed server: %v", err)
	}
}

func TestUsageRecorded(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	rec := &situatetest.Recorder{}
	e := newEmbedder(t, s, voyage.Options{BatchSize: 2, Usage: rec})
	if _, err := e.Embed(context.Background(), texts(3), driver.InputDocument); err != nil {
		t.Fatal(err)
	}
	if len(rec.Usage()) != 2 {
		t.Fatalf("%d usage records, want 2", len(rec.Usage()))
	}
	total := 0
	for _, u := range rec.Usage() {
		if u.Provider != "voyage" || u.Model != "voyage-3.5" || u.Operation != "embed" || u.InputTokens == 0 || u.Error != "" {
			t.Errorf("usage %+v", u)
		}
		total += u.InputTokens
	}
	if total != s.Stats().Tokens {
		t.Errorf("recorded %d tokens, server reported %d", total, s.Stats().Tokens)
	}
	s.Inject(voyagetest.Fault{Kind: voyagetest.FaultServerError})
	e.Embed(context.Background(), texts(1), driver.InputDocument)
	if last := rec.Usage()[len(rec.Usage())-1]; last.Error == "" {
		t.Errorf("failed call recorded without error: %+v", last)
	}
}

func TestRerankMapsIndexes(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	r, err := voyage.NewReranker(opts(s, voyage.Options{BatchSize: 2}))
	if err != nil {
		t.Fatal(err)
	}
	q := "capital of France"
	docs := []string{"Berlin is in Germany.", "Paris is the capital of France.", "France has wine.", "The capital city.", "Nothing here."}
	scores, err := r.Rerank(context.Background(), q, docs)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if want := voyagetest.Score(q, d); scores[i] != want {
			t.Errorf("score[%d] = %v, want %v (%q)", i, scores[i], want, d)
		}
	}
	if scores[1] != 1 || scores[4] != 0 {
		t.Errorf("scores %v", scores)
	}
	if st := s.Stats(); st.Reranks != 3 {
		t.Errorf("%d rerank requests, want 3", st.Reranks)
	}
	var body map[string]any
	json.Unmarshal(s.Requests()[0].Body, &body)
	if body["truncation"] != false || body["model"] != "rerank-2.5" || body["query"] != q {
		t.Errorf("rerank body %s", s.Requests()[0].Body)
	}
	for _, k := range []voyagetest.FaultKind{voyagetest.FaultBadIndex, voyagetest.FaultWrongCount} {
		s.Inject(voyagetest.Fault{Kind: k, Path: "/v1/rerank"})
		_, err := r.Rerank(context.Background(), q, docs)
		if err == nil || !strings.Contains(err.Error(), "voyage rerank-2.5: rerank batch 1 (texts 0-1): bad_response") {
			t.Errorf("fault %d: err = %v", k, err)
		}
	}
	if _, err := r.Rerank(context.Background(), "", docs); !errors.Is(err, driver.ErrInvalid) {
		t.Errorf("empty query: %v", err)
	}
}

func TestContextualizedChunks(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	e, err := voyage.NewContextEmbedder(opts(s, voyage.Options{Dimensions: 256}))
	if err != nil {
		t.Fatal(err)
	}
	var _ driver.Embedder = e
	docs := [][]string{
		{"ACME annual report 2023.", "Revenue grew 3% over the previous quarter."},
		{"Only one chunk here."},
	}
	vecs, err := e.EmbedDocumentChunks(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	for d, doc := range docs {
		if len(vecs[d]) != len(doc) {
			t.Fatalf("document %d: %d vectors for %d chunks", d, len(vecs[d]), len(doc))
		}
		for i, c := range doc {
			if w := voyagetest.ContextVector(c, doc, 256); vecs[d][i][5] != w[5] || len(vecs[d][i]) != 256 {
				t.Errorf("doc %d chunk %d differs from the fake's contextual vector", d, i)
			}
		}
	}
	q, err := e.Embed(context.Background(), []string{"revenue growth"}, driver.InputQuery)
	if err != nil || len(q) != 1 {
		t.Fatal(err)
	}
	var body map[string]any
	reqs := s.Requests()
	json.Unmarshal(reqs[len(reqs)-1].Body, &body)
	if in, _ := body["inputs"].([]any); len(in) != 1 || body["input_type"] != "query" || body["model"] != "voyage-context-3" {
		t.Errorf("query request %s", reqs[len(reqs)-1].Body)
	}
	s.Inject(voyagetest.Fault{Kind: voyagetest.FaultWrongCount})
	_, err = e.EmbedDocumentChunks(context.Background(), docs)
	if err == nil || !strings.Contains(err.Error(), "document 0: got 1 vectors for 2 texts") {
		t.Errorf("err = %v", err)
	}
	big := [][]string{{strings.Repeat("x", 200000)}}
	if _, err := e.EmbedDocumentChunks(context.Background(), big); !errors.Is(err, driver.ErrPromptTooLarge) {
		t.Errorf("huge document: %v", err)
	}
}

// Similar texts are closer than unrelated ones through client and fake.
func TestFakeSimilarity(t *testing.T) {
	s := newServer(t, voyagetest.Config{})
	e := newEmbedder(t, s, voyage.Options{})
	v, err := e.Embed(context.Background(), []string{"the cat sat on the mat", "a cat sat on a mat today", "stock prices fell sharply"}, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	cos := func(a, b []float32) float64 {
		var d float64
		for i := range a {
			d += float64(a[i]) * float64(b[i])
		}
		return d
	}
	if cos(v[0], v[1]) <= cos(v[0], v[2]) || math.Abs(cos(v[0], v[0])-1) > 1e-5 {
		t.Errorf("similar %.3f, unrelated %.3f", cos(v[0], v[1]), cos(v[0], v[2]))
	}
}
