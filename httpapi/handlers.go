package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// ErrUnsupportedFormat is what a Parser's error matches for a file format
// it cannot read (the upload gets 415).
var ErrUnsupportedFormat = errors.New("httpapi: unsupported document format")

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	if e := requireJSON(r); e != nil {
		return e
	}
	body, e := readBody(w, r, s.limits.MaxBodyBytes)
	if e != nil {
		return e
	}
	var req SearchRequest
	if e := decodeJSON(body, &req, "filters"); e != nil {
		return e
	}
	if e := s.validateSearch(&req, c); e != nil {
		return e
	}
	if lexicalOnly(&req, c.Engine().Options()) {
		release, e := s.search.enter(r.Context())
		if e != nil {
			if e.code == "overloaded" {
				w.Header().Set("Retry-After", "1")
			}
			return e
		}
		defer release()
	}
	hits, err := c.Engine().Search(r.Context(), situate.Query{Text: req.Query, K: req.K, Mode: req.Mode,
		Rerank: req.Rerank, Explain: req.Explain, Filter: engineFilter(c, req.Filters)})
	if err != nil {
		return fromError(err)
	}
	writeJSON(w, http.StatusOK, NewSearchResponse(req.Query, hits))
	return nil
}

// lexicalOnly reports whether a search is BM25 only, without a reranker:
// all processor work, which the search queue bounds. A search that calls
// an embedder or a reranker waits on them most of its time and is not
// queued: holding a slot through a network call would idle the processors.
func lexicalOnly(req *SearchRequest, opts situate.Options) bool {
	if req.Rerank {
		return false
	}
	switch req.Mode {
	case situate.ModeBM25:
		return true
	case "":
		return opts.Embedder == nil // the default mode is hybrid with one
	}
	return false
}

func (s *Server) validateSearch(req *SearchRequest, c *Caller) *apiError {
	switch {
	case strings.TrimSpace(req.Query) == "":
		return badField("query", "must not be empty")
	case len(req.Query) > s.limits.MaxQueryBytes:
		return badField("query", fmt.Sprintf("longer than %d bytes", s.limits.MaxQueryBytes))
	case req.K < 0 || req.K > s.limits.MaxK:
		return badField("k", fmt.Sprintf("must be in [1, %d] (0 or absent means %d), got %d", s.limits.MaxK, situate.DefaultK, req.K))
	}
	// The rest is the Engine's to say (situate.Engine.CheckQuery), before
	// the search queues for a slot.
	var qe *situate.QueryError
	if err := c.Engine().CheckQuery(situate.Query{Text: req.Query, Mode: req.Mode, Rerank: req.Rerank}); errors.As(err, &qe) {
		return badField(qe.Field, qe.Problem)
	} else if err != nil {
		return fromError(err)
	}
	return req.Filters.validate("filters")
}

// docID reads and checks the {id...} path value.
func docID(r *http.Request) (string, *apiError) {
	id := r.PathValue("id")
	if err := validDocID(id); err != nil {
		return "", badField("id", err.Error())
	}
	return id, nil
}

// readable returns the record of a document the caller may read; one it
// may not read is not found, exactly like one that does not exist.
func readable(c *Caller, id string) (situate.DocumentRecord, *apiError) {
	rec, err := c.Engine().Document(id)
	if err != nil || !c.CanRead(rec.Access) {
		return situate.DocumentRecord{}, notFound("document")
	}
	return rec, nil
}

