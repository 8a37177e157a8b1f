package main

import (
	"context"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/wiring"
)

// backingStore is what the commands need of a store (wiring.Store).
type backingStore = wiring.Store

// storeFile and sharedDir are the SQLite database in the store directory
// and the directory of shared stores' local indexes in it.
const (
	storeFile = wiring.StoreFile
	sharedDir = wiring.SharedDir
)

// needsSQLite refuses --store-url (from a flag, the environment or the
// configuration file) for a command that works on the SQLite store only.
func needsSQLite(c *config, what string) error {
	if s := c.settings["store-url"]; s != nil && s.value != "" {
		return usagef("%s works on the SQLite store in --store only; --store-url (from %s) is not supported", what, s.origin)
	}
	return nil
}

// contextStats counts contexts by source and flagged contexts: the SQLite
// store in one query, another store by reading every document's chunks.
func contextStats(ctx context.Context, store backingStore, docs []situate.DocumentRecord) (sqlite.Stats, error) {
	if s, ok := store.(*sqlite.Store); ok {
		return s.Stats(ctx)
	}
	st := sqlite.Stats{ContextsBySource: map[string]int{}}
	for _, d := range docs {
		chunks, err := store.Chunks(ctx, d.ID)
		if err != nil {
			return st, err
		}
		for _, ch := range chunks {
			st.ContextsBySource[ch.Context.Source]++
			if len(ch.Context.Flags) > 0 {
				st.FlaggedContexts++
			}
		}
	}
	return st, nil
}
