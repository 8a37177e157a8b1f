package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/sqlite"
	"github.com/situate/situate/web"
)

// situate serve shows the search page at / with its assets under /ui/;
// they hold no data, so they are public, and the page calls the API with
// the key its user enters. GET /v1/usage (authenticated, administrators
// only) reads the tenant's recorded provider usage by day for the usage
// view, from a read-only handle on the tenant's store; httpapi/openapi.json
// describes it with the API.
func init() {
	serveMounts = append(serveMounts, func(ctx context.Context, e *env, c *config) ([]httpapi.Mount, error) {
		dir := c.storeDir(e)
		log := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		var (
			mu     sync.Mutex
			stores = map[string]*sqlite.Store{}
		)
		go func() {
			<-ctx.Done()
			mu.Lock()
			defer mu.Unlock()
			for name, s := range stores {
				s.Close()
				delete(stores, name)
			}
		}()
		usage := func(r *http.Request, since time.Time) ([]web.UsageDay, error) {
			caller, ok := httpapi.CallerFrom(r.Context())
			if !ok {
				return nil, errors.New("usage: no authenticated caller")
			}
			if !caller.Admin {
				return nil, web.ErrForbidden
			}
			if err := needsSQLite(c, "the usage view"); err != nil {
				return nil, err
			}
			// The layout serve's tenants use: the store itself without keys,
			// STORE/tenants/NAME with them.
			path := filepath.Join(dir, storeFile)
			if caller.KeyID != "" {
				if err := httpapi.ValidTenant(caller.Tenant); err != nil {
					return nil, err
				}
				path = filepath.Join(dir, tenantsDir, caller.Tenant, storeFile)
			}
			mu.Lock()
			s, ok := stores[path]
			if !ok {
				var err error
				if s, err = sqlite.OpenReadOnly(r.Context(), path); err != nil {
					mu.Unlock()
					return nil, err
				}
				stores[path] = s
			}
			mu.Unlock()
			days, err := s.UsageByDay(r.Context(), since)
			if err != nil {
				return nil, err
			}
			out := make([]web.UsageDay, len(days))
			for i, d := range days {
				out[i] = web.UsageDay{Date: d.Day.Format(time.DateOnly), Calls: d.Calls, Errors: d.Errors,
					InputTokens: d.InputTokens, CacheWriteTokens: d.CacheWriteTokens, CacheReadTokens: d.CacheReadTokens,
					OutputTokens: d.OutputTokens, CostUSD: d.CostUSD}
			}
			return out, nil
		}
		page := web.Handler()
		return []httpapi.Mount{
			{Pattern: "GET /{$}", Handler: page, Public: true},
			{Pattern: "GET /ui/", Handler: page, Public: true},
			{Pattern: "GET /v1/usage", Handler: web.UsageHandler(usage, log)},
		}, nil
	})
}