func documentView(rec situate.DocumentRecord) Document {
	d := Document{ID: rec.ID, Title: rec.Title, Format: rec.Format, Lang: rec.Lang, Metadata: rec.Metadata,
		Access: rec.Access, Version: rec.Version, Chunks: rec.Chunks, IndexedAt: rec.IndexedAt}
	if d.Metadata == nil {
		d.Metadata = map[string]string{}
	}
	if d.Access == nil {
		d.Access = []string{}
	}
	return d
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	id, e := docID(r)
	if e != nil {
		return e
	}
	rec, e := readable(c, id)
	if e != nil {
		return e
	}
	d := documentView(rec)
	switch v := r.URL.Query().Get("chunks"); v {
	case "", "false", "0":
	case "true", "1":
		chunks, err := c.Engine().Chunks(r.Context(), id)
		if err != nil {
			return fromError(err)
		}
		d.ChunkList = make([]ChunkView, len(chunks))
		for i, ch := range chunks {
			d.ChunkList[i] = ChunkView{Index: ch.Index, Start: ch.Start, End: ch.End, Heading: ch.Heading, Text: ch.Text,
				Context: ch.Context.Text, Contextualizer: ch.Context.Source, Flags: ch.Context.Flags}
			if len(ch.Context.Flags) > 0 {
				d.Flagged++
			}
		}
	default:
		return badField("chunks", fmt.Sprintf("%q: want true or false", truncate(v, 20)))
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	q := r.URL.Query()
	for k := range q {
		if k != "limit" && k != "cursor" && k != "filter" {
			return badField(k, "unknown query parameter (want limit, cursor or filter)")
		}
	}
	limit := DefaultListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > s.limits.MaxListLimit {
			return badField("limit", fmt.Sprintf("want an integer in [1, %d], got %q", s.limits.MaxListLimit, truncate(v, 20)))
		}
		limit = n
	}
	after := ""
	if v := q.Get("cursor"); v != "" {
		b, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || !utf8.Valid(b) {
			return badField("cursor", "not a cursor this server returned")
		}
		after = string(b)
	}
	var f *Filter
	if v := q.Get("filter"); v != "" {
		f = &Filter{}
		if e := decodeJSON([]byte(v), f, "filter"); e != nil {
			if e.field == "body" {
				e.field, e.msg = "filter", "filter"+strings.TrimPrefix(e.msg, "body")
			}
			return e
		}
		if e := f.validate("filter"); e != nil {
			return e
		}
	}
	docs, err := c.Engine().DocumentsMatching(engineFilter(c, f)) // ordered by id
	if err != nil {
		return badField("filter", err.Error())
	}
	out := DocumentList{Documents: []Document{}}
	for _, rec := range docs {
		if rec.ID <= after || !c.CanRead(rec.Access) {
			continue
		}
		if len(out.Documents) == limit {
			out.Next = base64.RawURLEncoding.EncodeToString([]byte(out.Documents[limit-1].ID))
			break
		}
		out.Documents = append(out.Documents, documentView(rec))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// readUpsert reads a JSON or multipart upsert into a document request and
// its source bytes.
func (s *Server) readUpsert(w http.ResponseWriter, r *http.Request) (*DocumentRequest, driver.Upload, *apiError) {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = ""
	}
	var req DocumentRequest
	switch mt {
	case "application/json":
		body, e := readBody(w, r, s.limits.MaxBodyBytes)
		if e != nil {
			return nil, driver.Upload{}, e
		}
		if e := decodeJSON(body, &req, ""); e != nil {
			return nil, driver.Upload{}, e
		}
		return &req, driver.Upload{Format: req.Format, Data: []byte(req.Text)}, nil
	case "multipart/form-data":
		if s.opts.Parse == nil {
			return nil, driver.Upload{}, &apiError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
				field: "Content-Type", msg: "Content-Type: this server accepts JSON text only (no file parser configured)"}
		}
		return s.readMultipart(w, r, params["boundary"])
	}
	return nil, driver.Upload{}, &apiError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type", field: "Content-Type",
		msg: fmt.Sprintf("Content-Type: want application/json or multipart/form-data, got %q", truncate(ct, 80))}
}

