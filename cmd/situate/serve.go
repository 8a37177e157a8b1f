package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/postgres"
	"github.com/situate/situate/wiring"
)

// tenantsDir holds one store per tenant (wiring.TenantsDir).
const tenantsDir = wiring.TenantsDir

// serveMounts adds handlers (MCP, the web page) to a server; each front
// end's file appends its own.
var serveMounts []func(ctx context.Context, e *env, c *config) ([]httpapi.Mount, error)

func runServe(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("serve", "", "Serve the JSON API (/v1), metrics and health checks over HTTP.\n"+
		"On a loopback address without keys it serves the store as one local tenant, unauthenticated;\n"+
		"any other address needs keys (situate keys create). With keys each tenant has its own store in STORE/tenants/NAME.")
	c.flags(fs, "store", "store-url", "config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer", "bm25-k1", "bm25-b",
		"context-weight", "compound-weight", "recipe", "parallel", "max-file-size")
	c.flags(fs, wiring.DenseSettings...)
	c.flags(fs, wiring.IndexSettings...)
	c.flags(fs, wiring.LLMSettings...)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	workers := fs.Int("workers", httpapi.DefaultWorkers, "indexing jobs run at once per tenant (0 with --store-url: none, 'situate worker' processes run them)")
	rate := fs.Float64("rate-limit", 0, "requests per second per key (0: unlimited)")
	burst := fs.Int("rate-burst", 0, "burst size of the per-key rate limit (default: the rate)")
	maxUpload := fs.Int64("max-upload", httpapi.DefaultMaxUploadBytes, "largest file upload in bytes")
	maxBody := fs.Int64("max-body", httpapi.DefaultMaxBodyBytes, "largest JSON body in bytes (also the largest text upserted as JSON)")
	timeout := fs.Duration("request-timeout", httpapi.DefaultRequestTimeout, "time limit of one API request")
	maxSearches := fs.Int("max-searches", 0, "BM25 searches run at once; the others wait their turn in arrival order (0: the number of processors, -1: no limit; searches with an embedder or a reranker do not queue)")
	queueTimeout := fs.Duration("search-queue-timeout", httpapi.DefaultSearchQueueTimeout, "how long a search waits for its turn before it is answered 503 overloaded")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	chunkCacheMiB := fs.Int64("chunk-cache", situate.DefaultChunkCacheBytes>>20, "MiB of each tenant's memory that keeps stored chunks, filled from the store when the tenant opens and then with hits (0: off); a hit outside it is read from the store")
	prof := profileFlags(fs)
	if _, err := c.parse(e, fs, args); err != nil {
		return err
	}
	if err := prof.start(); err != nil {
		return err
	}
	defer func() {
		if perr := prof.stop(); perr != nil {
			fmt.Fprintln(e.stderr, "situate serve:", perr)
		}
	}()
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usagef("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	maxFile, err := c.int("max-file-size")
	if err != nil {
		return err
	}

	root, dir, shared, err := wiring.OpenStore(ctx, c, e.wiring(), true)
	if err != nil {
		return err
	}
	defer root.Close()
	keys, err := root.Keys(ctx)
	if err != nil {
		return err
	}
	var tenants []string
	seen := map[string]bool{}
	for _, k := range keys {
		if k.RevokedAt.IsZero() && !seen[k.Tenant] {
			seen[k.Tenant] = true
			tenants = append(tenants, k.Tenant)
		}
	}
	authenticated := len(tenants) > 0
	if !authenticated && !loopback(*addr) {
		return usagef("--addr %s is not a loopback address and the store has no API keys: create one with 'situate keys create --tenant NAME --admin' (or serve on 127.0.0.1)", *addr)
	}

	parse, closeParser := uploadParser(maxFile)
	defer closeParser()

	open := func(ctx context.Context, name string) (*httpapi.Tenant, error) {
		if !authenticated {
			name = "" // the one local tenant is the store itself
		}
		te := *e // each tenant's own run state (its LLM usage tally)
		eng, store, err := wiring.OpenTenant(ctx, c, te.wiring(), root, dir, shared, name,
			func(o *situate.Options) { o.ChunkCacheBytes = *chunkCacheMiB << 20 }, log)
		if err != nil {
			return nil, err
		}
		return &httpapi.Tenant{Engine: eng, Jobs: store, Close: func() error {
			err := eng.Close()
			if store != root {
				err = errors.Join(err, store.Close())
			}
			return err
		}}, nil
	}

	var mounts []httpapi.Mount
	for _, m := range serveMounts {
		ms, err := m(ctx, e, c)
		if err != nil {
			return err
		}
		mounts = append(mounts, ms...)
	}
	switch {
	case *workers < 0:
		return usagef("--workers %d: must be >= 0", *workers)
	case *workers == 0 && !shared:
		return usagef("--workers 0: only with --store-url, where 'situate worker' processes run the jobs")
	case *workers == 0:
		*workers = httpapi.NoWorkers
	}
	switch {
	case *maxSearches < -1:
		return usagef("--max-searches %d: want -1 (no limit), 0 (the number of processors) or more", *maxSearches)
	case *queueTimeout <= 0:
		return usagef("--search-queue-timeout %s: must be > 0", *queueTimeout)
	case *chunkCacheMiB < 0 || *chunkCacheMiB > 1<<20:
		return usagef("--chunk-cache %d: want 0 (off) to 1048576 MiB", *chunkCacheMiB)
	}
	opts := httpapi.Options{OpenTenant: open, Tenants: tenants, Parse: parse, Workers: *workers, Logger: log, Mounts: mounts,
		Limits: httpapi.Limits{MaxBodyBytes: *maxBody, MaxUploadBytes: *maxUpload, RequestTimeout: *timeout,
			RatePerSecond: *rate, Burst: *burst, MaxSearches: *maxSearches, SearchQueueTimeout: *queueTimeout}}
	if authenticated {
		opts.Keys = root
	}
	api, err := httpapi.New(ctx, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		api.Close()
		return fmt.Errorf("listen %s: %w", *addr, err)
	}
	// ReadTimeout bounds a slow upload; no WriteTimeout, so MCP event
	// streams are not cut (API requests have their own timeout).
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	mode := fmt.Sprintf("%d tenants, API keys required", len(tenants))
	if !authenticated {
		mode = "one local tenant, no authentication (loopback only)"
	}
	where := dir
	if pg, ok := root.(*postgres.Store); ok {
		where = fmt.Sprintf("postgres %s (shared; local indexes in %s)", pg.Where(), dir)
	}
	fmt.Fprintf(e.stderr, "situate serve: http://%s (%s); store %s\n", ln.Addr(), mode, where)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		api.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// In-flight requests finish; then the workers stop, putting running jobs
	// back in the queue (their finished LLM calls are cached).
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	serr := srv.Shutdown(sctx)
	cerr := api.Close()
	fmt.Fprintln(e.stderr, "situate serve: stopped")
	return errors.Join(serr, cerr)
}

// loopback reports whether addr listens on a loopback interface only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// uploadParser turns stored uploads into documents the way serve and
// worker both do: JSON text as is, files through ingest (PDF included).
func uploadParser(maxFile int) (parse func(context.Context, driver.Upload) (situate.Document, error), closeParser func()) {
	pdfx := pdf.New(pdf.Options{})
	iopts := ingest.Options{MaxFileSize: int64(maxFile), PDF: pdfx}
	return func(ctx context.Context, src driver.Upload) (situate.Document, error) {
		if src.Name == "" {
			// JSON text without a format: read as a file named like the
			// id, as multipart uploads and the command line read files:
			// notes/a.md is Markdown, titled by its first heading. Text
			// with a format (a queued document, already read by ingest)
			// is taken as it is.
			if src.Format == "" {
				doc, err := ingest.Parse(ctx, src.Data, src.DocID, path.Base(src.DocID), iopts)
				if err == nil && doc.Format != situate.FormatPDF && doc.Format != situate.FormatDOCX {
					return doc, nil
				}
			}
			f := src.Format
			if f == "" {
				f = situate.FormatText
			}
			return situate.Document{ID: src.DocID, Title: src.DocID, Text: string(src.Data), Format: f}, nil
		}
		doc, err := ingest.Parse(ctx, src.Data, src.DocID, src.Name, iopts)
		if errors.Is(err, ingest.ErrUnsupported) || errors.Is(err, ingest.ErrBinary) || errors.Is(err, ingest.ErrNoPDF) {
			return doc, fmt.Errorf("%w: %w", httpapi.ErrUnsupportedFormat, err)
		}
		if err != nil {
			return doc, fmt.Errorf("%w: %w", situate.ErrInvalid, err)
		}
		return doc, nil
	}, func() { pdfx.Close() }
}
