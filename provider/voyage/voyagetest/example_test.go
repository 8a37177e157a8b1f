package voyagetest_test

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/situate/situate/provider/voyage/voyagetest"
)

// A fault is used by the first request it matches.
func ExampleServer_Inject() {
	s := voyagetest.NewServer(voyagetest.Config{})
	defer s.Close()
	s.Inject(voyagetest.Fault{Kind: voyagetest.FaultRateLimit})
	for range 2 {
		resp, err := http.Post(s.URL+"/v1/embeddings", "application/json",
			strings.NewReader(`{"input":["hello"],"model":"voyage-3.5","input_type":"query"}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Printf("%d %q\n", resp.StatusCode, resp.Header.Get("retry-after"))
	}
	fmt.Println(s.Stats().Embeds, s.Stats().Faults)
	// Output:
	// 429 "1"
	// 200 ""
	// 2 1
}

// Texts sharing words are similar.
func ExampleVector() {
	a := voyagetest.Vector("the cat sat on the mat", 64)
	b := voyagetest.Vector("a cat on a mat", 64)
	var dot float32
	for i := range a {
		dot += a[i] * b[i]
	}
	fmt.Printf("%.2f %v\n", dot, voyagetest.Terms("Der Hund, 北京!"))
	// Output:
	// 0.82 [hund 北 京 北京]
}