// readMultipart reads a "document" part (JSON, optional) and a "file" part.
func (s *Server) readMultipart(w http.ResponseWriter, r *http.Request, boundary string) (*DocumentRequest, driver.Upload, *apiError) {
	if boundary == "" {
		return nil, driver.Upload{}, badField("Content-Type", "multipart/form-data without a boundary")
	}
	limit := s.limits.MaxUploadBytes
	mr := multipart.NewReader(http.MaxBytesReader(w, r.Body, limit+64<<10), boundary)
	var (
		req     DocumentRequest
		src     driver.Upload
		gotFile bool
	)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, src, multipartError(err, limit)
		}
		switch p.FormName() {
		case "document":
			b, err := io.ReadAll(io.LimitReader(p, s.limits.MaxBodyBytes+1))
			if err != nil {
				return nil, src, multipartError(err, limit)
			}
			if int64(len(b)) > s.limits.MaxBodyBytes {
				return nil, src, &apiError{status: http.StatusRequestEntityTooLarge, code: "too_large", field: "document",
					msg: fmt.Sprintf("document: larger than %d bytes", s.limits.MaxBodyBytes)}
			}
			if e := decodeJSON(b, &req, ""); e != nil {
				if e.field == "body" {
					e.field, e.msg = "document", "document"+strings.TrimPrefix(e.msg, "body")
				}
				return nil, src, e
			}
			if req.Text != "" {
				return nil, src, badField("document.text", "send the text as the file part, not in the document part")
			}
		case "file":
			if gotFile {
				return nil, src, badField("file", "more than one file part")
			}
			gotFile = true
			src.Name = p.FileName()
			if src.Name == "" || !utf8.ValidString(src.Name) || len(src.Name) > 255 {
				return nil, src, badField("file", "the file part needs a file name (valid UTF-8, at most 255 bytes)")
			}
			b, err := io.ReadAll(io.LimitReader(p, limit+1))
			if err != nil {
				return nil, src, multipartError(err, limit)
			}
			if int64(len(b)) > limit {
				return nil, src, &apiError{status: http.StatusRequestEntityTooLarge, code: "too_large", field: "file",
					msg: fmt.Sprintf("file: larger than the upload limit of %d bytes", limit)}
			}
			src.Data = b
		default:
			return nil, src, badField(truncate(p.FormName(), 40), "unknown multipart part (want document and file)")
		}
	}
	if !gotFile {
		return nil, src, badField("file", "missing: a multipart upload needs a file part")
	}
	if len(src.Data) == 0 {
		return nil, src, badField("file", "empty")
	}
	src.Format = req.Format
	return &req, src, nil
}

func multipartError(err error, limit int64) *apiError {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &apiError{status: http.StatusRequestEntityTooLarge, code: "too_large", field: "body",
			msg: fmt.Sprintf("body: larger than the upload limit of %d bytes", limit)}
	}
	return badField("body", "malformed multipart: "+err.Error())
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	return s.upsert(w, r, c, "", true)
}

func (s *Server) handleUpsert(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	id, e := docID(r)
	if e != nil {
		return e
	}
	return s.upsert(w, r, c, id, false)
}

// upsert stores the source and queues its job; the response (202) means the
// source is durable. create refuses an id that is in use (409).
func (s *Server) upsert(w http.ResponseWriter, r *http.Request, c *Caller, id string, create bool) *apiError {
	if !c.canWrite() {
		return &apiError{status: http.StatusForbidden, code: "forbidden", msg: "this key may not write documents"}
	}
	t := c.tenant
	if t.Jobs == nil {
		return &apiError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "this server does not index documents"}
	}
	req, src, e := s.readUpsert(w, r)
	if e != nil {
		return e
	}
	if create {
		id = req.ID
	} else if req.ID != "" && req.ID != id {
		return badField("id", fmt.Sprintf("%q differs from the id in the path", truncate(req.ID, 80)))
	}
	req.ID = id
	isFile := src.Name != ""
	if e := validateDocument(req, !isFile, s.limits.MaxBodyBytes); e != nil {
		return e
	}
	src.DocID, src.Title, src.Lang, src.Metadata, src.Access = id, req.Title, req.Lang, req.Metadata, req.Access
	if isFile {
		if _, err := s.opts.Parse(r.Context(), src); err != nil {
			return parseError(err)
		}
	}
	// The existence check and the enqueue run under the document's lock, so
	// two creates of one id cannot both succeed.
	unlock := t.lockDoc(id)
	defer unlock()
	eng := c.Engine()
	_, err := eng.Document(id)
	exists := err == nil
	if !exists {
		if _, err := t.Jobs.Upload(r.Context(), id); err == nil {
			exists = true
		} else if !errors.Is(err, situate.ErrNotFound) {
			return fromError(err)
		}
	}
	// A writer reads every document of its tenant (Caller.Write), so a
	// conflict reveals no id it may not read.
	if exists && create {
		return &apiError{status: http.StatusConflict, code: "conflict", field: "id", msg: "id: a document with this id exists (use PUT to replace it)"}
	}
	if exists {
		// The new title, metadata and access hold from now on, also for
		// the stored version while a job indexes new text; when they are
		// all that changed, nothing is queued.
		doc, err := situate.UploadDocument(r.Context(), s.opts.Parse, src)
		if err != nil {
			return parseError(err)
		}
		stored, same, err := eng.PutAttributes(r.Context(), doc)
		if err != nil {
			return fromError(err)
		}
		if stored && same && !otherUploadQueued(r.Context(), t.Jobs, src) {
			rec, err := eng.Document(id)
			if err != nil {
				return fromError(err)
			}
			writeJSON(w, http.StatusOK, documentView(rec))
			return nil
		}
	}
	return s.enqueue(w, r, t, src)
}

