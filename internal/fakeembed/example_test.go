package fakeembed_test

import (
	"fmt"

	"github.com/situate/situate/internal/fakeembed"
)

// Texts sharing words are similar; the reranker scores query-term overlap.
func Example() {
	a := fakeembed.Vector("the cat sat on the mat", 64)
	b := fakeembed.Vector("a cat on a mat", 64)
	var dot float32
	for i := range a {
		dot += a[i] * b[i]
	}
	fmt.Printf("%.2f %v %.2f %d\n", dot, fakeembed.Terms("Der Hund, 北京!"),
		fakeembed.Score("cat dog fish", "a cat and a dog"), fakeembed.Tokens("北京 is big"))
	// Output:
	// 0.82 [hund 北 京 北京] 0.67 4
}
