package situate

import (
	"context"
	"testing"

	"github.com/situate/situate/vector"
)

type nopReranker struct{}

func (nopReranker) Name() string { return "test:nop" }
func (nopReranker) Rerank(_ context.Context, _ string, texts []string) ([]float64, error) {
	return make([]float64, len(texts)), nil
}

// TestVectorBoundDepthFollowsRerank: without a reranker the first pass
// protects the default depth; with one, every candidate the reranker sees.
func TestVectorBoundDepthFollowsRerank(t *testing.T) {
	o := DefaultOptions()
	e := &Engine{opts: o}
	if got := e.vectorOptions(8).BoundDepth; got != 0 {
		t.Errorf("no reranker: BoundDepth %d, want 0 (vector.DefaultBoundDepth)", got)
	}
	o.Reranker = nopReranker{}
	o.RerankCandidates = 150
	e = &Engine{opts: o}
	if got := e.vectorOptions(8).BoundDepth; got != 150 {
		t.Errorf("reranker over 150: BoundDepth %d, want 150", got)
	}
	o.RerankCandidates = 5
	e = &Engine{opts: o}
	if got := e.vectorOptions(8).BoundDepth; got != vector.DefaultBoundDepth {
		t.Errorf("reranker over 5: BoundDepth %d, want %d", got, vector.DefaultBoundDepth)
	}
}