// enqueue stores src and queues its job, answering 202 with the job.
func (s *Server) enqueue(w http.ResponseWriter, r *http.Request, t *tenantState, src driver.Upload) *apiError {
	j, err := t.Jobs.EnqueueUpload(r.Context(), src)
	if err != nil {
		return fromError(err)
	}
	t.notify()
	w.Header().Set("Location", "/v1/jobs/"+strconv.FormatInt(j.ID, 10))
	writeJSON(w, http.StatusAccepted, UpsertResponse{Document: src.DocID, Job: jobView(j)})
	return nil
}

// otherUploadQueued reports whether the document's stored upload holds
// another source than src: a job may still index it after this request,
// so the request must replace it (superseding that job) even when src is
// what the store holds.
func otherUploadQueued(ctx context.Context, jobs driver.JobStore, src driver.Upload) bool {
	up, err := jobs.Upload(ctx, src.DocID)
	if errors.Is(err, situate.ErrNotFound) {
		return false
	}
	return err != nil || up.Name != src.Name || up.Format != src.Format || !bytes.Equal(up.Data, src.Data)
}

// PatchRequest changes a document's attributes; an absent field is left as
// it is, and an empty access list makes the document readable by everyone
// in the tenant.
type PatchRequest struct {
	Title    *string   `json:"title"`
	Metadata *Metadata `json:"metadata"`
	Access   *[]string `json:"access"`
}

// handlePatch changes a document's title, metadata or access at once: the
// change holds for every read (search, GET, list, MCP) when the response is
// sent, with no model call and no job. A document still queued for its
// first indexing has its queued upload changed instead (202 with its job).
func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	id, e := docID(r)
	if e != nil {
		return e
	}
	if !c.canWrite() {
		return &apiError{status: http.StatusForbidden, code: "forbidden", msg: "this key may not write documents"}
	}
	body, e := readBody(w, r, s.limits.MaxBodyBytes)
	if e != nil {
		return e
	}
	var req PatchRequest
	if e := decodeJSON(body, &req, ""); e != nil {
		return e
	}
	if req.Title == nil && req.Metadata == nil && req.Access == nil {
		return badField("body", "give title, metadata or access (the fields to change)")
	}
	check := DocumentRequest{ID: id}
	var p situate.Patch
	if req.Title != nil {
		check.Title, p.Title = *req.Title, req.Title
	}
	if req.Metadata != nil {
		m := map[string]string(*req.Metadata)
		check.Metadata, p.Metadata = *req.Metadata, &m
	}
	if req.Access != nil {
		check.Access, p.Access = *req.Access, req.Access
	}
	if e := validateDocument(&check, false, s.limits.MaxBodyBytes); e != nil {
		return e
	}
	t := c.tenant
	unlock := t.lockDoc(id)
	defer unlock()
	rec, err := c.Engine().Patch(r.Context(), id, p)
	if errors.Is(err, situate.ErrNotFound) && t.Jobs != nil {
		up, uerr := t.Jobs.Upload(r.Context(), id)
		if errors.Is(uerr, situate.ErrNotFound) {
			return notFound("document")
		}
		if uerr != nil {
			return fromError(uerr)
		}
		if p.Title != nil {
			up.Title = *p.Title
		}
		if p.Metadata != nil {
			up.Metadata = *p.Metadata
		}
		if p.Access != nil {
			up.Access = *p.Access
		}
		return s.enqueue(w, r, t, up)
	}
	if errors.Is(err, situate.ErrNotFound) {
		return notFound("document")
	}
	if err != nil {
		return fromError(err)
	}
	writeJSON(w, http.StatusOK, documentView(rec))
	return nil
}

