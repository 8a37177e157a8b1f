package situate

import (
	"fmt"
	"testing"
)

// BenchmarkAllowedDocs measures the filter's cost per query: the set of
// admitted documents every arm restricts its scoring to.
func BenchmarkAllowedDocs(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		e := &Engine{docs: map[string]DocumentRecord{}, analyzers: map[string]int{}}
		for i := range n {
			rec := DocumentRecord{ID: fmt.Sprintf("doc-%06d", i), Metadata: map[string]string{"team": []string{"red", "blue"}[i%2]}}
			if i%3 == 0 {
				rec.Access = []string{"alice", "staff"}
			}
			e.setDoc(rec)
		}
		for _, tc := range []struct {
			name string
			f    Filter
		}{
			{"principals", Filter{Principals: []string{"bob"}}},
			{"principals+metadata", Filter{Principals: []string{"staff"}, Where: []Condition{{Key: "team", Op: OpEq, Values: []string{"red"}}}}},
			{"docs=100", Filter{Docs: func() []string {
				var ids []string
				for i := range 100 {
					ids = append(ids, fmt.Sprintf("doc-%06d", i*7))
				}
				return ids
			}()}},
		} {
			// cold: the documents changed since the last query (a writer
			// commits between queries); warm: they did not.
			b.Run(fmt.Sprintf("docs=%d/%s/cold", n, tc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					e.docsGen++
					if _, err := e.allowedDocs(tc.f); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("docs=%d/%s/warm", n, tc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := e.allowedDocs(tc.f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
