package embedcache_test

import (
	"context"
	"fmt"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/embedcache"
)

// The second call sends only the text not seen before.
func Example() {
	inner := &fakeEmbedder{name: "fake:m", dim: 2}
	e := embedcache.New(inner, newMem())
	ctx := context.Background()
	e.Embed(ctx, []string{"alpha", "beta"}, driver.InputDocument)
	e.Embed(ctx, []string{"beta", "gamma"}, driver.InputDocument)
	hits, sent := e.(*embedcache.Embedder).Stats()
	fmt.Println(hits, sent, inner.calls)
	// Output: 1 3 [[alpha beta] [gamma]]
}
