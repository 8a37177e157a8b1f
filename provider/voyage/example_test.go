package voyage_test

import (
	"context"
	"fmt"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/voyage"
	"github.com/situate/situate/provider/voyage/voyagetest"
)

// Embed documents and a query, then rerank. The fake server stands in for
// api.voyageai.com.
func Example() {
	srv := voyagetest.NewServer(voyagetest.Config{})
	defer srv.Close()
	ctx := context.Background()
	e, err := voyage.NewEmbedder(voyage.Options{APIKey: "pa-example", BaseURL: srv.URL, Dimensions: 256})
	if err != nil {
		fmt.Println(err)
		return
	}
	docs := []string{"Paris is the capital of France.", "Revenue grew 3% in Q2."}
	dv, _ := e.Embed(ctx, docs, driver.InputDocument)
	qv, _ := e.Embed(ctx, []string{"capital of France"}, driver.InputQuery)
	fmt.Println(e.Name(), len(dv), len(qv[0]))

	r, _ := voyage.NewReranker(voyage.Options{APIKey: "pa-example", BaseURL: srv.URL})
	scores, _ := r.Rerank(ctx, "capital of France", docs)
	fmt.Println(r.Name(), scores)
	// Output:
	// voyage:voyage-3.5@256 2 256
	// voyage:rerank-2.5 [1 0]
}
