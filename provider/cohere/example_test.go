package cohere_test

import (
	"context"
	"fmt"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/cohere"
	"github.com/situate/situate/provider/cohere/coheretest"
)

// 200 texts go in batches of 96. The fake stands in for api.cohere.com.
func Example() {
	srv := coheretest.NewServer(coheretest.Config{})
	defer srv.Close()
	e, err := cohere.NewEmbedder(cohere.Options{APIKey: "co-example", BaseURL: srv.URL, Model: "embed-multilingual-v3.0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	texts := make([]string, 200)
	for i := range texts {
		texts[i] = fmt.Sprintf("Abschnitt %d", i)
	}
	vecs, err := e.Embed(context.Background(), texts, driver.InputDocument)
	fmt.Println(e.Name(), len(vecs), len(vecs[0]), srv.Stats().Embeds, err)
	// Output: cohere:embed-multilingual-v3.0 200 1024 3 <nil>
}
