package weaviate

import (
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate/driver"
)

// Defaults of Config.
const (
	DefaultCollection  = "Situate"
	DefaultTenant      = "default"
	DefaultConsistency = "QUORUM"
	DefaultBatchSize   = 200
	DefaultTimeout     = 60 * time.Second
	// mainArm is the language arm's name (situate's "bm25" directory): its
	// k1 and b are also those of the chunks' collection (Native BM25).
	mainArm = "bm25"
	// deleteLimit is Weaviate's QUERY_MAXIMUM_RESULTS default: a batch
	// delete removes at most that many objects, so deletes repeat.
	deleteLimit = 10000
)

// Config says where Weaviate is and how situate uses it.
type Config struct {
	// URLs are the nodes' REST endpoints (http://127.0.0.1:8080); requests
	// go to them in turn and move on from a node that does not answer.
	URLs []string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Collection prefixes situate's collections: <Collection>Chunks (text,
	// context, vectors), one per lexical arm and analyzer
	// (<Collection>LangEnglish, <Collection>LangGerman...,
	// <Collection>CodeCode, <Collection>PairsStandard) and <Collection>Docs
	// (one object per indexed document and version).
	Collection string
	// Tenant is the Weaviate tenant (situate's tenant; DefaultTenant when
	// empty): every collection is multi-tenant.
	Tenant string
	// Replication is the replication factor of collections this creates
	// (0: Weaviate's default, 1).
	Replication int
	// Consistency is the consistency level of every read and write: ONE,
	// QUORUM (default) or ALL.
	Consistency string
	// Native ranks with Weaviate's own means instead of situate's recipe:
	// BM25 over the contextualized text under Weaviate's "word" tokenizer,
	// and Weaviate's hybrid (relative score fusion). For measurements.
	Native bool
	// VectorIndex is "hnsw" (default) or "flat" (exact).
	VectorIndex string
	// BatchSize is the number of objects per batch request.
	BatchSize int
	// Timeout bounds one request (default DefaultTimeout).
	Timeout time.Duration
	// DropOnClose deletes the tenant when the index is closed (temporary
	// indexes: evaluations, tests).
	DropOnClose bool
	// SkipBM25Check skips Init's check that the server's BM25 returns the
	// true top matches (it fails on a Weaviate v1.35.2 started without
	// USE_BLOCKMAX_WAND=false; see EnvHint), accepting inexact lexical
	// results.
	SkipBM25Check bool
}

