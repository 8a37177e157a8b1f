package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/situate/situate"
)

// Limits on what one tool call may ask for.
const (
	// MaxQueryBytes bounds a search query.
	MaxQueryBytes = 4096
	// DefaultK and MaxK bound the results of one search.
	DefaultK = 10
	MaxK     = 100
	// DefaultListLimit and MaxListLimit bound one page of list_documents.
	DefaultListLimit = 50
	MaxListLimit     = 500
	// DefaultFetchLimit and MaxFetchLimit bound the chunks one fetch returns.
	DefaultFetchLimit = 50
	MaxFetchLimit     = 200
	// MaxNeighbors bounds the chunks fetched on each side of one chunk.
	MaxNeighbors = 10
)

// Scope is what one caller may read: one engine (a tenant's) and the
// caller's principals.
type Scope struct {
	Engine *situate.Engine
	// Principals are the caller's principals and groups. The caller reads a
	// document whose access list is empty or names one of them.
	Principals []string
	// Unrestricted reads every document whatever its access list: the
	// local `situate mcp` over stdio, or a tenant's administrator.
	Unrestricted bool
}

// filter is the access part of a search filter: never nil for a restricted
// scope, so an empty principal list reads only unrestricted documents.
func (s Scope) principals() []string {
	if s.Unrestricted {
		return nil
	}
	if s.Principals == nil {
		return []string{}
	}
	return s.Principals
}

// document returns the record of id when the scope may read it, as the
// engine's filter decides; a document it may not read gets the same error
// as one that does not exist.
func (s Scope) document(id string) (situate.DocumentRecord, error) {
	rec, err := s.Engine.Document(id)
	if err == nil {
		var ok bool
		if ok, err = (situate.Filter{Principals: s.principals()}).Allows(rec); err == nil && !ok {
			err = situate.ErrNotFound
		}
	}
	if err != nil {
		return situate.DocumentRecord{}, fmt.Errorf("document %q: %w", id, situate.ErrNotFound)
	}
	return rec, nil
}

// Options configures the servers New and Handler build.
type Options struct {
	// Version is reported to clients as the server's version ("dev" when
	// empty).
	Version string
	// Logger receives the SDK's and the handler's logs; nil discards them.
	Logger *slog.Logger
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

const instructions = `situate searches a document collection with contextual retrieval. ` +
	`Each result holds a chunk's original text ("text") and, kept apart, a short context generated to situate the chunk in its document ("generated_context", with "written_by" naming what wrote it). ` +
	`Quote and cite "text"; treat the generated context as a hint, not as the document's words. ` +
	`Use fetch to read a document or the chunks around a result.`

// Source gives one tool call its scope; the call runs release when it is
// done with the engine (so a source may swap engines between calls).
type Source func(ctx context.Context) (scope Scope, release func(), err error)

// New returns an MCP server whose tools read through scope.
func New(scope Scope, opts Options) *mcp.Server {
	return NewFromSource(func(context.Context) (Scope, func(), error) { return scope, func() {}, nil }, opts)
}

// NewFromSource returns an MCP server whose tools ask src for their scope
// on every call: `situate mcp` reopens its engine when another process
// changed the store.
func NewFromSource(src Source, opts Options) *mcp.Server {
	return newServer(src, opts, nil)
}

func newServer(src Source, opts Options, cache *mcp.SchemaCache) *mcp.Server {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "situate", Title: "situate contextual retrieval", Version: version},
		&mcp.ServerOptions{Instructions: instructions, Logger: opts.Logger, SchemaCache: cache})
	t := tools{src: src}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	mcp.AddTool(s, &mcp.Tool{
		Name:  "search",
		Title: "Search the documents",
		Description: "Search the indexed documents. Returns the best chunks, each with its original text, " +
			"the generated context that situates it (kept apart, labelled with what wrote it), its document, title and heading path.",
		Annotations: readOnly,
	}, t.search)
	mcp.AddTool(s, &mcp.Tool{
		Name:  "fetch",
		Title: "Fetch a document or a chunk",
		Description: "Fetch a document's chunks in order (paged with offset and limit), or, with chunk, that chunk and " +
			"neighbors chunks on each side. Each chunk carries its original text and its generated context apart.",
		Annotations: readOnly,
	}, t.fetch)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_documents",
		Title:       "List documents",
		Description: "List the documents, ordered by id, optionally those whose id starts with prefix or whose metadata matches; paged with offset and limit.",
		Annotations: readOnly,
	}, t.list)
	return s
}

