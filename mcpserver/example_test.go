package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/situate/situate"
	"github.com/situate/situate/mcpserver"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// Serve an engine to an MCP client (here in process; `situate mcp` uses
// stdio, httpapi mounts Handler at /mcp) and call the search tool: the text
// content quotes the generated context and the original text apart.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mcpserver-example-")
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	opts := situate.DefaultOptions()
	opts.Contextualizer = offline.New(offline.DefaultOptions())
	eng, err := situate.Open(ctx, "", store, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	doc := situate.Document{ID: "acme.md", Title: "ACME Corp annual report", Format: situate.FormatMarkdown, Lang: situate.LangEnglish,
		Text: "# ACME Corp annual report\n\nRevenue grew 3% over the previous quarter.\n"}
	if _, err := eng.Put(ctx, doc); err != nil {
		log.Fatal(err)
	}

	serverT, clientT := mcp.NewInMemoryTransports()
	server := mcpserver.New(mcpserver.Scope{Engine: eng, Unrestricted: true}, mcpserver.Options{})
	if _, err := server.Connect(ctx, serverT, nil); err != nil {
		log.Fatal(err)
	}
	client, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "ACME revenue", "k": 1}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 1 result for "ACME revenue"
	//
	// [1] doc "acme.md" chunk 0, score 1.1547
	// title: ACME Corp annual report
	// heading: ACME Corp annual report
	// generated context (written by offline; not part of the document):
	//   ┆ From ACME Corp annual report (Revenue).
	// original text:
	//   │ # ACME Corp annual report
	//   │
	//   │ Revenue grew 3% over the previous quarter.
}
