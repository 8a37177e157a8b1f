package wiring

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/weaviate"
)

// evalTenants numbers the temporary tenants of this process.
var evalTenants atomic.Int64

// NewIndexBackend opens the index backend --index names (nil: embedded).
// tenant overrides --weaviate-tenant when set; temporary drops the tenant
// when the engine closes (evaluations).
func NewIndexBackend(ctx context.Context, s Settings, env Env, tenant string, temporary bool) (driver.IndexBackend, error) {
	switch kind := s.Value("index"); kind {
	case "embedded":
		return nil, nil
	case "weaviate":
	default:
		return nil, usagef("--index %q (from %s): must be embedded or weaviate", kind, s.Origin("index"))
	}
	cfg := weaviate.Config{URLs: List(s, "weaviate-url"), Collection: s.Value("weaviate-collection"),
		Tenant: s.Value("weaviate-tenant"), Consistency: strings.ToUpper(s.Value("weaviate-consistency")),
		VectorIndex: s.Value("weaviate-vector-index"), DropOnClose: temporary}
	if len(cfg.URLs) == 0 {
		return nil, usagef("--index weaviate needs --weaviate-url (or SITUATE_WEAVIATE_URL); scripts/dev-weaviate.sh start prints local ones")
	}
	if tenant != "" {
		cfg.Tenant = tenant
	}
	if temporary {
		cfg.Tenant = fmt.Sprintf("eval-%d-%d", os.Getpid(), evalTenants.Add(1))
	}
	if name := s.Value("weaviate-api-key-env"); name != "" {
		cfg.APIKey = env.getenv(name)
	}
	var err error
	if cfg.Replication, err = strconv.Atoi(s.Value("weaviate-replication")); err != nil || cfg.Replication < 1 {
		return nil, usagef("--weaviate-replication %q: must be a whole number >= 1", s.Value("weaviate-replication"))
	}
	if v := s.Value("weaviate-inexact-bm25"); v != "" {
		if cfg.SkipBM25Check, err = strconv.ParseBool(v); err != nil {
			return nil, usagef("--weaviate-inexact-bm25 %q: want true or false", v)
		}
	}
	switch r := s.Value("weaviate-ranking"); r {
	case "situate":
	case "native":
		cfg.Native = true
	default:
		return nil, usagef("--weaviate-ranking %q: must be situate or native", r)
	}
	if err := cfg.Validate(); err != nil {
		return nil, UsageError{err}
	}
	return weaviate.Open(ctx, cfg)
}