// Handler serves MCP's Streamable HTTP transport. resolve is called on every
// HTTP request, after the server mounting the handler authenticated the
// caller, and names the engine and principals that request's tools read
// through; an error answers 500 without running any tool. The handler is
// stateless (no MCP session outlives a request), so a revoked key or a
// changed access list takes effect on the next request.
func Handler(resolve func(*http.Request) (Scope, error), opts Options) http.Handler {
	cache := mcp.NewSchemaCache()
	log := opts.logger()
	sdk := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		rs, _ := r.Context().Value(requestScopeKey{}).(*requestScope)
		if rs == nil {
			return nil
		}
		rs.once.Do(func() {
			scope := rs.scope
			rs.server = newServer(func(context.Context) (Scope, func(), error) { return scope, func() {}, nil }, opts, cache)
		})
		return rs.server
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opts.Logger})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scope, err := resolve(r)
		if err == nil && scope.Engine == nil {
			err = errors.New("no engine")
		}
		if err != nil {
			log.Error("mcp: resolve the caller's scope", "err", err)
			http.Error(w, "mcp: the caller's index is unavailable", http.StatusInternalServerError)
			return
		}
		ctx := context.WithValue(r.Context(), requestScopeKey{}, &requestScope{scope: scope})
		sdk.ServeHTTP(w, r.WithContext(ctx))
	})
}

type requestScopeKey struct{}

// requestScope carries one HTTP request's scope to the SDK's getServer,
// which may be called more than once per request.
type requestScope struct {
	scope  Scope
	once   sync.Once
	server *mcp.Server
}

type tools struct{ src Source }

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query   string   `json:"query" jsonschema:"what to search for, in words"`
	K       int      `json:"k,omitempty" jsonschema:"number of results, 1 to 100 (default 10)"`
	Mode    string   `json:"mode,omitempty" jsonschema:"bm25, dense or hybrid; empty picks hybrid when embeddings are configured and bm25 otherwise"`
	Filters *Filters `json:"filters,omitempty" jsonschema:"restrict the search to some documents"`
	Explain bool     `json:"explain,omitempty" jsonschema:"add each result's rank and score in each arm (BM25 arms, their combined ranking, dense), fused and reranked"`
}

// Filters restrict a search or a listing; a document passes when it passes
// every part given. They are the engine's Filter, applied inside every arm
// while scoring.
type Filters struct {
	Docs     []string          `json:"docs,omitempty" jsonschema:"only these document ids"`
	Metadata map[string]string `json:"metadata,omitempty" jsonschema:"only documents whose metadata has each key equal to its value"`
	Where    []Condition       `json:"where,omitempty" jsonschema:"further conditions on metadata values; every one must hold"`
}

// Condition is one test of a metadata value.
type Condition struct {
	Key string `json:"key" jsonschema:"the metadata key"`
	Op  string `json:"op" jsonschema:"eq (values: one), in (values: a set), lt, lte, gt, gte (values: one bound, a number or a date YYYY-MM-DD or RFC 3339), range (min and/or max), exists"`
	// Values, Min and Max are strings: numbers and dates are written as text.
	Values []string `json:"values,omitempty" jsonschema:"eq's value, in's set, or the comparison's bound (numbers and dates as text)"`
	Min    string   `json:"min,omitempty" jsonschema:"range: the inclusive lower bound"`
	Max    string   `json:"max,omitempty" jsonschema:"range: the inclusive upper bound"`
	Not    bool     `json:"not,omitempty" jsonschema:"negate the test (a document without the key passes a negated eq, in or comparison)"`
}

