package vector_test

import (
	"fmt"

	"github.com/situate/situate/vector"
)

func Example() {
	ix, err := vector.New(vector.Options{Dim: 3, Metric: vector.MetricCosine})
	if err != nil {
		panic(err)
	}
	// One group per document: Replace swaps the document's chunks at once.
	ix.Replace("guide.md", []vector.Item{
		{ID: "guide.md#0", Vector: []float32{1, 0, 0}},
		{ID: "guide.md#1", Vector: []float32{0.6, 0.8, 0}},
	})
	ix.Replace("faq.md", []vector.Item{
		{ID: "faq.md#0", Vector: []float32{0, 0, 2}},
	})
	res, _ := ix.Search([]float32{1, 1, 0}, 2, nil)
	for _, r := range res {
		fmt.Printf("%s %s %.4f\n", r.ID, r.Group, r.Score)
	}
	res, _ = ix.Search([]float32{1, 1, 0}, 2, &vector.Filter{Groups: map[string]bool{"faq.md": true}})
	fmt.Println(len(res), res[0].ID)

	_, err = ix.Search([]float32{1, 1}, 2, nil)
	fmt.Println(err)
	// Output:
	// guide.md#1 guide.md 0.9899
	// guide.md#0 guide.md 0.7071
	// 1 faq.md#0
	// vector search: query: dimension 2, index dimension 3
}
