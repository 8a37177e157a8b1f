package fusion

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// twoLists returns two 150-long arms sharing about a third of their IDs,
// the cookbook's candidate depth.
func twoLists() (List, List) {
	r := rand.New(rand.NewPCG(3, 4))
	ids := make([]string, 400)
	for i := range ids {
		ids[i] = "doc" + strconv.Itoa(i/7) + "#" + strconv.Itoa(i%7)
	}
	p := r.Perm(len(ids))
	a := List{Weight: 0.8, IDs: make([]string, 150), Scores: make([]float64, 150)}
	b := List{Weight: 0.2, IDs: make([]string, 150), Scores: make([]float64, 150)}
	for i := range 150 {
		a.IDs[i], a.Scores[i] = ids[p[i]], 1-float64(i)/300
		b.IDs[i], b.Scores[i] = ids[p[i+100]], 30-float64(i)/10
	}
	return a, b
}

func BenchmarkFuse(b *testing.B) {
	x, y := twoLists()
	methods := []struct {
		name string
		f    func(...List) ([]Result, error)
	}{
		{"rrf", func(l ...List) ([]Result, error) { return RRF(DefaultRRFK, l...) }},
		{"cookbook", Cookbook},
		{"cookbook-keyed", func(l ...List) ([]Result, error) { return CookbookKeyed(SplitChunkID("#"), l...) }},
		{"minmax", MinMax},
		{"relative", RelativeScore},
	}
	for _, m := range methods {
		b.Run("method="+m.name+"/lists=2x150", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.f(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