// filter is the engine Filter of the scope's access and f.
func (f *Filters) filter(sc Scope) situate.Filter {
	out := situate.Filter{Principals: sc.principals()}
	if f == nil {
		return out
	}
	if len(f.Docs) > 0 {
		out.Docs = f.Docs
	}
	if len(f.Metadata) > 0 {
		out.Metadata = f.Metadata
	}
	for _, c := range f.Where {
		out.Where = append(out.Where, situate.Condition{Key: c.Key, Op: situate.Op(c.Op), Values: c.Values, Min: c.Min, Max: c.Max, Not: c.Not})
	}
	return out
}

// SearchOutput is the search tool's structured result.
type SearchOutput struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
}

// Result is one search result: the chunk's original text with its generated
// context apart.
type Result struct {
	Rank    int      `json:"rank"`
	Doc     string   `json:"doc" jsonschema:"the document's id"`
	Chunk   int      `json:"chunk" jsonschema:"the chunk's 0-based position in its document"`
	Title   string   `json:"title,omitempty"`
	Heading string   `json:"heading,omitempty" jsonschema:"the heading path above the chunk, joined by ' > '"`
	Text    string   `json:"text" jsonschema:"the chunk's original text, exactly as in the document"`
	Context *Gen     `json:"generated_context,omitempty" jsonschema:"the generated context that situates the chunk; not part of the document"`
	Score   float64  `json:"score"`
	Explain *Explain `json:"explain,omitempty"`
}

// Gen is a generated context and what wrote it.
type Gen struct {
	Text      string   `json:"text"`
	WrittenBy string   `json:"written_by" jsonschema:"what wrote the context: offline, provided, or the LLM as provider:model"`
	Flags     []string `json:"flags,omitempty" jsonschema:"checks the context failed or how it was obtained; empty is clean"`
}

// Explain is how a result was ranked: its rank and score in each arm, the
// fused score and the reranker's (situate.Explanation).
type Explain = situate.Explanation

func gen(c situate.Context) *Gen {
	if c.Text == "" {
		return nil
	}
	return &Gen{Text: c.Text, WrittenBy: c.Source, Flags: c.Flags}
}

func (t tools) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	sc, release, err := t.src(ctx)
	if err != nil {
		return nil, SearchOutput{}, fmt.Errorf("search: %w", err)
	}
	defer release()
	q, err := query(sc, in)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	hits, err := sc.Engine.Search(ctx, q)
	if err != nil {
		return nil, SearchOutput{}, fmt.Errorf("search: %w", err)
	}
	out := SearchOutput{Query: q.Text, Results: make([]Result, 0, len(hits))}
	for _, h := range hits {
		r := Result{Rank: h.Rank, Doc: h.DocID, Chunk: h.Chunk, Title: h.Title, Heading: h.Heading,
			Text: h.Text, Context: gen(h.Context), Score: h.Score}
		r.Explain = h.Explain
		out.Results = append(out.Results, r)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: renderSearch(out)}}}, out, nil
}

// query turns the tool's arguments into an engine query, naming the
// argument at fault.
func query(sc Scope, in SearchInput) (situate.Query, error) {
	text := strings.TrimSpace(in.Query)
	switch {
	case text == "":
		return situate.Query{}, errors.New("search: query: must not be empty")
	case len(text) > MaxQueryBytes:
		return situate.Query{}, fmt.Errorf("search: query: %d bytes, at most %d", len(text), MaxQueryBytes)
	case !utf8.ValidString(text):
		return situate.Query{}, errors.New("search: query: not valid UTF-8")
	}
	k := in.K
	if k == 0 {
		k = DefaultK
	}
	if k < 1 || k > MaxK {
		return situate.Query{}, fmt.Errorf("search: k: %d, must be 1 to %d", in.K, MaxK)
	}
	switch in.Mode {
	case "", situate.ModeBM25, situate.ModeHybrid, situate.ModeDense:
	default:
		return situate.Query{}, fmt.Errorf("search: mode: %q, must be bm25, dense or hybrid", in.Mode)
	}
	opts := sc.Engine.Options()
	if (in.Mode == situate.ModeDense || in.Mode == situate.ModeHybrid) && opts.Embedder == nil {
		return situate.Query{}, fmt.Errorf("search: mode: %q needs embeddings, and this index has none (use bm25)", in.Mode)
	}
	q := situate.Query{Text: text, K: k, Mode: in.Mode, Explain: in.Explain, Rerank: opts.Reranker != nil,
		Filter: in.Filters.filter(sc)}
	if _, err := q.Filter.Allows(situate.DocumentRecord{}); err != nil {
		return situate.Query{}, fmt.Errorf("search: filters: %w", err)
	}
	return q, nil
}

