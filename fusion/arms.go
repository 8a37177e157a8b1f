package fusion

import (
	"fmt"
	"slices"
)

// Kind says how an arm's hits enter the ranking Fuse makes.
type Kind int

const (
	// Chunks: the arm's chunk scores are summed, weighted, with the other
	// chunk arms' (Combine): the lexical ranking.
	Chunks Kind = iota
	// Document: the arm's best score per document lifts, weighted, that
	// document's chunks in the lexical ranking (DocumentEvidence).
	Document
	// Dense: the arm's list is fused with the lexical ranking by the
	// recipe's Method (RRF, Cookbook, MinMax, RelativeScore).
	Dense
)

// Arm is one retrieval arm's answer to a query: its hits (in any order
// for a lexical arm of several, best first otherwise) and how they count.
type Arm struct {
	// Name names the arm in explanations ("bm25", "bm25-code", "dense").
	Name   string
	Kind   Kind
	Weight float64
	Hits   []Hit
	// Ran is false for an arm that sat the query out (the code arm on a
	// Chinese query naming no identifier): it then takes no part at all.
	Ran bool
}

// Recipe is how Fuse turns the arms' lists into one ranking.
type Recipe struct {
	// DocumentWeight lifts every lexical hit by this share of its
	// document's best score (DocumentBlend); 0 disables it.
	DocumentWeight float64
	// TestPenalty lowers the lexical score of every hit whose document
	// IsTest says is a test file by this share (TestPrior); 0 disables it.
	TestPenalty float64
	IsTest      func(doc string) bool
	// Method fuses the lexical ranking with the dense arms: "rrf",
	// "cookbook", "minmax" or "relative". LexicalWeight weights the
	// lexical ranking in it; each dense arm carries its own Weight.
	Method        string
	LexicalWeight float64
	// ChunkKey splits a chunk ID into document and index for Cookbook.
	ChunkKey ChunkKey
}

// Fused is Fuse's ranking.
type Fused struct {
	// Results are the fused ranking, best first; Ranks follow Inputs.
	Results []Result
	// Inputs name the lists Results' Ranks refer to: "lexical" for the
	// lexical ranking, or a dense arm's name.
	Inputs []string
	// Lexical is the lexical ranking (the chunk arms combined, lifted and
	// lowered), best first, k long; nil when no lexical arm ran.
	Lexical []Hit
}

// Fuse ranks the arms' hits of one query, the one place the arms meet:
// the chunk arms' scores are summed (Combine), the document arms lift their
// documents' chunks (DocumentEvidence), every chunk gains a share of its
// document's best score (DocumentBlend) and chunks of test files lose a
// share (TestPrior), giving the lexical ranking's best k; the dense arms
// are then fused with it by r.Method. A single chunk arm with no blend and
// no penalty is the lexical ranking as it is (plain Lucene BM25).
func Fuse(r Recipe, arms []Arm, k int) (Fused, error) {
	var chunkLists [][]Hit
	var weights []float64
	var evidence []evidenceList
	var dense []Arm
	lexical := 0 // lexical arms given, run or not
	for _, a := range arms {
		if a.Kind == Chunks || a.Kind == Document {
			lexical++
		}
		if !a.Ran {
			continue
		}
		switch a.Kind {
		case Chunks:
			chunkLists, weights = append(chunkLists, a.Hits), append(weights, a.Weight)
		case Document:
			evidence = append(evidence, evidenceList{Hits: a.Hits, Weight: a.Weight})
		case Dense:
			dense = append(dense, a)
		default:
			return Fused{}, fmt.Errorf("fusion: arm %q: kind %d: %w", a.Name, a.Kind, ErrInvalid)
		}
	}
	var f Fused
	if lexical > 0 {
		var err error
		if f.Lexical, err = lexicalRanking(r, lexical, chunkLists, weights, evidence, k); err != nil {
			return Fused{}, err
		}
	}
	lists := make([]List, 0, 1+len(dense))
	if lexical > 0 || len(dense) == 0 {
		l := List{Weight: r.LexicalWeight, Min: ptr(0.0)}
		for _, h := range f.Lexical {
			l.IDs, l.Scores = append(l.IDs, h.ID), append(l.Scores, h.Score)
		}
		lists, f.Inputs = append(lists, l), append(f.Inputs, "lexical")
	}
	for _, a := range dense {
		l := List{Weight: a.Weight, Min: ptr(-1.0)}
		for _, h := range a.Hits {
			l.IDs, l.Scores = append(l.IDs, h.ID), append(l.Scores, h.Score)
		}
		lists, f.Inputs = append(lists, l), append(f.Inputs, a.Name)
	}
	if len(lists) == 1 {
		f.Results = single(lists[0])
		return f, nil
	}
	// The dense lists come first, as the methods were measured (EVAL.md):
	// ties fall the same way.
	slices.Reverse(lists)
	slices.Reverse(f.Inputs)
	var err error
	switch r.Method {
	case "cookbook":
		f.Results, err = CookbookKeyed(r.ChunkKey, lists...)
	case "minmax":
		f.Results, err = MinMax(lists...)
	case "relative":
		f.Results, err = RelativeScore(lists...)
	case "rrf", "":
		f.Results, err = RRF(DefaultRRFK, lists...)
	default:
		err = fmt.Errorf("fusion: method %q: must be rrf, cookbook, minmax or relative: %w", r.Method, ErrInvalid)
	}
	return f, err
}

// lexicalRanking is the lexical part of Fuse.
func lexicalRanking(r Recipe, lexicalArms int, chunkLists [][]Hit, weights []float64, evidence []evidenceList, k int) ([]Hit, error) {
	if Plain(r, lexicalArms) {
		if len(chunkLists) == 0 {
			return nil, nil
		}
		// The arm's own order, as plain Lucene BM25 returns it.
		return chunkLists[0][:min(k, len(chunkLists[0]))], nil
	}
	isTest := r.IsTest
	if isTest == nil {
		isTest = func(string) bool { return false }
	}
	return fuseLexical(chunkLists, weights, evidence, r.DocumentWeight, r.TestPenalty, isTest, k)
}

// Plain says whether Fuse takes a lexical arm's list as the lexical
// ranking as it is: one lexical arm, no document blend, no test penalty.
// Such an arm is searched for its best k in order, while arms to be combined
// hand over their best candidates in any order.
func Plain(r Recipe, lexicalArms int) bool {
	return lexicalArms == 1 && r.DocumentWeight == 0 && r.TestPenalty == 0
}

// single turns one list into results without fusing.
func single(l List) []Result {
	out := make([]Result, len(l.IDs))
	for i, id := range l.IDs {
		out[i] = Result{ID: id, Score: l.Scores[i], Ranks: []int{i + 1}}
	}
	return out
}

func ptr[T any](v T) *T { return &v }
