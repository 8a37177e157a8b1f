package tei_test

import (
	"context"
	"fmt"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/tei"
	"github.com/situate/situate/provider/tei/teitest"
)

// The server's batch limit is learned from /info; 70 texts go in 3
// requests of at most 32. The fake stands in for a TEI container.
func Example() {
	srv := teitest.NewServer(teitest.Config{})
	defer srv.Close()
	ctx := context.Background()
	e, err := tei.NewEmbedder(ctx, tei.Options{BaseURL: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	texts := make([]string, 70)
	for i := range texts {
		texts[i] = fmt.Sprintf("chunk %d", i)
	}
	vecs, err := e.Embed(ctx, texts, driver.InputDocument)
	fmt.Println(e.Name(), e.BatchSize(), len(vecs), len(vecs[0]), srv.Stats().Embeds, err)
	// Output: tei:BAAI/bge-small-en-v1.5 32 70 384 3 <nil>
}
