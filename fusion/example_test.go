package fusion_test

import (
	"fmt"

	"github.com/situate/situate/fusion"
)

func Example() {
	semantic := fusion.List{Weight: fusion.CookbookSemanticWeight, IDs: []string{"a", "b", "c", "d"}}
	bm25 := fusion.List{Weight: fusion.CookbookBM25Weight, IDs: []string{"e", "c", "a"}}

	rrf, _ := fusion.RRF(fusion.DefaultRRFK, semantic, bm25)
	for _, r := range rrf {
		fmt.Printf("rrf      %s %.5f ranks=%v\n", r.ID, r.Score, r.Ranks)
	}
	cb, _ := fusion.Cookbook(semantic, bm25)
	for _, r := range cb {
		fmt.Printf("cookbook %s %.5f ranks=%v\n", r.ID, r.Score, r.Ranks)
	}
	// Output:
	// rrf      a 0.01629 ranks=[1 3]
	// rrf      c 0.01592 ranks=[3 2]
	// rrf      b 0.01290 ranks=[2 0]
	// rrf      d 0.01250 ranks=[4 0]
	// rrf      e 0.00328 ranks=[0 1]
	// cookbook a 0.86667 ranks=[1 3]
	// cookbook b 0.40000 ranks=[2 0]
	// cookbook c 0.36667 ranks=[3 2]
	// cookbook e 0.20000 ranks=[0 1]
	// cookbook d 0.20000 ranks=[4 0]
}

func ExampleRelativeScore() {
	bm25 := fusion.List{Weight: 0.25, IDs: []string{"x", "y", "z"}, Scores: []float64{12, 7, 2}}
	vec := fusion.List{Weight: 0.75, IDs: []string{"z", "x"}, Scores: []float64{0.83, 0.81}}
	res, err := fusion.RelativeScore(bm25, vec)
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Printf("%s %.3f\n", r.ID, r.Score)
	}
	// Output:
	// z 0.750
	// x 0.250
	// y 0.125
}
