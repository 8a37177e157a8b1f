package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

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
	r, err := wiring.NewLiveReader(func() (*situate.Engine, wiring.Store, error) { return openReader(ctx, e, c) }, c.storeDir(e), log)
	if err != nil {
		return err
	}
	defer r.Close()
	var p []string
	if *principals != "" {
		p = wiring.SplitList(*principals)
	}
	src := func(context.Context) (mcpserver.Scope, func(), error) {
		eng, release, err := r.Engine()
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
