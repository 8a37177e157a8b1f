package gemini_test

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
	"github.com/situate/situate/provider/gemini"
	"github.com/situate/situate/provider/gemini/geminitest"
)

var _ interface {
	Retryable() bool
	RetryAfter() time.Duration
	RateLimited() bool
} = (*gemini.Error)(nil)

const testKey = "AIza-test-0123456789"

func newServer(t *testing.T) *geminitest.Server {
	t.Helper()
	s := geminitest.NewServer(geminitest.Config{APIKey: testKey})
	t.Cleanup(s.Close)
	return s
}

func newEmbedder(t *testing.T, s *geminitest.Server, o gemini.Options) *gemini.Embedder {
	t.Helper()
	o.APIKey, o.BaseURL = testKey, s.URL
	e, err := gemini.NewEmbedder(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func asError(t *testing.T, err error) *gemini.Error {
	t.Helper()
	var e *gemini.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *gemini.Error", err, err)
	}
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("fragment %d concerning area %d", i, i%6)
	}
	return out
}

func TestNewValidates(t *testing.T) {
	for _, o := range []gemini.Options{{}, {APIKey: "k", BaseURL: "nope"}, {APIKey: "k", Dimensions: -5}} {
		if _, err := gemini.NewEmbedder(o); !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("NewEmbedder(%v) = %v", o, err)
		}
	}
	if s := fmt.Sprintf("%v|%#v", gemini.Options{APIKey: testKey}, gemini.Options{APIKey: testKey}); strings.Contains(s, testKey) {
		t.Errorf("key printed: %s", s)
	}
	e, _ := gemini.NewEmbedder(gemini.Options{APIKey: "k", Model: "models/text-embedding-004", Dimensions: 768})
	if e.Name() != "gemini:text-embedding-004@768" {
		t.Errorf("Name %q", e.Name())
	}
}

func TestEmbedWireAndBatches(t *testing.T) {
	s := newServer(t)
	e := newEmbedder(t, s, gemini.Options{Dimensions: 768})
	in := texts(250)
	vecs, err := e.Embed(context.Background(), in, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), in[:2], driver.InputQuery); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Batches != 4 || st.Texts != 252 {
		t.Errorf("stats %+v, want 100+100+50 and the query batch", st)
	}
	f := float32(math.Sqrt(768.0 / 3072))
	for i, v := range vecs {
		if w := geminitest.Vector(in[i], 768); len(v) != 768 || math.Abs(float64(v[3]-w[3]*f)) > 1e-6 {
			t.Fatalf("vector %d differs from the fake's", i)
		}
	}
	reqs := s.Requests()
	for i, want := range map[int]string{0: "RETRIEVAL_DOCUMENT", 3: "RETRIEVAL_QUERY"} {
		var body struct {
			Requests []map[string]any `json:"requests"`
		}
		json.Unmarshal(reqs[i].Body, &body)
		r0 := body.Requests[0]
		if reqs[i].Path != "/v1beta/models/gemini-embedding-001:batchEmbedContents" || reqs[i].Header.Get("x-goog-api-key") != testKey ||
			r0["taskType"] != want || r0["model"] != "models/gemini-embedding-001" || r0["outputDimensionality"] != 768.0 {
			t.Errorf("request %d to %s: %s", i, reqs[i].Path, reqs[i].Body[:200])
		}
	}
}

func TestNormalize(t *testing.T) {
	s := newServer(t)
	e := newEmbedder(t, s, gemini.Options{Dimensions: 256, Normalize: true})
	vecs, err := e.Embed(context.Background(), texts(3), driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has squared norm %v", i, n)
		}
	}
}

// The API cuts long input silently; the client must refuse it first.
func TestTooLongNeverReachesTheTruncatingAPI(t *testing.T) {
	s := newServer(t)
	e := newEmbedder(t, s, gemini.Options{})
	long := strings.Repeat("palabra ", 1500) // ~3000 tokens
	_, err := e.Embed(context.Background(), []string{"corto", long}, driver.InputDocument)
	if !errors.Is(err, driver.ErrPromptTooLarge) || asError(t, err).Index != 1 || !strings.Contains(err.Error(), "text 1") {
		t.Fatalf("err = %v", err)
	}
	if st := s.Stats(); st.Batches != 0 || st.Truncated != 0 {
		t.Errorf("stats %+v: a long text reached the API", st)
	}
}

func TestEmbedBadResponses(t *testing.T) {
	cases := []struct {
		kind  geminitest.FaultKind
		want  string
		retry bool
	}{
		{geminitest.FaultWrongCount, "got 1 vectors for 2 texts", false},
		{geminitest.FaultWrongDim, "vector 0 has dimension 3071, want 3072 as earlier batches", false},
		{geminitest.FaultNaN, "malformed", true},
		{geminitest.FaultEmpty, "got no vectors for 2 texts", false},
		{geminitest.FaultTruncated, "malformed or truncated", true},
		{geminitest.FaultZero, "vector 0 is all zeros", false},
	}
	for _, tc := range cases {
		s := newServer(t)
		e := newEmbedder(t, s, gemini.Options{BatchSize: 2})
		s.Inject(geminitest.Fault{Kind: tc.kind, Skip: 1})
		_, err := e.Embed(context.Background(), texts(4), driver.InputDocument)
		prefix := "gemini gemini-embedding-001: embed batch 2 (texts 2-3): bad_response: "
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
	e := newEmbedder(t, s, gemini.Options{})
	ctx := context.Background()
	s.Inject(geminitest.Fault{Kind: geminitest.FaultRateLimit, RetryDelay: 37 * time.Second})
	_, err := e.Embed(ctx, texts(1), driver.InputQuery)
	ge := asError(t, err)
	if !ge.Retryable() || !ge.RateLimited() || ge.RetryAfter() != 37*time.Second || ge.Status != "RESOURCE_EXHAUSTED" {
		t.Errorf("429: %v (after %v)", err, ge.RetryAfter())
	}
	s.Inject(geminitest.Fault{Kind: geminitest.FaultUnavailable})
	if _, err := e.Embed(ctx, texts(1), driver.InputQuery); !asError(t, err).Retryable() || asError(t, err).Status != "UNAVAILABLE" {
		t.Errorf("503: %v", err)
	}
	bad, _ := gemini.NewEmbedder(gemini.Options{APIKey: "wrong", BaseURL: s.URL})
	_, err = bad.Embed(ctx, texts(1), driver.InputQuery)
	if ge := asError(t, err); ge.Retryable() || ge.StatusCode != 400 || !strings.Contains(err.Error(), "API key not valid") {
		t.Errorf("bad key: %v", err)
	}
	unknown, _ := gemini.NewEmbedder(gemini.Options{APIKey: testKey, BaseURL: s.URL, Model: "no-such-model"})
	if _, err := unknown.Embed(ctx, texts(1), driver.InputQuery); !errors.Is(err, driver.ErrModelNotFound) {
		t.Errorf("unknown model: %v", err)
	}
}
