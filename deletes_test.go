package situate_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate"
)

// TestSearchBesideDeletesLogsNoWarning: searches running while documents
// are deleted meet hits whose document went away after their snapshot;
// that is expected, so nothing is logged above debug level.
func TestSearchBesideDeletesLogsNoWarning(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	var logs logBuffer
	opts := situate.DefaultOptions()
	opts.Logger = logs.logger()
	opts.ChunkCacheBytes = 0 // every hit reads the store
	eng := ts.open(opts)
	const n = 60
	for i := range n {
		if _, err := eng.Put(ctx, doc(fmt.Sprintf("d%02d", i), fmt.Sprintf("harbour ledger entry %d of the tide tables", i))); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				if _, err := eng.Search(ctx, situate.Query{Text: "harbour ledger tide", K: 20}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range n {
			if err := eng.Delete(ctx, fmt.Sprintf("d%02d", i)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "level=WARN") {
			t.Errorf("warning under concurrent deletes: %s", l)
		}
	}
}
