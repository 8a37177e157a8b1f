package httpapi

import (
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// The JSON shapes of the API. openapi.json describes each of them; the API
// tests validate every request and response against it.

// SearchRequest is the body of POST /v1/search.
type SearchRequest struct {
	Query string `json:"query"`
	// K is the number of results (1..Limits.MaxK; 0 means situate.DefaultK).
	K int `json:"k,omitempty"`
	// Mode is bm25, dense or hybrid ("" picks the engine's default).
	Mode    string  `json:"mode,omitempty"`
	Rerank  bool    `json:"rerank,omitempty"`
	Explain bool    `json:"explain,omitempty"`
	Filters *Filter `json:"filters,omitempty"`
}

// SearchResponse is the result of a search: the shape `situate search
// --json` prints too.
type SearchResponse struct {
	Query   string         `json:"query"`
	Results []SearchResult `json:"results"`
}

// SearchResult is one hit: the ORIGINAL chunk text, with the generated
// context apart and labelled with what wrote it.
type SearchResult struct {
	Rank           int          `json:"rank"`
	Doc            string       `json:"doc"`
	Chunk          int          `json:"chunk"`
	Text           string       `json:"text"`
	Context        string       `json:"context"`
	Contextualizer string       `json:"contextualizer"`
	Flags          []string     `json:"flags,omitempty"`
	Score          float64      `json:"score"`
	Heading        string       `json:"heading"`
	Title          string       `json:"title,omitempty"`
	Explain        *Explanation `json:"explain,omitempty"`
}

// Explanation is how a result was ranked: its rank and score in each arm,
// the fused score and the reranker's (situate.Explanation).
type Explanation = situate.Explanation

// NewSearchResponse turns hits into the response shape.
func NewSearchResponse(query string, hits []situate.Hit) SearchResponse {
	out := SearchResponse{Query: query, Results: make([]SearchResult, 0, len(hits))}
	for _, h := range hits {
		out.Results = append(out.Results, SearchResult{Rank: h.Rank, Doc: h.DocID, Chunk: h.Chunk, Text: h.Text,
			Context: h.Context.Text, Contextualizer: h.Context.Source, Flags: h.Context.Flags, Score: h.Score,
			Heading: h.Heading, Title: h.Title, Explain: h.Explain})
	}
	return out
}

// NewDocument turns a document's record into the response shape (without
// chunks), as GET /v1/documents lists it.
func NewDocument(rec situate.DocumentRecord) Document { return documentView(rec) }

// DocumentRequest is the JSON body of an upsert (PUT /v1/documents/{id}) or
// a create (POST /v1/documents, with ID); in a multipart upload it is the
// "document" part beside the "file" part, without Text.
type DocumentRequest struct {
	ID    string `json:"id,omitempty"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text,omitempty"`
	// Format is text, markdown, html or code ("" sniffs it).
	Format   string   `json:"format,omitempty"`
	Lang     string   `json:"lang,omitempty"`
	Metadata Metadata `json:"metadata,omitempty"`
	// Access lists the principals and groups allowed to read the document;
	// empty means everyone in the tenant.
	Access []string `json:"access,omitempty"`
}

// UpsertResponse acknowledges a stored upsert: the source is durable and
// a job will index it.
type UpsertResponse struct {
	Document string  `json:"document"`
	Job      JobView `json:"job"`
}

// Document is a document's record, with its chunks when asked.
type Document struct {
	ID        string            `json:"id"`
	Title     string            `json:"title"`
	Format    string            `json:"format"`
	Lang      string            `json:"lang"`
	Metadata  map[string]string `json:"metadata"`
	Access    []string          `json:"access"`
	Version   int               `json:"version"`
	Chunks    int               `json:"chunks"`
	IndexedAt time.Time         `json:"indexed_at"`
	// Contexts counts chunks by what wrote their context; Flagged counts
	// contexts that failed a check (only with chunks).
	Flagged   int         `json:"flagged,omitempty"`
	ChunkList []ChunkView `json:"chunk_list,omitempty"`
}

// ChunkView is one chunk with its context.
type ChunkView struct {
	Index          int      `json:"index"`
	Start          int      `json:"start"`
	End            int      `json:"end"`
	Heading        string   `json:"heading"`
	Text           string   `json:"text"`
	Context        string   `json:"context"`
	Contextualizer string   `json:"contextualizer"`
	Flags          []string `json:"flags,omitempty"`
}

// DocumentList is one page of documents.
type DocumentList struct {
	Documents []Document `json:"documents"`
	// Next is the cursor of the next page ("" on the last page).
	Next string `json:"next,omitempty"`
}

// JobView is a job's status.
type JobView struct {
	ID       int64  `json:"id"`
	Document string `json:"document"`
	// State is queued, running, done or failed.
	State      string     `json:"state"`
	Error      string     `json:"error,omitempty"`
	Attempts   int        `json:"attempts"`
	Change     string     `json:"change,omitempty"`
	Chunks     int        `json:"chunks"`
	ChunksDone int        `json:"chunks_done"`
	Calls      int        `json:"calls"`
	Tokens     int        `json:"tokens"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

func jobView(j driver.Job) JobView {
	v := JobView{ID: j.ID, Document: j.DocID, State: j.State, Error: j.Error, Attempts: j.Attempts, Change: j.Change,
		Chunks: j.Chunks, ChunksDone: j.ChunksDone, Calls: j.Calls, Tokens: j.Tokens, CreatedAt: j.CreatedAt}
	if !j.StartedAt.IsZero() {
		t := j.StartedAt
		v.StartedAt = &t
	}
	if !j.FinishedAt.IsZero() {
		t := j.FinishedAt
		v.FinishedAt = &t
	}
	return v
}

// Status is GET /v1/status: what the caller may see of its tenant.
type Status struct {
	Tenant     string         `json:"tenant"`
	Documents  int            `json:"documents"`
	Chunks     int            `json:"chunks"`
	Languages  map[string]int `json:"languages"`
	Principals []string       `json:"principals"`
	Admin      bool           `json:"admin"`
	// Write: the key may upsert and delete documents.
	Write bool `json:"write"`
	// Jobs counts the tenant's jobs by state (administrators only).
	Jobs map[string]int `json:"jobs,omitempty"`
	// Contextualizer and Embedder name what the tenant's engine uses.
	Contextualizer string `json:"contextualizer"`
	Embedder       string `json:"embedder,omitempty"`
	Reranker       string `json:"reranker,omitempty"`
}

// ErrorResponse is every error's body.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody says what went wrong and, for bad input, which field.
type ErrorBody struct {
	// Code is bad_request, unauthenticated, forbidden, not_found, conflict,
	// too_large, unsupported_media_type, rate_limited, timeout, unavailable,
	// overloaded (a search that waited too long for its turn) or internal.
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	// RequestID is the X-Request-Id of the request, also in the logs.
	RequestID string `json:"request_id,omitempty"`
}
