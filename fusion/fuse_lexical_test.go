package fusion

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/situate/situate/rank"
)

// TestFuseEqualsSteps checks that Fuse returns exactly the first k hits of
// its steps run one by one, each ordering its result, on random lists with
// tied scores, test files and shared documents.
func TestFuseEqualsSteps(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	list := func(n int) []Hit {
		var out []Hit
		seen := map[string]bool{}
		for range n {
			doc := fmt.Sprintf("pkg/f%d.go", rng.Intn(20))
			if rng.Intn(4) == 0 {
				doc = fmt.Sprintf("pkg/f%d_test.go", rng.Intn(5))
			}
			id := fmt.Sprintf("%s#%d", doc, rng.Intn(8))
			if seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, Hit{ID: id, Doc: doc, Score: float64(rng.Intn(6)) / 2})
		}
		return out
	}
	for c := range 2000 {
		lists := [][]Hit{list(rng.Intn(60)), list(rng.Intn(60))}
		weights := []float64{1, float64(rng.Intn(3)) / 2}
		var evidence []evidenceList
		for range rng.Intn(3) {
			evidence = append(evidence, evidenceList{Hits: list(rng.Intn(40)), Weight: float64(rng.Intn(3)) / 4})
		}
		blend := float64(rng.Intn(3)) / 2
		penalty := float64(rng.Intn(3)) / 4
		k := rng.Intn(80)

		want, err := Combine(lists, weights)
		for _, ev := range evidence {
			if err == nil {
				want, err = DocumentEvidence(want, ev.Hits, ev.Weight)
			}
		}
		if err == nil && blend > 0 {
			want, err = DocumentBlend(want, blend)
		}
		if err == nil && penalty > 0 {
			want, err = TestPrior(want, penalty, rank.IsTestFile)
		}
		if err != nil {
			t.Fatal(err)
		}
		want = want[:min(k, len(want))]
		got, err := fuseLexical(lists, weights, evidence, blend, penalty, rank.IsTestFile, k)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("case %d (k %d, %d evidence lists, blend %g, penalty %g):\nFuse  %v\nsteps %v", c, k, len(evidence), blend, penalty, got, want)
		}
	}
	if _, err := fuseLexical(nil, nil, nil, 0, 0, rank.IsTestFile, -1); err == nil {
		t.Error("Fuse with k -1: no error")
	}
}
