package main

import (
	"context"
	"fmt"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/postgres"
	"github.com/situate/situate/report"
	"github.com/situate/situate/wiring"
)

// openSharedStore opens the PostgreSQL store of --store-url, or the store of
// tenant in it when tenant is set.
func openSharedStore(ctx context.Context, c *config, tenant string) (*postgres.Store, error) {
	url := c.str("store-url")
	var (
		store *postgres.Store
		err   error
	)
	if tenant != "" {
		if err := httpapi.ValidTenant(tenant); err != nil {
			return nil, usagef("--tenant: %v", err)
		}
		store, err = postgres.OpenSchema(ctx, url, wiring.TenantSchema(tenant))
	} else {
		store, err = postgres.Open(ctx, url)
	}
	if err != nil {
		return nil, fmt.Errorf("--store-url (from %s): %w", c.settings["store-url"].origin, err)
	}
	return store, nil
}

// queueIndex is `situate index --queue`: the documents of src are stored
// with a job each in the shared store, for `situate worker` processes; this
// process contextualizes nothing (situate.Engine.Queue).
func queueIndex(ctx context.Context, e *env, c *config, src situate.Source, tenant string, prune, strict, quiet, verbose bool) error {
	if c.str("store-url") == "" {
		return usagef("--queue needs --store-url postgres://... (the store the workers share); without it 'situate index' indexes here")
	}
	store, err := openSharedStore(ctx, c, tenant)
	if err != nil {
		return err
	}
	defer store.Close()
	opts := situate.DefaultOptions()
	opts.Contextualizer = nil
	opts.Logger = warnLogger(e.stderr)
	opts.SharedStore, opts.OpenMode = true, situate.OpenStoreOnly
	eng, err := situate.Open(ctx, "", store, opts)
	if err != nil {
		return err
	}
	defer eng.Close()
	prog := newIndexProgress(e.stderr, quiet, verbose)
	res, err := eng.Queue(ctx, src, store, situate.QueueOptions{Prune: prune, Progress: prog.event})
	prog.done()
	if !quiet {
		fmt.Fprintln(e.stderr, queueSummary(ctx, res, err, store, tenant))
		if s := prog.skipSummary(); s != "" {
			fmt.Fprintln(e.stderr, s)
		}
	}
	if res.PruneWithheld {
		fmt.Fprintln(e.stderr, pruneWithheld)
	}
	if err != nil {
		return err
	}
	if res.Failed > 0 || res.PruneWithheld || (strict && len(res.Skipped)+res.SkippedBefore > 0) {
		return errAlreadyReported
	}
	return nil
}

// queueSummary is the last line of `index --queue`, with the queue's state.
func queueSummary(ctx context.Context, res situate.IndexResult, err error, store *postgres.Store, tenant string) string {
	where := "postgres " + store.Where()
	if tenant != "" {
		where += " (tenant " + tenant + ")"
	}
	counts, cerr := store.JobCounts(ctx)
	if cerr != nil || err != nil {
		counts = nil
	}
	return report.Queue(res, where, counts)
}
