package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/mcpserver"
	"github.com/situate/situate/wiring"
)

// situate serve answers MCP's Streamable HTTP transport at /mcp, behind its
// authentication: every tool reads the caller's tenant with the caller's
// principals (an administrator reads everything in its tenant).
func init() {
	serveMounts = append(serveMounts, func(ctx context.Context, e *env, c *config) ([]httpapi.Mount, error) {
		log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		h := mcpserver.Handler(func(r *http.Request) (mcpserver.Scope, error) {
			caller, ok := httpapi.CallerFrom(r.Context())
			if !ok {
				return mcpserver.Scope{}, errors.New("no authenticated caller")
			}
			return mcpserver.Scope{Engine: caller.Engine(), Principals: caller.Principals, Unrestricted: caller.ReadsAll()}, nil
		}, mcpserver.Options{Logger: log})
		return []httpapi.Mount{{Pattern: "/mcp", Handler: h}}, nil
	})
}

func runMCP(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("mcp", "", "Serve the index to a local agent over the Model Context Protocol on stdin/stdout (tools: search, fetch, list_documents).\n"+
		"Every result carries the original chunk text with the generated context apart, labelled with what wrote it.\n"+
		"Logs go to stderr. Add it to an agent's MCP configuration as the command `situate mcp --store DIR`.")
	c.flags(fs, "store", "store-url", "config", "analyzer", "bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe", "contextualizer")
	c.flags(fs, wiring.DenseSettings...)
	c.flags(fs, wiring.IndexSettings...)
	c.flags(fs, wiring.LLMSettings...)
	principals := fs.String("as", "", "serve as these principals (comma-separated): only documents they may see (default: every document)")
	rest, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected arguments %q", rest)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r := &liveReader{open: func() (*situate.Engine, backingStore, error) { return openReader(ctx, e, c) }, dir: c.storeDir(e), log: log}
	if err := r.reopen(); err != nil {
		return err
	}
	defer r.close()
	var p []string
	if *principals != "" {
		p = splitList(*principals)
	}
	src := func(context.Context) (mcpserver.Scope, func(), error) {
		eng, release, err := r.engine()
		if err != nil {
			return mcpserver.Scope{}, nil, err
		}
		return mcpserver.Scope{Engine: eng, Principals: p, Unrestricted: *principals == ""}, release, nil
	}
	server := mcpserver.NewFromSource(src, mcpserver.Options{Logger: log})
	// A bad line gets a JSON-RPC error and the server reads on; at the end
	// of input every request read is answered before it exits.
	t := &mcpserver.StdioTransport{Reader: e.stdin, Writer: e.stdout}
	err = server.Run(ctx, t)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil // the client closed stdin, or the process was asked to stop
	}
	return err
}

// liveReader is the read-only engine `situate mcp` serves: it takes no
// lock, so `situate index` runs beside it, and a tool call that finds the
// store changed since the engine was opened (the database, its WAL or the
// BM25 directory) reopens it, at most once a second.
type liveReader struct {
	open func() (*situate.Engine, backingStore, error)
	dir  string
	log  *slog.Logger

	mu     sync.RWMutex
	eng    *situate.Engine
	store  backingStore
	stamp  string
	opened time.Time
}

// storeStamp changes whenever another process commits to the store.
func (r *liveReader) storeStamp() string {
	var b strings.Builder
	for _, name := range []string{storeFile, storeFile + "-wal", "bm25"} {
		if fi, err := os.Stat(filepath.Join(r.dir, name)); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", name, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

// reopen replaces the engine; the caller holds r.mu for writing (or owns r).
func (r *liveReader) reopen() error {
	stamp := r.storeStamp()
	eng, store, err := r.open()
	if err != nil {
		return err
	}
	r.closeLocked()
	r.eng, r.store, r.stamp, r.opened = eng, store, stamp, time.Now()
	return nil
}

// engine returns the current engine, reopened first when the store
// changed; release ends the caller's use of it.
func (r *liveReader) engine() (*situate.Engine, func(), error) {
	r.mu.RLock()
	if o := r.eng.Options(); o.SharedStore && o.OpenMode != situate.OpenReader {
		// A shared store (--store-url): the engine syncs its own
		// indexes with what other processes committed (a cheap check
		// when nothing changed).
		if _, err := r.eng.Sync(context.Background()); err != nil {
			r.log.Warn("mcp: sync with the shared store", "err", err)
		}
		return r.eng, r.mu.RUnlock, nil
	}
	if r.stamp == r.storeStamp() || time.Since(r.opened) < time.Second {
		return r.eng, r.mu.RUnlock, nil
	}
	r.mu.RUnlock()
	r.mu.Lock()
	if r.stamp != r.storeStamp() && time.Since(r.opened) >= time.Second {
		if err := r.reopen(); err != nil {
			// Keep serving what was open; say why it is not fresh.
			r.log.Warn("mcp: reopen the store", "err", err)
			r.opened = time.Now()
		}
	}
	r.mu.Unlock()
	r.mu.RLock()
	return r.eng, r.mu.RUnlock, nil
}

func (r *liveReader) closeLocked() {
	if r.eng != nil {
		r.eng.Close()
		r.store.Close()
		r.eng, r.store = nil, nil
	}
}

func (r *liveReader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}
