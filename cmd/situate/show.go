package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate/ingest"
)

func runShow(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("show", "DOC", "Show a document's chunks, each with its context and what made it.")
	c.flags(fs, "store", "store-url", "config")
	ids, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return usagef("want exactly one DOC id, got %d", len(ids))
	}
	eng, store, err := openReader(ctx, e, c)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()
	rec, err := documentArg(eng, ids[0])
	if err != nil {
		return err
	}
	chunks, err := eng.Chunks(ctx, rec.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s — %q, %s, %s, version %d, %d chunks\n\n", ingest.QuoteName(rec.ID), rec.Title, rec.Format, rec.Lang, rec.Version, len(chunks))
	for _, ch := range chunks {
		fmt.Fprintf(e.stdout, "── chunk %d  bytes %d-%d  %d tokens", ch.Index, ch.Start, ch.End, ch.Tokens)
		if ch.Heading != "" {
			fmt.Fprintf(e.stdout, "  § %s", termLine(ch.Heading))
		}
		fmt.Fprintln(e.stdout)
		if ch.Context.Text != "" {
			flags := ""
			if len(ch.Context.Flags) > 0 {
				flags = " flagged: " + strings.Join(ch.Context.Flags, " ")
			}
			fmt.Fprintf(e.stdout, "[context by %s%s] %s\n", ch.Context.Source, flags, termText(ch.Context.Text))
		}
		fmt.Fprintf(e.stdout, "%s\n\n", termText(strings.TrimSpace(ch.Text)))
	}
	return nil
}