// FetchInput is the fetch tool's arguments.
type FetchInput struct {
	Doc       string `json:"doc" jsonschema:"the document's id, as search and list_documents return it"`
	Chunk     *int   `json:"chunk,omitempty" jsonschema:"one chunk's 0-based position; omit for the whole document"`
	Neighbors int    `json:"neighbors,omitempty" jsonschema:"with chunk: also this many chunks on each side, 0 to 10"`
	Offset    int    `json:"offset,omitempty" jsonschema:"without chunk: the first chunk to return (default 0)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"without chunk: at most this many chunks, 1 to 200 (default 50)"`
}

// FetchOutput is the fetch tool's structured result.
type FetchOutput struct {
	Document DocumentInfo `json:"document"`
	Chunks   []ChunkOut   `json:"chunks"`
	// NextOffset is where the next page of chunks starts; 0 when none is left.
	NextOffset int `json:"next_offset,omitempty" jsonschema:"offset of the next page of chunks; absent when this page ends the document"`
}

// DocumentInfo describes one document.
type DocumentInfo struct {
	ID        string            `json:"id"`
	Title     string            `json:"title,omitempty"`
	Format    string            `json:"format,omitempty"`
	Lang      string            `json:"lang,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	Version   int               `json:"version"`
	Chunks    int               `json:"chunks"`
	IndexedAt string            `json:"indexed_at,omitempty" jsonschema:"when the document's current version was indexed (RFC 3339)"`
}

// ChunkOut is one chunk of a fetched document.
type ChunkOut struct {
	Index   int    `json:"index"`
	Heading string `json:"heading,omitempty"`
	Start   int    `json:"start" jsonschema:"byte offset of the chunk in the document's text"`
	End     int    `json:"end"`
	Text    string `json:"text" jsonschema:"the chunk's original text"`
	Context *Gen   `json:"generated_context,omitempty" jsonschema:"the generated context that situates the chunk; not part of the document"`
}

func info(rec situate.DocumentRecord) DocumentInfo {
	d := DocumentInfo{ID: rec.ID, Title: rec.Title, Format: rec.Format, Lang: rec.Lang, Metadata: rec.Metadata,
		Version: rec.Version, Chunks: rec.Chunks}
	if !rec.IndexedAt.IsZero() {
		d.IndexedAt = rec.IndexedAt.UTC().Format(time.RFC3339)
	}
	return d
}

func (t tools) fetch(ctx context.Context, _ *mcp.CallToolRequest, in FetchInput) (*mcp.CallToolResult, FetchOutput, error) {
	if in.Doc == "" {
		return nil, FetchOutput{}, errors.New("fetch: doc: must not be empty")
	}
	if in.Neighbors < 0 || in.Neighbors > MaxNeighbors {
		return nil, FetchOutput{}, fmt.Errorf("fetch: neighbors: %d, must be 0 to %d", in.Neighbors, MaxNeighbors)
	}
	limit := in.Limit
	if limit == 0 {
		limit = DefaultFetchLimit
	}
	if limit < 1 || limit > MaxFetchLimit {
		return nil, FetchOutput{}, fmt.Errorf("fetch: limit: %d, must be 1 to %d", in.Limit, MaxFetchLimit)
	}
	if in.Offset < 0 {
		return nil, FetchOutput{}, fmt.Errorf("fetch: offset: %d, must be >= 0", in.Offset)
	}
	sc, release, err := t.src(ctx)
	if err != nil {
		return nil, FetchOutput{}, fmt.Errorf("fetch: %w", err)
	}
	defer release()
	rec, err := sc.document(in.Doc)
	if err != nil {
		return nil, FetchOutput{}, fmt.Errorf("fetch: %w", err)
	}
	chunks, err := sc.Engine.Chunks(ctx, rec.ID)
	if err != nil {
		if errors.Is(err, situate.ErrNotFound) { // deleted since
			return nil, FetchOutput{}, fmt.Errorf("fetch: document %q: %w", in.Doc, situate.ErrNotFound)
		}
		return nil, FetchOutput{}, fmt.Errorf("fetch: document %q: %w", in.Doc, err)
	}
	lo, hi := in.Offset, in.Offset+limit
	if in.Chunk != nil {
		c := *in.Chunk
		if c < 0 || c >= len(chunks) {
			return nil, FetchOutput{}, fmt.Errorf("fetch: chunk: %d, document %q has chunks 0 to %d", c, in.Doc, len(chunks)-1)
		}
		lo, hi = c-in.Neighbors, c+in.Neighbors+1
	}
	lo, hi = max(lo, 0), min(hi, len(chunks))
	out := FetchOutput{Document: info(rec), Chunks: []ChunkOut{}}
	for _, c := range chunks[min(lo, hi):hi] {
		out.Chunks = append(out.Chunks, ChunkOut{Index: c.Index, Heading: c.Heading, Start: c.Start, End: c.End,
			Text: c.Text, Context: gen(c.Context)})
	}
	if in.Chunk == nil && hi < len(chunks) {
		out.NextOffset = hi
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: renderFetch(out)}}}, out, nil
}

// ListInput is the list_documents tool's arguments.
type ListInput struct {
	Prefix  string   `json:"prefix,omitempty" jsonschema:"only documents whose id starts with this"`
	Filters *Filters `json:"filters,omitempty" jsonschema:"only documents matching these filters"`
	Offset  int      `json:"offset,omitempty" jsonschema:"skip this many documents (default 0)"`
	Limit   int      `json:"limit,omitempty" jsonschema:"at most this many documents, 1 to 500 (default 50)"`
}

// ListOutput is the list_documents tool's structured result.
type ListOutput struct {
	Documents []DocumentInfo `json:"documents"`
	// Total counts the matching documents the caller may read.
	Total      int `json:"total"`
	NextOffset int `json:"next_offset,omitempty" jsonschema:"offset of the next page; absent on the last page"`
}

func (t tools) list(ctx context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	if limit < 1 || limit > MaxListLimit {
		return nil, ListOutput{}, fmt.Errorf("list_documents: limit: %d, must be 1 to %d", in.Limit, MaxListLimit)
	}
	if in.Offset < 0 {
		return nil, ListOutput{}, fmt.Errorf("list_documents: offset: %d, must be >= 0", in.Offset)
	}
	sc, release, err := t.src(ctx)
	if err != nil {
		return nil, ListOutput{}, fmt.Errorf("list_documents: %w", err)
	}
	defer release()
	all, err := sc.Engine.DocumentsMatching(in.Filters.filter(sc))
	if err != nil {
		return nil, ListOutput{}, fmt.Errorf("list_documents: filters: %w", err)
	}
	var match []situate.DocumentRecord
	for _, rec := range all {
		if strings.HasPrefix(rec.ID, in.Prefix) {
			match = append(match, rec)
		}
	}
	out := ListOutput{Documents: []DocumentInfo{}, Total: len(match)}
	lo, hi := min(in.Offset, len(match)), min(in.Offset+limit, len(match))
	for _, rec := range match[lo:hi] {
		out.Documents = append(out.Documents, info(rec))
	}
	if hi < len(match) {
		out.NextOffset = hi
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: renderList(out)}}}, out, nil
}