var (
	classRE  = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,200}$`)
	tenantRE = regexp.MustCompile(`^[A-Za-z0-9\-_]{1,64}$`)
)

// Validate names the first invalid field.
func (c *Config) Validate() error {
	switch {
	case len(c.URLs) == 0:
		return fmt.Errorf("weaviate: URLs: at least one is needed: %w", driver.ErrInvalid)
	case c.Collection != "" && !classRE.MatchString(c.Collection):
		return fmt.Errorf("weaviate: Collection %q: must start with an upper-case letter and hold only letters, digits and _: %w", c.Collection, driver.ErrInvalid)
	case c.Tenant != "" && !tenantRE.MatchString(c.Tenant):
		return fmt.Errorf("weaviate: Tenant %q: must be 1-64 letters, digits, - or _: %w", c.Tenant, driver.ErrInvalid)
	case c.Replication < 0:
		return fmt.Errorf("weaviate: Replication: must be >= 0, got %d: %w", c.Replication, driver.ErrInvalid)
	case c.Consistency != "" && c.Consistency != "ONE" && c.Consistency != "QUORUM" && c.Consistency != "ALL":
		return fmt.Errorf("weaviate: Consistency %q: must be ONE, QUORUM or ALL: %w", c.Consistency, driver.ErrInvalid)
	case c.VectorIndex != "" && c.VectorIndex != "hnsw" && c.VectorIndex != "flat":
		return fmt.Errorf("weaviate: VectorIndex %q: must be hnsw or flat: %w", c.VectorIndex, driver.ErrInvalid)
	}
	for _, u := range c.URLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("weaviate: URLs: %q: want http(s)://host:port: %w", u, driver.ErrInvalid)
		}
	}
	return nil
}

// Index is a situate.IndexBackend on Weaviate.
type Index struct {
	cfg  Config
	c    *client
	arms []driver.BackendArm
	// props are the properties each collection is known to have, so typed
	// metadata properties are added once.
	mu    sync.Mutex
	props map[string]map[string]bool
}

var (
	_ driver.IndexBackend = (*Index)(nil)
	_ driver.NativeRanker = (*Index)(nil)
)

// Open connects to Weaviate and waits until a node reports ready (up to
// the context's deadline, or 30 s).
func Open(ctx context.Context, cfg Config) (*Index, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.URLs = slices.Clone(cfg.URLs)
	for i, u := range cfg.URLs {
		cfg.URLs[i] = strings.TrimRight(u, "/")
	}
	cfg.Collection = cmp.Or(cfg.Collection, DefaultCollection)
	cfg.Tenant = cmp.Or(cfg.Tenant, DefaultTenant)
	cfg.Consistency = cmp.Or(cfg.Consistency, DefaultConsistency)
	cfg.VectorIndex = cmp.Or(cfg.VectorIndex, "hnsw")
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	x := &Index{cfg: cfg, props: map[string]map[string]bool{},
		c: &client{urls: cfg.URLs, apiKey: cfg.APIKey, http: &http.Client{Timeout: cfg.Timeout}}}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		err := x.c.do(wctx, http.MethodGet, "/v1/.well-known/ready", nil, nil)
		if err == nil {
			return x, nil
		}
		if wctx.Err() != nil {
			return nil, fmt.Errorf("weaviate at %s: not ready: %w", strings.Join(cfg.URLs, ","), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Config returns the configuration with defaults filled in.
func (x *Index) Config() Config { return x.cfg }

// chunksClass holds every chunk's text, context, vector and the
// contextualized text under Weaviate's own tokenizer (Native).
func (x *Index) chunksClass() string { return x.cfg.Collection + "Chunks" }

// docsClass holds one object per document and version.
func (x *Index) docsClass() string { return x.cfg.Collection + "Docs" }

// lexClass holds one arm's terms under one analyzer: a collection per
// partition, so BM25's statistics (document count, average length) are the
// partition's, as in situate's BM25.
func (x *Index) lexClass(arm, analyzer string) string {
	name := strings.TrimPrefix(arm, "bm25")
	if name == "" {
		name = "lang"
	}
	return x.cfg.Collection + camel(name) + camel(analyzer)
}

func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '-' || r == '_' {
			up = true
			continue
		}
		if up {
			r = []rune(strings.ToUpper(string(r)))[0]
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// classes lists every collection of the arms Init declared, chunks and
// documents last.
func (x *Index) classes() []string {
	var out []string
	for _, a := range x.arms {
		for _, an := range a.Analyzers {
			out = append(out, x.lexClass(a.Name, an))
		}
	}
	return append(out, x.chunksClass(), x.docsClass())
}

// termsProp holds a lexical object's terms (whitespace tokenization).
const termsProp = "terms"

const nativeProp = "native"

type property struct {
	Name            string   `json:"name"`
	DataType        []string `json:"dataType"`
	Tokenization    string   `json:"tokenization,omitempty"`
	IndexFilterable *bool    `json:"indexFilterable,omitempty"`
	IndexSearchable *bool    `json:"indexSearchable,omitempty"`
	IndexRange      *bool    `json:"indexRangeFilters,omitempty"`
}

func filterProps() []property {
	f, t := ptr(false), ptr(true)
	return []property{
		{Name: propDocID, DataType: []string{"text"}, Tokenization: "field", IndexFilterable: t, IndexSearchable: f},
		{Name: propChunk, DataType: []string{"int"}, IndexFilterable: t},
		{Name: propVersion, DataType: []string{"int"}, IndexFilterable: t},
		{Name: propPublic, DataType: []string{"boolean"}, IndexFilterable: t},
		{Name: propAccess, DataType: []string{"text[]"}, Tokenization: "field", IndexFilterable: t, IndexSearchable: f},
		{Name: propMetaKV, DataType: []string{"text[]"}, Tokenization: "field", IndexFilterable: t, IndexSearchable: f},
		{Name: propMetaKeys, DataType: []string{"text[]"}, Tokenization: "field", IndexFilterable: t, IndexSearchable: f},
	}
}

func stored(name, typ string) property {
	return property{Name: name, DataType: []string{typ}, IndexFilterable: ptr(false), IndexSearchable: ptr(false)}
}

func searchable(name, tokenization string) property {
	return property{Name: name, DataType: []string{"text"}, Tokenization: tokenization, IndexFilterable: ptr(false), IndexSearchable: ptr(true)}
}

type classSchema struct {
	Class              string         `json:"class"`
	Properties         []property     `json:"properties"`
	Vectorizer         string         `json:"vectorizer,omitempty"`
	VectorIndexType    string         `json:"vectorIndexType,omitempty"`
	VectorIndexConfig  map[string]any `json:"vectorIndexConfig,omitempty"`
	InvertedIndex      map[string]any `json:"invertedIndexConfig,omitempty"`
	MultiTenancyConfig map[string]any `json:"multiTenancyConfig,omitempty"`
	ReplicationConfig  map[string]any `json:"replicationConfig,omitempty"`
}

// Init creates (or checks) the collections: one per arm and analyzer, the
// chunks' and the documents', and the tenant in each.
func (x *Index) Init(ctx context.Context, arms []driver.BackendArm) error {
	var main *driver.BackendArm
	for i := range arms {
		if arms[i].Name == mainArm {
			main = &arms[i]
		}
	}
	if main == nil {
		return fmt.Errorf("weaviate: init: no %q arm among %d: %w", mainArm, len(arms), driver.ErrInvalid)
	}
	x.arms = arms
	bm25 := func(a *driver.BackendArm) map[string]any {
		return map[string]any{"bm25": map[string]any{"k1": a.K1, "b": a.B}, "stopwords": map[string]any{"preset": "none"}}
	}
	for _, a := range arms {
		for _, an := range a.Analyzers {
			s := classSchema{Class: x.lexClass(a.Name, an), Properties: append(filterProps(), searchable(termsProp, "whitespace"), lengthProperty(lengthProp), lengthProperty(distinctProp), stored(positionsProp, "int")),
				Vectorizer: "none", VectorIndexType: "flat", InvertedIndex: bm25(&a)}
			if err := x.ensureClass(ctx, s, &a); err != nil {
				return err
			}
		}
	}
	chunks := classSchema{Class: x.chunksClass(), Vectorizer: "none", VectorIndexType: x.cfg.VectorIndex,
		VectorIndexConfig: map[string]any{"distance": "cosine"}, InvertedIndex: bm25(main),
		Properties: append(filterProps(), stored("title", "text"), stored("text", "text"), stored("context", "text"),
			stored("context_source", "text"), stored("heading", "text"), stored("lang", "text"),
			searchable(nativeProp, "word"))}
	if err := x.ensureClass(ctx, chunks, main); err != nil {
		return err
	}
	docs := classSchema{Class: x.docsClass(), Vectorizer: "none", VectorIndexType: "flat",
		Properties: []property{{Name: propDocID, DataType: []string{"text"}, Tokenization: "field", IndexFilterable: ptr(true), IndexSearchable: ptr(false)},
			stored(propVersion, "int"), stored("chunks", "int")}}
	if err := x.ensureClass(ctx, docs, nil); err != nil {
		return err
	}
	if x.cfg.SkipBM25Check || len(main.Analyzers) == 0 {
		return nil
	}
	return x.checkBM25(ctx, x.lexClass(main.Name, main.Analyzers[0]))
}

func (x *Index) ensureClass(ctx context.Context, s classSchema, arm *driver.BackendArm) error {
	s.MultiTenancyConfig = map[string]any{"enabled": true, "autoTenantCreation": true, "autoTenantActivation": true}
	if x.cfg.Replication > 0 {
		s.ReplicationConfig = replicationConfig(x.cfg.Replication)
	}
	var have classSchema
	err := x.c.do(ctx, http.MethodGet, "/v1/schema/"+s.Class, nil, &have)
	switch {
	case isStatus(err, http.StatusNotFound):
		if err := x.c.do(ctx, http.MethodPost, "/v1/schema", s, nil); err != nil && !isStatus(err, http.StatusUnprocessableEntity) {
			return fmt.Errorf("weaviate: create collection %s: %w", s.Class, err)
		}
		have = s
	case err != nil:
		return fmt.Errorf("weaviate: collection %s: %w", s.Class, err)
	default:
		if err := x.repairReplication(ctx, s.Class, have.ReplicationConfig); err != nil {
			return err
		}
		if arm != nil {
			bm, _ := have.InvertedIndex["bm25"].(map[string]any)
			k1, _ := bm["k1"].(float64)
			b, _ := bm["b"].(float64)
			if !near(k1, arm.K1) || !near(b, arm.B) {
				return fmt.Errorf("weaviate: collection %s holds BM25 k1=%g b=%g, the settings want k1=%g b=%g (use another collection, or delete this one): %w",
					s.Class, k1, b, arm.K1, arm.B, driver.ErrInvalid)
			}
		}
	}
	known := map[string]bool{}
	for _, p := range have.Properties {
		known[p.Name] = true
	}
	for _, p := range s.Properties {
		if !known[p.Name] {
			if err := x.c.do(ctx, http.MethodPost, "/v1/schema/"+s.Class+"/properties", p, nil); err != nil && !isStatus(err, http.StatusUnprocessableEntity) {
				return fmt.Errorf("weaviate: collection %s: add property %s: %w", s.Class, p.Name, err)
			}
			known[p.Name] = true
		}
	}
	x.mu.Lock()
	x.props[s.Class] = known
	x.mu.Unlock()
	// The tenant: created here so that a search before the first write
	// finds it (autoTenantCreation covers writes only).
	var tenants []struct {
		Name string `json:"name"`
	}
	if err := x.c.do(ctx, http.MethodGet, "/v1/schema/"+s.Class+"/tenants", nil, &tenants); err != nil {
		return fmt.Errorf("weaviate: collection %s: tenants: %w", s.Class, err)
	}
	if !slices.ContainsFunc(tenants, func(t struct {
		Name string `json:"name"`
	}) bool {
		return t.Name == x.cfg.Tenant
	}) {
		body := []map[string]string{{"name": x.cfg.Tenant}}
		if err := x.c.do(ctx, http.MethodPost, "/v1/schema/"+s.Class+"/tenants", body, nil); err != nil && !isStatus(err, http.StatusUnprocessableEntity) {
			return fmt.Errorf("weaviate: collection %s: create tenant %s: %w", s.Class, x.cfg.Tenant, err)
		}
	}
	return nil
}

// deletionStrategy is how Weaviate settles a replica that holds an object
// another replica deleted: the later of the write and the deletion wins.
// Weaviate's default, NoAutomatedResolution, settles nothing, so a node that
// was down while a document's old chunks were deleted would serve them for
// ever.
const deletionStrategy = "TimeBasedResolution"

// replicationConfig is the replication of the collections situate creates:
// factor copies of each tenant; with more than one, asynchronous
// replication (a node that missed writes while it was down is brought up to
// date in the background) and time-based settling of deletions.
func replicationConfig(factor int) map[string]any {
	c := map[string]any{"factor": factor}
	if factor > 1 {
		c["asyncEnabled"], c["deletionStrategy"] = true, deletionStrategy
	}
	return c
}

// repairReplication turns on asynchronous replication and time-based
// deletions on a replicated collection created without them (by an
// earlier situate, or by hand): without them a node that returns after an
// outage keeps what it missed.
func (x *Index) repairReplication(ctx context.Context, class string, have map[string]any) error {
	factor, _ := have["factor"].(float64)
	async, _ := have["asyncEnabled"].(bool)
	if factor <= 1 || async && have["deletionStrategy"] == deletionStrategy {
		return nil
	}
	var full map[string]any
	if err := x.c.do(ctx, http.MethodGet, "/v1/schema/"+class, nil, &full); err != nil {
		return fmt.Errorf("weaviate: collection %s: %w", class, err)
	}
	rc, _ := full["replicationConfig"].(map[string]any)
	if rc == nil {
		return nil
	}
	rc["asyncEnabled"], rc["deletionStrategy"] = true, deletionStrategy
	if err := x.c.do(ctx, http.MethodPut, "/v1/schema/"+class, full, nil); err != nil {
		return fmt.Errorf("weaviate: collection %s: turn on asynchronous replication and %s deletions: %w", class, deletionStrategy, err)
	}
	return nil
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// objectID is the deterministic id of a document's chunk (chunk -1: the
// document's own object): a name-based UUID of the pair.
func objectID(docID string, chunk int) string {
	h := sha1.Sum([]byte("situate\x00" + docID + "\x00" + strconv.Itoa(chunk)))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

type batchObject struct {
	Class      string         `json:"class"`
	ID         string         `json:"id"`
	Properties map[string]any `json:"properties"`
	Vector     []float32      `json:"vector,omitempty"`
	Tenant     string         `json:"tenant"`
}

// filterValues are the properties every object of a document carries for
// filters; typed lists the typed metadata properties it needs.
func filterValues(rec driver.DocumentRecord, chunk int) (map[string]any, []property) {
	access := rec.Access
	if access == nil {
		access = []string{}
	}
	kv := make([]string, 0, len(rec.Metadata))
	keys := []string{keySentinel}
	p := map[string]any{propDocID: rec.ID, propChunk: chunk, propVersion: rec.Version,
		propPublic: len(rec.Access) == 0, propAccess: access}
	var typed []property
	for k, v := range rec.Metadata {
		kv = append(kv, k+kvSep+v)
		keys = append(keys, k)
		if len(k) > maxKeyBytes {
			continue
		}
		if f, ok := driver.MetadataNumber(v); ok {
			p[numberProp(k)] = f
			typed = append(typed, property{Name: numberProp(k), DataType: []string{"number"}, IndexFilterable: ptr(true), IndexRange: ptr(true)})
		} else if t, ok := driver.MetadataTime(v); ok {
			p[dateProp(k)] = t.UTC().Format(time.RFC3339Nano)
			typed = append(typed, property{Name: dateProp(k), DataType: []string{"date"}, IndexFilterable: ptr(true)})
		}
	}
	slices.Sort(kv)
	slices.Sort(keys)
	p[propMetaKV], p[propMetaKeys] = kv, keys
	return p, typed
}

// Replace writes every chunk of docs to every arm's collection, removes the
// chunks of their earlier versions, and records the documents last, so a
// document is listed by Versions only once all its chunks are written.
func (x *Index) Replace(ctx context.Context, docs []driver.BackendDocument) error {
	if len(docs) == 0 {
		return nil
	}
	var objs []batchObject
	var typed []property
	var gone []string
	for _, d := range docs {
		if len(d.Chunks) == 0 {
			gone = append(gone, d.Record.ID)
			continue
		}
		for _, ch := range d.Chunks {
			fv, tp := filterValues(d.Record, ch.Index)
			typed = append(typed, tp...)
			id := objectID(d.Record.ID, ch.Index)
			for _, at := range ch.Terms {
				if len(at.Terms) == 0 {
					// Nothing to match (a chunk that declares nothing):
					// no object, so it counts in no BM25 statistics.
					continue
				}
				class := x.lexClass(at.Arm, at.Analyzer)
				if !x.hasClass(class) {
					return fmt.Errorf("weaviate: %s: chunk %d: arm %s analyzer %s was not declared to Init", d.Record.ID, ch.Index, at.Arm, at.Analyzer)
				}
				props := maps.Clone(fv)
				props[termsProp] = strings.Join(at.Terms, " ")
				props[lengthProp], props[positionsProp], props[distinctProp] = len(at.Terms), at.Positions, distinctTerms(at.Terms)
				objs = append(objs, batchObject{Class: class, ID: id, Properties: props, Tenant: x.cfg.Tenant})
			}
			props := maps.Clone(fv)
			props["title"], props["text"], props["context"] = d.Record.Title, ch.Text, ch.Context.Text
			props["context_source"], props["heading"], props["lang"] = ch.Context.Source, ch.Heading, d.Record.Lang
			props[nativeProp] = driver.Contextualize(ch.Context.Text, ch.Text)
			objs = append(objs, batchObject{Class: x.chunksClass(), ID: id, Properties: props, Vector: ch.Vector, Tenant: x.cfg.Tenant})
		}
	}
	if err := x.addProps(ctx, typed); err != nil {
		return err
	}
	if err := x.batch(ctx, objs); err != nil {
		return err
	}
	// Chunks of earlier versions: documents held at another version lose
	// the chunks not of this one.
	held, err := x.held(ctx, docs)
	if err != nil {
		return err
	}
	var stale []*where
	for _, d := range docs {
		if v, ok := held[d.Record.ID]; ok && len(d.Chunks) > 0 && (v.version != d.Record.Version || v.chunks > len(d.Chunks)) {
			stale = append(stale, and(textEq(propDocID, d.Record.ID),
				&where{Operator: "GreaterThanEqual", Path: []string{propChunk}, ValueInt: ptr(int64(len(d.Chunks)))}))
		}
	}
	if len(stale) > 0 {
		w := stale[0]
		if len(stale) > 1 {
			w = or(stale...)
		}
		// A document whose language changed left its chunks in another
		// analyzer's collection: ask every one.
		for _, c := range x.classes() {
			if c == x.docsClass() {
				continue
			}
			if err := x.deleteWhere(ctx, c, w); err != nil {
				return err
			}
		}
	}
	if len(gone) > 0 {
		if err := x.Delete(ctx, gone); err != nil {
			return err
		}
	}
	var recs []batchObject
	for _, d := range docs {
		if len(d.Chunks) > 0 {
			recs = append(recs, batchObject{Class: x.docsClass(), ID: objectID(d.Record.ID, -1), Tenant: x.cfg.Tenant,
				Properties: map[string]any{propDocID: d.Record.ID, propVersion: d.Record.Version, "chunks": len(d.Chunks)}})
		}
	}
	return x.batch(ctx, recs)
}

type heldDoc struct{ version, chunks int }

// held returns the version and chunk count the documents' collection
// records for docs.
func (x *Index) held(ctx context.Context, docs []driver.BackendDocument) (map[string]heldDoc, error) {
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.Record.ID
	}
	out := map[string]heldDoc{}
	for start := 0; start < len(ids); start += 1000 {
		part := ids[start:min(start+1000, len(ids))]
		q := fmt.Sprintf(`{Get{%s(tenant: %s%s, limit: %d, where: %s){%s %s chunks}}}`,
			x.docsClass(), gqlString(x.cfg.Tenant), x.consistencyArg(), len(part), containsAny(propDocID, part).gql(), propDocID, propVersion)
		var data struct {
			Get map[string][]struct {
				DocID   string `json:"doc_id"`
				Version int    `json:"version"`
				Chunks  int    `json:"chunks"`
			}
		}
		if err := x.c.graphql(ctx, q, &data); err != nil {
			return nil, fmt.Errorf("weaviate: documents held: %w", err)
		}
		for _, r := range data.Get[x.docsClass()] {
			out[r.DocID] = heldDoc{r.Version, r.Chunks}
		}
	}
	return out, nil
}

// addProps adds the typed metadata properties the collections lack.
func (x *Index) addProps(ctx context.Context, typed []property) error {
	if len(typed) == 0 {
		return nil
	}
	for _, class := range x.classes() {
		if class == x.docsClass() {
			continue
		}
		for _, p := range typed {
			x.mu.Lock()
			have := x.props[class][p.Name]
			x.mu.Unlock()
			if have {
				continue
			}
			if err := x.c.do(ctx, http.MethodPost, "/v1/schema/"+class+"/properties", p, nil); err != nil && !isStatus(err, http.StatusUnprocessableEntity) {
				return fmt.Errorf("weaviate: collection %s: add property %s: %w", class, p.Name, err)
			}
			x.mu.Lock()
			if x.props[class] == nil {
				x.props[class] = map[string]bool{}
			}
			x.props[class][p.Name] = true
			x.mu.Unlock()
		}
	}
	return nil
}

func (x *Index) hasClass(class string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.props[class]
	return ok
}

func (x *Index) hasProp(class, name string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.props[class][name]
}

// batch writes objects, BatchSize at a time. An object Weaviate refuses
// (a node joining or leaving the cluster answers so for a moment) makes the
// whole part be written again, which is safe: object ids are fixed, a write
// replaces. After writeTries it fails with the object's error.
func (x *Index) batch(ctx context.Context, objs []batchObject) error {
	for start := 0; start < len(objs); start += x.cfg.BatchSize {
		part := objs[start:min(start+x.cfg.BatchSize, len(objs))]
		var err error
		for try := range writeTries {
			if err = x.batchOnce(ctx, part); err == nil || ctx.Err() != nil {
				break
			}
			sleep(ctx, time.Duration(try+1)*300*time.Millisecond)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeTries bounds the attempts at one batch of writes or deletes.
const writeTries = 8

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (x *Index) batchOnce(ctx context.Context, part []batchObject) error {
	path := "/v1/batch/objects?consistency_level=" + x.cfg.Consistency
	var resp []struct {
		ID     string `json:"id"`
		Class  string `json:"class"`
		Result struct {
			Errors *struct {
				Error []struct {
					Message string `json:"message"`
				} `json:"error"`
			} `json:"errors"`
		} `json:"result"`
	}
	if err := x.c.do(ctx, http.MethodPost, path, map[string]any{"objects": part}, &resp); err != nil {
		return fmt.Errorf("weaviate: write %d objects: %w", len(part), err)
	}
	for _, r := range resp {
		if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
			return fmt.Errorf("weaviate: write %s object %s: %s", r.Class, r.ID, r.Result.Errors.Error[0].Message)
		}
	}
	if len(resp) != len(part) {
		return fmt.Errorf("weaviate: write %d objects: %d answered", len(part), len(resp))
	}
	return nil
}

// deleteWhere deletes every object of class that w matches.
func (x *Index) deleteWhere(ctx context.Context, class string, w *where) error {
	path := "/v1/batch/objects?consistency_level=" + x.cfg.Consistency + "&tenant=" + url.QueryEscape(x.cfg.Tenant)
	failures := 0
	for range 1000 {
		var resp struct {
			Results struct {
				Matches    int `json:"matches"`
				Failed     int `json:"failed"`
				Successful int `json:"successful"`
				Objects    []struct {
					ID     string `json:"id"`
					Errors *struct {
						Error []struct {
							Message string `json:"message"`
						} `json:"error"`
					} `json:"errors"`
				} `json:"objects"`
			} `json:"results"`
		}
		// The deletion's time goes with it: without one Weaviate leaves a
		// tombstone with no time, which TimeBasedResolution takes for the
		// oldest of events, so a replica that was down during the deletion
		// and still holds the object writes it back to the others.
		body := map[string]any{"match": map[string]any{"class": class, "where": w}, "output": "minimal",
			"deletionTimeUnixMilli": time.Now().UnixMilli()}
		if err := x.c.do(ctx, http.MethodDelete, path, body, &resp); err != nil {
			return fmt.Errorf("weaviate: delete from %s: %w", class, err)
		}
		if resp.Results.Failed > 0 && failures < writeTries {
			// A node joining or leaving: deleting again is safe.
			failures++
			sleep(ctx, time.Duration(failures)*300*time.Millisecond)
			continue
		}
		if resp.Results.Failed > 0 {
			msg := ""
			for _, o := range resp.Results.Objects {
				if o.Errors != nil && len(o.Errors.Error) > 0 {
					msg = ": " + o.Errors.Error[0].Message
					break
				}
			}
			return fmt.Errorf("weaviate: delete from %s: %d of %d failed%s", class, resp.Results.Failed, resp.Results.Matches, msg)
		}
		if resp.Results.Matches < deleteLimit {
			return nil
		}
	}
	return fmt.Errorf("weaviate: delete from %s: still matching after 1000 rounds", class)
}

// Delete removes documents from every collection: their chunks first, their
// record last.
func (x *Index) Delete(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	for start := 0; start < len(ids); start += 500 {
		part := ids[start:min(start+500, len(ids))]
		w := containsAny(propDocID, part)
		for _, c := range x.classes() { // the documents' collection last
			if err := x.deleteWhere(ctx, c, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// Versions lists the documents' collection with Weaviate's cursor, at the
// configured consistency level.
func (x *Index) Versions(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	after := ""
	for {
		cursor := ""
		if after != "" {
			cursor = ", after: " + gqlString(after)
		}
		q := fmt.Sprintf(`{Get{%s(tenant: %s%s, limit: 1000%s){%s %s _additional{id}}}}`,
			x.docsClass(), gqlString(x.cfg.Tenant), x.consistencyArg(), cursor, propDocID, propVersion)
		var data struct {
			Get map[string][]struct {
				DocID      string `json:"doc_id"`
				Version    int    `json:"version"`
				Additional struct {
					ID string `json:"id"`
				} `json:"_additional"`
			}
		}
		if err := x.c.graphql(ctx, q, &data); err != nil {
			return nil, fmt.Errorf("weaviate: list documents: %w", err)
		}
		rows := data.Get[x.docsClass()]
		for _, r := range rows {
			out[r.DocID] = r.Version
		}
		if len(rows) < 1000 {
			return out, nil
		}
		after = rows[len(rows)-1].Additional.ID
	}
}

// consistencyArg is the GraphQL consistency argument, which Weaviate takes
// only on replicated collections.
func (x *Index) consistencyArg() string {
	if x.cfg.Replication > 1 {
		return ", consistencyLevel: " + x.cfg.Consistency
	}
	return ""
}

type hitRow struct {
	DocID      string `json:"doc_id"`
	Chunk      int    `json:"chunk"`
	Additional struct {
		Score    json.RawMessage `json:"score"`
		Distance *float64        `json:"distance"`
	} `json:"_additional"`
}

// get runs one Get query on class with search (bm25:, nearVector:, hybrid:)
// and the filter.
func (x *Index) get(ctx context.Context, class, search string, k int, f driver.Filter, distance bool) ([]driver.BackendHit, error) {
	w, none, err := filterWhere(f, func(p string) bool { return x.hasProp(class, p) })
	if err != nil {
		return nil, err
	}
	if none || k <= 0 {
		return nil, nil
	}
	args := fmt.Sprintf("tenant: %s%s, limit: %d, %s", gqlString(x.cfg.Tenant), x.consistencyArg(), k, search)
	if w != nil {
		args += ", where: " + w.gql()
	}
	add := "score"
	if distance {
		add = "distance"
	}
	q := fmt.Sprintf(`{Get{%s(%s){%s %s _additional{%s}}}}`, class, args, propDocID, propChunk, add)
	var data struct {
		Get map[string][]hitRow
	}
	if err := x.c.graphql(ctx, q, &data); err != nil {
		return nil, err
	}
	rows := data.Get[class]
	out := make([]driver.BackendHit, 0, len(rows))
	for _, r := range rows {
		h := driver.BackendHit{DocID: r.DocID, Chunk: r.Chunk}
		if distance {
			if r.Additional.Distance != nil {
				h.Score = 1 - *r.Additional.Distance
			}
		} else {
			s := strings.Trim(string(r.Additional.Score), `"`)
			if h.Score, err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("weaviate: score %q of %s#%d: %w", s, r.DocID, r.Chunk, err)
			}
			// Weaviate's BM25 can score below zero: TestFaultNodeDown saw
			// -0.0018 for a term in every object once objects had been
			// replaced (its idf, log(1 + (N-n+0.5)/(n+0.5)), is negative
			// when the document frequency n exceeds the object count N,
			// as when n still counts replaced objects). situate's idf never
			// is, and its ranking refuses negative scores: count it zero.
			h.Score = max(h.Score, 0)
		}
		out = append(out, h)
	}
	return out, nil
}

