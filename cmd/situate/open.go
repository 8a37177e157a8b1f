package main

import (
	"context"
	"log/slog"

	"github.com/situate/situate"
	"github.com/situate/situate/wiring"
)

// engineOptions turns the configuration into engine options
// (wiring.EngineOptions). store is needed by the LLM contextualizer
// (cache, usage) and may be nil otherwise.
func engineOptions(c *config, e *env, store backingStore, log *slog.Logger) (situate.Options, error) {
	return wiring.EngineOptions(c, e.wiring(), store, store, log)
}

// openEngine opens (creating when asked) the store and the engine over it
// for writing (wiring.OpenWriter); a run that may index says which LLM
// settings changed since the store was last indexed.
func openEngine(ctx context.Context, e *env, c *config, create bool) (*situate.Engine, backingStore, error) {
	eng, store, err := wiring.OpenWriter(ctx, c, e.wiring(), create, warnLogger(e.stderr))
	if err != nil || !create {
		return eng, store, err
	}
	if err := noteContextualizer(ctx, e, store, eng, eng.Options().Contextualizer); err != nil {
		eng.Close()
		store.Close()
		return nil, nil, err
	}
	return eng, store, nil
}

// openReader opens the store and a read-only engine over it, for the
// commands that only read (wiring.OpenReader).
func openReader(ctx context.Context, e *env, c *config) (*situate.Engine, backingStore, error) {
	return wiring.OpenReader(ctx, c, e.wiring(), false, warnLogger(e.stderr))
}

// openSearcher is openReader for one search: it skips the database's
// integrity check on open, so a search costs what it reads.
func openSearcher(ctx context.Context, e *env, c *config) (*situate.Engine, backingStore, error) {
	return wiring.OpenReader(ctx, c, e.wiring(), true, warnLogger(e.stderr))
}
