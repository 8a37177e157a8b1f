package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/wiring"
)

// runWorker is `situate worker`: it runs the document jobs of a shared
// PostgreSQL store (queued by `situate serve` instances or `situate index
// --queue`) until it is stopped. Each job is one document, contextualized
// whole by this process (its chunks' calls go to one inference replica, so
// the prefix cache is reused) and committed to the store; the servers'
// indexes pick it up on their next sync. A worker that dies leaves its
// jobs claimed until their lease runs out; another worker then runs them
// again, and the calls already made come from the store's context cache.
func runWorker(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("worker", "", "Run the indexing jobs of a shared PostgreSQL store (--store-url): contextualize each queued\n"+
		"document and commit it to the store. Run any number of workers on any number of machines;\n"+
		"a job whose worker dies is run again by another once its lease runs out.")
	c.flags(fs, "store-url", "store", "config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer",
		"context-weight", "recipe", "max-file-size")
	c.flags(fs, wiring.DenseSettings...)
	c.flags(fs, wiring.LLMSettings...)
	c.flags(fs, wiring.IndexSettings...)
	groupFlags(fs, "Index backend (--index weaviate): the worker writes the index entries too", wiring.IndexSettings...)
	jobs := fs.Int("jobs", 2, "documents contextualized at once")
	lease := fs.Duration("lease", 30*time.Second, "how long a claimed job stays claimed without news from this worker (it renews it every second); a killed worker's jobs run elsewhere after it")
	poll := fs.Duration("poll", time.Second, "how often an idle worker looks for jobs")
	tenant := fs.String("tenant", "", "run the jobs of this tenant of a serve with keys (its schema situate_tenant_NAME); default: the store's own jobs")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if _, err := c.parse(e, fs, args); err != nil {
		return err
	}
	url := c.str("store-url")
	if url == "" {
		return usagef("situate worker needs --store-url postgres://... (the store the servers share)")
	}
	if *jobs < 1 {
		return usagef("--jobs %d: want at least 1", *jobs)
	}
	if *lease < 2*situate.JobProgressInterval {
		return usagef("--lease %s: want at least %s (the lease is renewed every %s)", *lease, 2*situate.JobProgressInterval, situate.JobProgressInterval)
	}
	if *poll <= 0 {
		return usagef("--poll %s: must be positive", *poll)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usagef("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	maxFile, err := c.int("max-file-size")
	if err != nil {
		return err
	}

	store, err := openSharedStore(ctx, c, *tenant)
	if err != nil {
		return err
	}
	defer store.Close()
	eng, err := wiring.OpenWorker(ctx, c, e.wiring(), store, *tenant, log)
	if err != nil {
		return err
	}
	defer eng.Close()
	parse, closeParser := uploadParser(maxFile)
	defer closeParser()

	var done, failed, calls atomic.Int64
	r := &situate.JobRunner{Engine: eng, Jobs: store, Parse: parse, Lease: *lease, Poll: *poll, Logger: log,
		Finished: func(j driver.Job, _ time.Duration) {
			if j.State == situate.JobDone {
				done.Add(1)
			} else {
				failed.Add(1)
			}
			calls.Add(int64(j.Calls))
		}}
	name := "local"
	if *tenant != "" {
		name = *tenant
	}
	fmt.Fprintf(e.stderr, "situate worker: %d jobs at once, store postgres %s (tenant %s), index %s, lease %s\n", *jobs, store.Where(), name, c.str("index"), *lease)
	start := time.Now()
	var wg sync.WaitGroup
	for range *jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Run(ctx)
		}()
	}
	wg.Wait()
	fmt.Fprintf(e.stderr, "situate worker: stopped after %s: %d jobs done, %d failed, %d LLM calls\n",
		time.Since(start).Round(time.Millisecond), done.Load(), failed.Load(), calls.Load())
	return nil
}
