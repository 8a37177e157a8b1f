package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/wiring"
)

func runList(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("ls", "", "List the indexed documents, ordered by id: id, title, language, chunks, version and when each was indexed.")
	c.flags(fs, "store", "store-url", "config")
	filter := fs.String("filter", "", `only the documents this filter admits, in the JSON form the HTTP API takes, e.g. '{"metadata":{"year":{"gte":2020}}}' or '{"docs":["a.md"]}'`)
	principals := fs.String("as", "", "only the documents these principals may see (comma-separated)")
	limit := fs.Int("limit", 0, "list at most this many documents (0: all)")
	offset := fs.Int("offset", 0, "skip this many documents first")
	asJSON := fs.Bool("json", false, "print one JSON object {total, offset, documents: [...]} (documents as the HTTP API shows them)")
	rest, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("takes no arguments, got %q (use --filter '{\"docs\":[...]}' to pick documents)", rest[0])
	}
	if *limit < 0 {
		return usagef("--limit: must be >= 0, got %d", *limit)
	}
	if *offset < 0 {
		return usagef("--offset: must be >= 0, got %d", *offset)
	}
	var f situate.Filter
	if *filter != "" {
		if f, err = httpapi.ParseFilter([]byte(*filter)); err != nil {
			return usagef("--%v", err)
		}
	}
	if *principals != "" {
		f.Principals = wiring.SplitList(*principals)
	}
	eng, store, err := openReader(ctx, e, c)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()
	docs, err := eng.DocumentsMatching(f)
	if err != nil {
		return usagef("--filter: %v", err)
	}
	total := len(docs)
	page := docs[min(*offset, total):]
	if *limit > 0 && len(page) > *limit {
		page = page[:*limit]
	}
	if *asJSON {
		out := struct {
			Total     int                `json:"total"`
			Offset    int                `json:"offset"`
			Documents []httpapi.Document `json:"documents"`
		}{Total: total, Offset: *offset, Documents: make([]httpapi.Document, 0, len(page))}
		for _, rec := range page {
			out.Documents = append(out.Documents, httpapi.NewDocument(rec))
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if total == 0 {
		if f.IsZero() {
			fmt.Fprintln(e.stdout, "no documents indexed")
		} else {
			fmt.Fprintln(e.stdout, "no documents match")
		}
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tLANG\tCHUNKS\tVERSION\tINDEXED")
	for _, rec := range page {
		title := "-"
		if rec.Title != "" {
			title = ingest.QuoteName(oneLine(rec.Title, 60))
		}
		lang := rec.Lang
		if lang == "" {
			lang = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", ingest.QuoteName(rec.ID), title,
			lang, rec.Chunks, rec.Version, rec.IndexedAt.Local().Format(time.DateTime))
	}
	tw.Flush()
	if len(page) < total {
		fmt.Fprintf(e.stdout, "%d-%d of %d documents\n", min(*offset, total)+min(1, len(page)), min(*offset, total)+len(page), total)
	}
	return nil
}
