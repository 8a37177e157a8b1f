package wiring

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
)

// SharedCheck is what checking a shared store found.
type SharedCheck struct {
	// Report is the store's own invariants and, without an index backend,
	// this machine's local indexes of it.
	Report situate.CheckReport
	// Backend is the index backend's documents and versions against the
	// store; nil without a backend (--index embedded).
	Backend *situate.CheckArm
	// Dir is the local indexes checked ("": no process of this machine
	// has searched the store, so none exist and nothing was built).
	Dir string
}

// CheckShared checks a shared store (the tenant's, when set): its own
// invariants, then either this machine's local indexes of it
// (STORE/shared/HOST_PORT_DB, or its tenants/NAME) or, with an index
// backend, the backend's documents and versions against the store. repair
// syncs or rebuilds the local indexes, or has a writing engine over the
// backend re-index what it lacks and remove the rest.
func CheckShared(ctx context.Context, s Settings, env Env, store *postgres.Store, tenant string, repair bool, log *slog.Logger) (SharedCheck, error) {
	var out SharedCheck
	opts, err := EngineOptions(s, env, store, store, log)
	if err != nil {
		return out, err
	}
	opts.SharedStore = true
	backend, err := NewIndexBackend(ctx, s, env, tenant, false)
	if err != nil {
		return out, err
	}
	if backend != nil {
		closed := false // the engine of a repair closes the backend
		defer func() {
			if !closed {
				backend.Close()
			}
		}()
		if out.Report, err = situate.Check(ctx, "", store, opts); err != nil {
			return out, err
		}
		arm := situate.CheckBackend(ctx, store, backend)
		if rep := &out.Report; repair && !arm.OK() && rep.StoreErr == nil && len(rep.StoreProblems) == 0 {
			// A writing engine over the backend re-indexes what it lacks
			// or holds at another version, and removes the rest.
			opts.Backend = backend
			eng, err := situate.Open(ctx, "", store, opts)
			if err != nil {
				rep.RepairErr = err
			} else {
				rep.Repaired = []string{"backend"}
				arm = situate.CheckBackend(ctx, store, backend)
				closed = true
				if err := eng.Close(); err != nil {
					rep.RepairErr = err
				}
			}
		}
		out.Backend = &arm
		return out, nil
	}
	out.Dir = filepath.Join(StoreDir(s, env), SharedDir, SharedName(store.Where()))
	if tenant != "" {
		out.Dir = filepath.Join(out.Dir, TenantsDir, tenant)
	}
	if _, err := os.Stat(out.Dir); err != nil {
		out.Dir = ""
	}
	if repair {
		out.Report, err = situate.Repair(ctx, out.Dir, store, opts)
	} else {
		out.Report, err = situate.Check(ctx, out.Dir, store, opts)
	}
	return out, err
}
