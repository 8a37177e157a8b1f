package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/weaviate"
)

// indexSettingDefs are the settings of the index backend.
func indexSettingDefs() []*setting {
	return []*setting{
		{name: "index", def: "embedded", usage: "where the indexes live: embedded (files beside the store) or weaviate (a Weaviate cluster: --weaviate-url)"},
		{name: "weaviate-url", env: "SITUATE_WEAVIATE_URL", isList: true, usage: "Weaviate nodes' REST URLs (http://127.0.0.1:8080), comma-separated; requests move on from a node that does not answer"},
		{name: "weaviate-api-key-env", def: "WEAVIATE_API_KEY", usage: "environment variable holding the Weaviate API key (none set: anonymous)"},
		{name: "weaviate-collection", def: weaviate.DefaultCollection, usage: "prefix of situate's Weaviate collections (<prefix>Chunks, <prefix>Code, <prefix>Pairs, <prefix>Docs)"},
		{name: "weaviate-tenant", def: weaviate.DefaultTenant, usage: "Weaviate tenant of this store (serve with keys uses each situate tenant's name)"},
		{name: "weaviate-replication", def: "1", usage: "replication factor of the collections situate creates"},
		{name: "weaviate-consistency", def: weaviate.DefaultConsistency, usage: "consistency level of every Weaviate read and write: ONE, QUORUM or ALL (with replication 3, QUORUM keeps searches and writes going while a node is down and loses nothing)"},
		{name: "weaviate-ranking", def: "situate", usage: "situate (situate's analyzers, recipe and fusion over lists fetched from Weaviate) or native (Weaviate's word tokenizer BM25 and its hybrid; for comparison)"},
		{name: "weaviate-vector-index", def: "hnsw", usage: "Weaviate vector index: hnsw or flat (exact)"},
		{name: "weaviate-inexact-bm25", isBool: true, usage: "use a Weaviate whose BM25 misses recently written matches (v1.35.2 started without USE_BLOCKMAX_WAND=false) instead of refusing it; BM25 and hybrid results are then incomplete"},
	}
}

// indexSettings choose the index backend.
var indexSettings = []string{"index", "weaviate-url", "weaviate-api-key-env", "weaviate-collection", "weaviate-tenant",
	"weaviate-replication", "weaviate-consistency", "weaviate-ranking", "weaviate-vector-index", "weaviate-inexact-bm25"}

var evalTenants atomic.Int64

// withBackend sets o.Backend to the index backend --index names, for the
// store of tenant ("": --weaviate-tenant).
func withBackend(ctx context.Context, c *config, e *env, o *situate.Options, tenant string, temporary bool) error {
	b, err := newIndexBackend(ctx, c, e, tenant, temporary)
	if err != nil {
		return err
	}
	if b != nil {
		o.Backend = b
	}
	return nil
}

// newIndexBackend opens the index backend --index names (nil: embedded).
// tenant overrides --weaviate-tenant when set; temporary drops the tenant
// when the engine closes (evaluations).
func newIndexBackend(ctx context.Context, c *config, e *env, tenant string, temporary bool) (driver.IndexBackend, error) {
	switch kind := c.str("index"); kind {
	case "embedded":
		return nil, nil
	case "weaviate":
	default:
		return nil, usagef("--index %q (from %s): must be embedded or weaviate", kind, c.settings["index"].origin)
	}
	cfg := weaviate.Config{URLs: c.list("weaviate-url"), Collection: c.str("weaviate-collection"),
		Tenant: c.str("weaviate-tenant"), Consistency: strings.ToUpper(c.str("weaviate-consistency")),
		VectorIndex: c.str("weaviate-vector-index"), DropOnClose: temporary}
	if len(cfg.URLs) == 0 {
		return nil, usagef("--index weaviate needs --weaviate-url (or SITUATE_WEAVIATE_URL); scripts/dev-weaviate.sh start prints local ones")
	}
	if tenant != "" {
		cfg.Tenant = tenant
	}
	if temporary {
		cfg.Tenant = fmt.Sprintf("eval-%d-%d", os.Getpid(), evalTenants.Add(1))
	}
	if name := c.str("weaviate-api-key-env"); name != "" {
		cfg.APIKey = e.getenv(name)
	}
	var err error
	if cfg.Replication, err = strconv.Atoi(c.str("weaviate-replication")); err != nil || cfg.Replication < 1 {
		return nil, usagef("--weaviate-replication %q: must be a whole number >= 1", c.str("weaviate-replication"))
	}
	if v := c.str("weaviate-inexact-bm25"); v != "" {
		if cfg.SkipBM25Check, err = strconv.ParseBool(v); err != nil {
			return nil, usagef("--weaviate-inexact-bm25 %q: want true or false", v)
		}
	}
	switch r := c.str("weaviate-ranking"); r {
	case "situate":
	case "native":
		cfg.Native = true
	default:
		return nil, usagef("--weaviate-ranking %q: must be situate or native", r)
	}
	if err := cfg.Validate(); err != nil {
		return nil, usageError{err}
	}
	return weaviate.Open(ctx, cfg)
}
