package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/openai"
	"github.com/situate/situate/provider/openai/openaitest"
)

func newEmbedder(t *testing.T, s *openaitest.Server, opts openai.EmbedOptions) *openai.Embedder {
	t.Helper()
	opts.BaseURL = s.URL + "/v1"
	if opts.Model == "" {
		opts.Model = "text-embedding-3-small"
	}
	e, err := openai.NewEmbedder(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

type usageLog []driver.Usage

func (u *usageLog) RecordUsage(_ context.Context, x driver.Usage) error {
	*u = append(*u, x)
	return nil
}

func TestEmbedBatchesInOrder(t *testing.T) {
	s := newServer(t, openaitest.Config{APIKey: testKey, EmbedDim: 12})
	var log usageLog
	e := newEmbedder(t, s, openai.EmbedOptions{APIKey: testKey, BatchSize: 2, DocumentPrefix: "passage: ", QueryPrefix: "query: ", Usage: &log})
	texts := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	vecs, err := e.Embed(context.Background(), texts, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) || len(s.Requests()) != 3 || len(log) != 3 {
		t.Fatalf("%d vectors, %d requests, %d usage records; want 5, 3, 3", len(vecs), len(s.Requests()), len(log))
	}
	for i, v := range vecs {
		want := openaitest.Vector("passage: "+texts[i], 12)
		for j := range v {
			if math.Abs(float64(v[j])-want[j]) > 1e-6 {
				t.Fatalf("vector %d differs from the server's for %q", i, texts[i])
			}
		}
	}
	var body map[string]any
	_ = json.Unmarshal(s.Requests()[0].Body, &body)
	if body["model"] != "text-embedding-3-small" || body["encoding_format"] != "float" {
		t.Errorf("body = %v", body)
	}
	if log[0].Operation != "embed" || log[0].InputTokens == 0 {
		t.Errorf("usage = %+v", log[0])
	}
	q, err := e.Embed(context.Background(), []string{"alpha"}, driver.InputQuery)
	if err != nil {
		t.Fatal(err)
	}
	if want := openaitest.Vector("query: alpha", 12); math.Abs(float64(q[0][0])-want[0]) > 1e-6 {
		t.Error("query prefix not applied")
	}
}

func TestEmbedDimensions(t *testing.T) {
	s := newServer(t, openaitest.Config{APIKey: testKey, EmbedDim: 12})
	e := newEmbedder(t, s, openai.EmbedOptions{APIKey: testKey, Dimensions: 4})
	vecs, err := e.Embed(context.Background(), []string{"a", "b"}, driver.InputDocument)
	if err != nil || len(vecs[0]) != 4 {
		t.Fatalf("Dimensions 4: %v, %v", vecs, err)
	}
}

func TestEmbedRejectsBadAnswers(t *testing.T) {
	cases := []struct {
		name  string
		fault openaitest.FaultKind
		want  string
	}{
		{"nan", openaitest.FaultNaN, "not a finite number"},
		{"count", openaitest.FaultWrongCount, "2 vectors for 3 texts"},
		{"500", openaitest.FaultServerError, "status 500"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, openaitest.Config{APIKey: testKey})
			e := newEmbedder(t, s, openai.EmbedOptions{APIKey: testKey, BatchSize: 3})
			_, _ = e.Embed(context.Background(), []string{"ok"}, driver.InputDocument)
			s.Inject(openaitest.Fault{Kind: tc.fault, Path: "/embeddings"})
			_, err := e.Embed(context.Background(), []string{"x1", "x2", "x3", "x4"}, driver.InputDocument)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "batch 1 (texts 0-2)") ||
				!strings.Contains(err.Error(), "generic text-embedding-3-small: embed") {
				t.Fatalf("err = %v, want it to name provider, model, batch and %q", err, tc.want)
			}
		})
	}
}

func TestEmbedInputChecks(t *testing.T) {
	s := newServer(t, openaitest.Config{APIKey: testKey, ContextWindow: 100})
	e := newEmbedder(t, s, openai.EmbedOptions{APIKey: testKey, MaxInputTokens: 50})
	_, err := e.Embed(context.Background(), []string{"fine", strings.Repeat("long ", 40)}, driver.InputDocument)
	if !errors.Is(err, driver.ErrPromptTooLarge) || !strings.Contains(err.Error(), "texts[1]") {
		t.Errorf("too long: %v", err)
	}
	if _, err := e.Embed(context.Background(), []string{"a", ""}, driver.InputDocument); !errors.Is(err, driver.ErrInvalid) || !strings.Contains(err.Error(), "texts[1]") {
		t.Errorf("empty text: %v", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent for rejected input", n)
	}
	// Without MaxInputTokens the server's context-length answer is mapped.
	e = newEmbedder(t, s, openai.EmbedOptions{APIKey: testKey})
	if _, err := e.Embed(context.Background(), []string{strings.Repeat("long ", 100)}, driver.InputDocument); !errors.Is(err, driver.ErrPromptTooLarge) {
		t.Errorf("server context error: %v", err)
	}
	for _, o := range []openai.EmbedOptions{{Model: "m", BaseURL: "http://h/v1", BatchSize: 5000}, {Model: "m", BaseURL: "http://h/v1", Dimensions: -1}} {
		if _, err := openai.NewEmbedder(o); !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("NewEmbedder(%+v) = %v", o, err)
		}
	}
}

func TestRerank(t *testing.T) {
	s := newServer(t, openaitest.Config{})
	r, err := openai.NewReranker(openai.RerankOptions{BaseURL: s.URL + "/v1", Model: "bge-reranker-v2-m3"})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"nothing here", "revenue grew", "revenue and costs grew"}
	scores, err := r.Rerank(context.Background(), "revenue costs", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != 3 || scores[0] != 0 || scores[1] != 0.5 || scores[2] != 1 {
		t.Errorf("scores = %v, want [0 0.5 1] in input order", scores)
	}
	var body map[string]any
	_ = json.Unmarshal(s.Requests()[0].Body, &body)
	if body["query"] != "revenue costs" || body["top_n"] != 3.0 || body["model"] != "bge-reranker-v2-m3" {
		t.Errorf("body = %v", body)
	}
	s.Inject(openaitest.Fault{Kind: openaitest.FaultWrongCount, Path: "/rerank"})
	if _, err := r.Rerank(context.Background(), "revenue", texts); err == nil || !strings.Contains(err.Error(), "2 results for 3 texts") {
		t.Errorf("short answer: %v", err)
	}
	if _, err := r.Rerank(context.Background(), "", texts); !errors.Is(err, driver.ErrInvalid) {
		t.Errorf("empty query: %v", err)
	}
}