// sortHits orders by score, then by chunk key (situate's tie order).
func sortHits(h []driver.BackendHit) {
	slices.SortStableFunc(h, func(a, b driver.BackendHit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.DocID+"#"+strconv.Itoa(a.Chunk), b.DocID+"#"+strconv.Itoa(b.Chunk))
	})
}

// SearchVector is a nearVector query on the chunks' collection.
func (x *Index) SearchVector(ctx context.Context, v []float32, k int, f driver.Filter) ([]driver.BackendHit, error) {
	b, _ := json.Marshal(v)
	hits, err := x.get(ctx, x.chunksClass(), "nearVector: {vector: "+string(b)+"}", k, f, true)
	if err != nil {
		return nil, fmt.Errorf("weaviate: vector search: %w", err)
	}
	sortHits(hits)
	return hits, nil
}

// Native reports whether Config.Native is set.
func (x *Index) Native() bool { return x.cfg.Native }

// SearchNative ranks with Weaviate's own tokenizer and hybrid fusion.
func (x *Index) SearchNative(ctx context.Context, q driver.NativeQuery) ([]driver.BackendHit, error) {
	class := x.chunksClass()
	switch q.Mode {
	case driver.ModeDense:
		return x.SearchVector(ctx, q.Vector, q.K, q.Filter)
	case driver.ModeHybrid:
		alpha := 0.5
		if s := q.DenseWeight + q.LexicalWeight; s > 0 {
			alpha = q.DenseWeight / s
		}
		b, _ := json.Marshal(q.Vector)
		search := fmt.Sprintf("hybrid: {query: %s, vector: %s, alpha: %g, fusionType: relativeScoreFusion, properties: [%s]}",
			gqlString(q.Text), b, alpha, gqlString(nativeProp))
		return x.get(ctx, class, search, q.K, q.Filter, false)
	default:
		search := fmt.Sprintf("bm25: {query: %s, properties: [%s]}", gqlString(q.Text), gqlString(nativeProp))
		return x.get(ctx, class, search, q.K, q.Filter, false)
	}
}

// Close drops the tenant when Config.DropOnClose is set.
func (x *Index) Close() error {
	if !x.cfg.DropOnClose {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var err error
	for _, c := range x.classes() {
		if e := x.c.do(ctx, http.MethodDelete, "/v1/schema/"+c+"/tenants", []string{x.cfg.Tenant}, nil); e != nil && !isStatus(e, http.StatusNotFound) {
			err = errors.Join(err, fmt.Errorf("weaviate: drop tenant %s of %s: %w", x.cfg.Tenant, c, e))
		}
	}
	return err
}
