package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/mcpserver"
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
			return mcpserver.Scope{Engine: caller.Engine(), Principals: caller.Principals, Unrestricted: caller.Admin}, nil
		}, mcpserver.Options{Logger: log})
		return []httpapi.Mount{{Pattern: "/mcp", Handler: h}}, nil
	})
}

func runMCP(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("mcp", "", "Serve the index to a local agent over the Model Context Protocol on stdin/stdout (tools: search, fetch, list_documents).\n"+
		"Every result carries the original chunk text with the generated context apart, labelled with what wrote it.\n"+
		"Logs go to stderr. Add it to an agent's MCP configuration as the command `situate mcp --store DIR`.")
	c.flags(fs, "store", "config", "analyzer", "bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe", "contextualizer")
	c.flags(fs, denseSettings...)
	c.flags(fs, llmSettings...)
	principals := fs.String("as", "", "serve as these principals (comma-separated): only documents they may see (default: every document)")
	rest, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected arguments %q", rest)
	}
	eng, store, err := openEngine(ctx, e, c, false)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()

	scope := mcpserver.Scope{Engine: eng, Unrestricted: true}
	if *principals != "" {
		scope = mcpserver.Scope{Engine: eng, Principals: splitList(*principals)}
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	server := mcpserver.New(scope, mcpserver.Options{Logger: log})
	t := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	err = server.Run(ctx, t)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil // the client closed stdin, or the process was asked to stop
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
