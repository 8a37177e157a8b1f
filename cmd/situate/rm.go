package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
)

func runRemove(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("rm", "DOC...", "Remove documents (by id) with their chunks and contexts from the store and the index.")
	c.flags(fs, "store", "store-url", "config")
	ids, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return usagef("no DOC id given")
	}
	eng, store, err := openEngine(ctx, e, c, false)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()
	failed := false
	for _, id := range ids {
		rec, err := documentArg(eng, id)
		if errors.Is(err, situate.ErrNotFound) {
			fmt.Fprintf(e.stderr, "rm %s: not indexed\n", ingest.QuoteName(id))
			failed = true
			continue
		}
		if err != nil {
			return err
		}
		if err := eng.Delete(ctx, rec.ID); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "removed %s\n", ingest.QuoteName(rec.ID))
	}
	if failed {
		return errAlreadyReported
	}
	return nil
}