func parseError(err error) *apiError {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fromError(err) // the request timed out while the file was parsed
	}
	if errors.Is(err, ErrUnsupportedFormat) {
		return &apiError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type", field: "file", msg: "file: " + err.Error()}
	}
	return badField("file", err.Error())
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	id, e := docID(r)
	if e != nil {
		return e
	}
	t := c.tenant
	unlock := t.lockDoc(id)
	defer unlock()
	// A document the caller may not read is not found: by its indexed
	// record, or by its source while its first job has not run yet.
	if rec, err := c.Engine().Document(id); err == nil {
		if !c.CanRead(rec.Access) {
			return notFound("document")
		}
	} else if t.Jobs == nil {
		return notFound("document")
	} else {
		src, err := t.Jobs.Upload(r.Context(), id)
		if errors.Is(err, situate.ErrNotFound) || err == nil && !c.CanRead(src.Access) {
			return notFound("document")
		}
		if err != nil {
			return fromError(err)
		}
	}
	if !c.canWrite() {
		return &apiError{status: http.StatusForbidden, code: "forbidden", msg: "this key may not write documents"}
	}
	if t.Jobs != nil {
		if err := t.Jobs.DeleteUpload(r.Context(), id); err != nil {
			return fromError(err)
		}
	}
	if err := c.Engine().Delete(r.Context(), id); err != nil && !errors.Is(err, situate.ErrNotFound) {
		return fromError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleJob(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return badField("id", fmt.Sprintf("%q: want a positive integer job id", truncate(r.PathValue("id"), 40)))
	}
	if c.tenant.Jobs == nil {
		return notFound("job")
	}
	j, err := c.tenant.Jobs.Job(r.Context(), id)
	if errors.Is(err, situate.ErrNotFound) || err == nil && !c.CanRead(currentAccess(r.Context(), c, j)) {
		return notFound("job")
	}
	if err != nil {
		return fromError(err)
	}
	writeJSON(w, http.StatusOK, jobView(j))
	return nil
}

// currentAccess is the access list a job is read under: its document's as
// it is now (the stored record, else the queued upload), so a job names no
// document to a key an access change has since shut out; the job's own
// list only when neither is left.
func currentAccess(ctx context.Context, c *Caller, j driver.Job) []string {
	if rec, err := c.Engine().Document(j.DocID); err == nil {
		return rec.Access
	}
	if up, err := c.tenant.Jobs.Upload(ctx, j.DocID); err == nil {
		return up.Access
	}
	return j.Access
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	st := Status{Tenant: c.Tenant, Languages: map[string]int{}, Principals: c.Principals, Admin: c.Admin, Write: c.Write || c.Admin, Contextualizer: "none"}
	if st.Principals == nil {
		st.Principals = []string{}
	}
	for _, rec := range c.Engine().Documents() {
		if !c.CanRead(rec.Access) {
			continue
		}
		st.Documents++
		st.Chunks += rec.Chunks
		st.Languages[rec.Lang]++
	}
	opts := c.Engine().Options()
	if opts.Contextualizer != nil {
		st.Contextualizer = opts.Contextualizer.Name()
	}
	if opts.Embedder != nil {
		st.Embedder = opts.Embedder.Name()
	}
	if opts.Reranker != nil {
		st.Reranker = opts.Reranker.Name()
	}
	if c.Admin && c.tenant.Jobs != nil {
		counts, err := c.tenant.Jobs.JobCounts(r.Context())
		if err != nil {
			return fromError(err)
		}
		st.Jobs = counts
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}
