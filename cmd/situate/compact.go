package main

import (
	"context"
	"fmt"
	"time"

	"github.com/situate/situate/report"
)

func runCompact(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("compact", "",
		"Merge each BM25 index of the store into one segment file, leaving out removed documents. Searches return\n"+
			"the same results with less work: each query term is looked up once per index, not once per segment.\n"+
			"'situate index' does this after a run that wrote a tenth or more of the chunks, and serve and worker\n"+
			"once their jobs have; run it after many small index runs or on a store indexed by an older situate.\n"+
			"It rewrites the indexes: seconds for 100k chunks.")
	c.flags(fs, "store", "store-url", "config")
	rest, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("compact takes no arguments, got %q", rest[0])
	}
	eng, store, err := openEngine(ctx, e, c, false)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()
	before := eng.IndexSegments()
	if len(before) == 0 {
		fmt.Fprintln(e.stdout, "nothing to compact: the store has no BM25 index of its own (--index names a backend)")
		return nil
	}
	start := time.Now()
	if err := eng.CompactIndexes(); err != nil {
		return err
	}
	after := eng.IndexSegments()
	nb, na := 0, 0
	for arm, n := range before {
		nb += n
		na += after[arm]
	}
	fmt.Fprintf(e.stdout, "compacted %d %s in %s: %d segment files before, %d after; store %s\n",
		len(before), report.Plural(len(before), "index", "indexes"), time.Since(start).Round(time.Millisecond), nb, na, c.storeDir(e))
	return nil
}
