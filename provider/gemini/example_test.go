package gemini_test

import (
	"context"
	"fmt"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/gemini"
	"github.com/situate/situate/provider/gemini/geminitest"
)

// 150 texts go in batches of 100; 768-dimensional vectors are normalized.
// The fake stands in for generativelanguage.googleapis.com.
func Example() {
	srv := geminitest.NewServer(geminitest.Config{})
	defer srv.Close()
	e, err := gemini.NewEmbedder(gemini.Options{APIKey: "AIza-example", BaseURL: srv.URL, Dimensions: 768, Normalize: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = fmt.Sprintf("片段 %d", i)
	}
	vecs, err := e.Embed(context.Background(), texts, driver.InputDocument)
	fmt.Println(e.Name(), len(vecs), len(vecs[0]), srv.Stats().Batches, err)
	// Output: gemini:gemini-embedding-001@768 150 768 2 <nil>
}
