package rank

import (
	"fmt"
	"sort"
)

// Evidence is a document-level list for Fuse: its best score per document
// lifts that document's chunks by Weight (DocumentEvidence).
type Evidence struct {
	Hits   []Hit
	Weight float64
}

// Fuse runs the lexical recipe over the arms' lists and returns its best k
// hits in order: Combine of chunkLists, then DocumentEvidence of each
// evidence list in turn, then DocumentBlend when blend > 0, then TestPrior
// when penalty > 0. It returns exactly the first k hits of those steps run
// one by one, but orders only the end: each step's order depends on
// nothing but the scores and IDs, and ordering hundreds of candidates at
// every step, comparing IDs on tied scores, cost a server a tenth of a
// search.
func Fuse(chunkLists [][]Hit, weights []float64, evidence []Evidence, blend, penalty float64, k int) ([]Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("rank fuse: k: must be >= 0, got %d: %w", k, ErrInvalid)
	}
	sc := scratchPool.Get().(*scratch)
	defer func() {
		sc.reset()
		scratchPool.Put(sc)
	}()
	hits, err := combine(sc, chunkLists, weights)
	if err != nil {
		return nil, err
	}
	for _, ev := range evidence {
		if hits, err = documentEvidence(sc, hits, ev.Hits, ev.Weight, false); err != nil {
			return nil, err
		}
	}
	if blend > 0 {
		if hits, err = documentBlend(sc, hits, blend); err != nil {
			return nil, err
		}
	}
	if penalty > 0 {
		if hits, err = testPrior(hits, penalty); err != nil {
			return nil, err
		}
	}
	// The hits are the pool's: the caller gets a copy of the best k.
	return cloneHits(Top(hits, k)), nil
}

// better says whether a comes before b in this package's results.
func better(a, b *Hit) bool { return compareHits(a, b) < 0 }

// Top returns the first k hits in the order of this package's results
// (score descending, then ID ascending), reordering hits; IDs must be
// unique. With k small beside len(hits) it keeps the best k as it goes
// instead of ordering all of them.
func Top(hits []Hit, k int) []Hit {
	k = max(0, min(k, len(hits)))
	if k == 0 {
		return hits[:0]
	}
	if 4*k >= len(hits) {
		sortHits(hits)
		return hits[:k]
	}
	top := hits[:k]
	sortHits(top)
	for i := k; i < len(hits); i++ {
		if !better(&hits[i], &top[k-1]) {
			continue
		}
		h := hits[i]
		j := sort.Search(k, func(j int) bool { return better(&h, &top[j]) })
		// hits stays a permutation: the hit pushed out of the top k
		// takes h's place.
		hits[i] = top[k-1]
		copy(top[j+1:], top[j:k-1])
		top[j] = h
	}
	return top
}
