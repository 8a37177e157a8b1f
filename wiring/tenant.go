package wiring

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
	"github.com/situate/situate/sqlite"
)

// TenantsDir holds one store per tenant (store, indexes, caches) when a
// server has API keys: STORE/tenants/NAME, created on first use.
const TenantsDir = "tenants"

// TenantSchema is the PostgreSQL schema of a server tenant's store.
func TenantSchema(tenant string) string { return "situate_tenant_" + tenant }

// OpenTenant opens the engine of one tenant of a server over root, the
// store of --store or --store-url whose indexes live in dir (shared: a
// PostgreSQL store). With name "" the engine is root's own. Otherwise the
// tenant has its own store (its SQLite database in dir/tenants/NAME, or
// its schema of the shared database), its own index backend tenant and
// its own vLLM cache salt, so tenants sharing a server never reuse each
// other's cached prompts. tune, when set, adjusts the options before the
// engine opens. The store returned is the tenant's: the caller closes it
// when it is not root.
func OpenTenant(ctx context.Context, s Settings, env Env, root Store, dir string, shared bool, name string,
	tune func(*situate.Options), log *slog.Logger) (*situate.Engine, Store, error) {
	tdir, store := dir, root
	if name != "" {
		tdir = filepath.Join(dir, TenantsDir, name)
		if err := os.MkdirAll(tdir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create tenant store %s: %w", tdir, err)
		}
		var err error
		if shared {
			store, err = postgres.OpenSchema(ctx, s.Value("store-url"), TenantSchema(name))
		} else {
			store, err = sqlite.Open(ctx, filepath.Join(tdir, StoreFile))
		}
		if err != nil {
			return nil, nil, err
		}
		env.CacheSalt = "situate-tenant-" + name
	}
	opts, err := EngineOptions(s, env, store, store, log)
	if err == nil {
		opts.SharedStore = shared
		if tune != nil {
			tune(&opts)
		}
		err = WithBackend(ctx, s, env, &opts, name, false)
	}
	if err == nil {
		var eng *situate.Engine
		if eng, err = situate.Open(ctx, tdir, store, opts); err == nil {
			return eng, store, nil
		}
	}
	if store != root {
		store.Close()
	}
	return nil, nil, err
}

// OpenWorker opens the engine of a worker over a shared store: it writes
// the store only (situate.OpenStoreOnly), and with an index backend each
// document's index entries as it commits it (the servers' indexes are
// then the backend itself). tenant is the situate tenant the store
// belongs to ("": none), which names the backend's tenant too and salts
// vLLM's prompt cache as a server does.
func OpenWorker(ctx context.Context, s Settings, env Env, store Store, tenant string, log *slog.Logger) (*situate.Engine, error) {
	if tenant != "" {
		env.CacheSalt = "situate-tenant-" + tenant
	}
	opts, err := EngineOptions(s, env, store, store, log)
	if err != nil {
		return nil, err
	}
	if err := WithBackend(ctx, s, env, &opts, tenant, false); err != nil {
		return nil, err
	}
	opts.SharedStore, opts.OpenMode = true, situate.OpenStoreOnly
	return situate.Open(ctx, "", store, opts)
}
