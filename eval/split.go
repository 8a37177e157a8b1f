package eval

import (
	"hash/fnv"
	"sort"
)

// Split divides queries into two deterministic halves for tuning and
// reporting: queries are ordered by the FNV-1a hash of seed and query id,
// the first ⌊n/2⌋ form tune and the rest report. The result depends only on
// the seed and the set of ids, not on their order; each half keeps the input
// order.
func Split(queries []Query, seed string) (tune, report []Query) {
	type keyed struct {
		h   uint64
		idx int
	}
	ks := make([]keyed, len(queries))
	for i, q := range queries {
		h := fnv.New64a()
		h.Write([]byte(seed))
		h.Write([]byte{0})
		h.Write([]byte(q.ID))
		ks[i] = keyed{h.Sum64(), i}
	}
	sort.Slice(ks, func(a, b int) bool {
		if ks[a].h != ks[b].h {
			return ks[a].h < ks[b].h
		}
		return queries[ks[a].idx].ID < queries[ks[b].idx].ID
	})
	inTune := make([]bool, len(queries))
	for _, k := range ks[:len(ks)/2] {
		inTune[k.idx] = true
	}
	for i, q := range queries {
		if inTune[i] {
			tune = append(tune, q)
		} else {
			report = append(report, q)
		}
	}
	return tune, report
}
