package anthropictest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/situate/situate/internal/fakeapi"
)

// Message Batches limits the fake enforces at creation.
const (
	MaxBatchRequests = 100000
	batchLifetime    = 24 * time.Hour
)

var customIDRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

type batchItem struct {
	customID string
	params   json.RawMessage
}

type batch struct {
	id         string
	created    time.Time
	ended      time.Time
	cancelAt   time.Time
	status     string // in_progress, canceling, ended
	items      []batchItem
	results    [][]byte // JSONL lines, in output order
	succeeded  int
	errored    int
	canceled   int
	expired    int
	processing int
}

type countsJSON struct {
	Processing int `json:"processing"`
	Succeeded  int `json:"succeeded"`
	Errored    int `json:"errored"`
	Canceled   int `json:"canceled"`
	Expired    int `json:"expired"`
}

type batchJSON struct {
	ID                string     `json:"id"`
	Type              string     `json:"type"`
	ProcessingStatus  string     `json:"processing_status"`
	RequestCounts     countsJSON `json:"request_counts"`
	EndedAt           *string    `json:"ended_at"`
	CreatedAt         string     `json:"created_at"`
	ExpiresAt         string     `json:"expires_at"`
	ArchivedAt        *string    `json:"archived_at"`
	CancelInitiatedAt *string    `json:"cancel_initiated_at"`
	ResultsURL        *string    `json:"results_url"`
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (s *Server) batchJSON(b *batch) batchJSON {
	j := batchJSON{ID: b.id, Type: "message_batch", ProcessingStatus: b.status,
		RequestCounts: countsJSON{b.processing, b.succeeded, b.errored, b.canceled, b.expired},
		CreatedAt:     rfc3339(b.created), ExpiresAt: rfc3339(b.created.Add(batchLifetime))}
	if !b.cancelAt.IsZero() {
		v := rfc3339(b.cancelAt)
		j.CancelInitiatedAt = &v
	}
	if b.status == "ended" {
		v := rfc3339(b.ended)
		u := s.URL + "/v1/messages/batches/" + b.id + "/results"
		j.EndedAt, j.ResultsURL = &v, &u
	}
	return j
}

func (s *Server) handleBatchCreate(w http.ResponseWriter, r *http.Request, body []byte, f *Fault) {
	var req struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid request body: "+err.Error())
		return
	}
	switch {
	case len(req.Requests) == 0:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "requests: List should have at least 1 item")
		return
	case len(req.Requests) > MaxBatchRequests:
		writeError(w, http.StatusBadRequest, "invalid_request_error",
			fmt.Sprintf("requests: List should have at most %d items", MaxBatchRequests))
		return
	}
	seen := map[string]bool{}
	b := &batch{id: s.nextID("msgbatch"), created: s.cfg.Now(), status: "in_progress"}
	for i, it := range req.Requests {
		if !customIDRe.MatchString(it.CustomID) {
			writeError(w, http.StatusBadRequest, "invalid_request_error",
				fmt.Sprintf("requests.%d.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", i))
			return
		}
		if seen[it.CustomID] {
			writeError(w, http.StatusBadRequest, "invalid_request_error",
				fmt.Sprintf("requests.%d.custom_id: duplicate custom_id %q", i, it.CustomID))
			return
		}
		seen[it.CustomID] = true
		if len(it.Params) == 0 {
			writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("requests.%d.params: Field required", i))
			return
		}
		b.items = append(b.items, batchItem{it.CustomID, it.Params})
	}
	b.processing = len(b.items)
	s.mu.Lock()
	s.batches[b.id] = b
	s.stats.BatchesCreated++
	j := s.batchJSON(b)
	s.mu.Unlock()
	if f != nil && f.Kind == FaultTruncated {
		fakeapi.WriteJSON(w, "", j, true)
		return
	}
	writeJSON(w, http.StatusOK, j)
}

// advance ends b if its time has come, running its requests in order
// (s.mu held).
func (s *Server) advance(b *batch) {
	now := s.cfg.Now()
	switch {
	case b.status == "ended":
		return
	case b.status == "canceling":
	case now.Before(b.created.Add(s.cfg.BatchProcessingTime)):
		return
	}
	lines := make([][]byte, 0, len(b.items))
	for _, it := range b.items {
		var res any
		switch {
		case b.status == "canceling":
			res = map[string]string{"type": "canceled"}
			b.canceled++
		default:
			res = s.runItem(b, it)
		}
		line, _ := json.Marshal(map[string]any{"custom_id": it.customID, "result": res})
		lines = append(lines, line)
	}
	// Results are not in request order: the fake returns them reversed so
	// clients cannot depend on the order.
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	b.results, b.processing, b.status, b.ended = lines, 0, "ended", now
}

func erroredResult(typ, msg string) map[string]any {
	return map[string]any{"type": "errored", "error": map[string]any{"type": "error",
		"error": map[string]string{"type": typ, "message": msg}}}
}

// runItem processes one batch request like a non-streaming message
// (s.mu held).
func (s *Server) runItem(b *batch, it batchItem) any {
	if spec, ok := s.itemFaults[it.customID]; ok {
		delete(s.itemFaults, it.customID)
		kind, errType, _ := strings.Cut(spec, ":")
		switch kind {
		case "canceled":
			b.canceled++
			return map[string]string{"type": "canceled"}
		case "expired":
			b.expired++
			return map[string]string{"type": "expired"}
		default:
			b.errored++
			if errType == "" {
				errType = "api_error"
			}
			return erroredResult(errType, "injected "+errType)
		}
	}
	var req messageRequest
	dec := json.NewDecoder(bytes.NewReader(it.params))
	if err := dec.Decode(&req); err != nil {
		b.errored++
		return erroredResult("invalid_request_error", "params: "+err.Error())
	}
	if req.Stream {
		b.errored++
		return erroredResult("invalid_request_error", "stream: streaming is not supported in Message Batches")
	}
	t, e := s.validateParsed(&req, true)
	if e != nil {
		b.errored++
		return erroredResult(e.typ, e.msg)
	}
	s.lookup(t)
	text, stop, out := s.answer(t, false)
	s.commit(t, out)
	s.stats.Completed++
	s.stats.BatchRequests++
	s.seq++
	m := messageJSON{ID: fmt.Sprintf("msg_fake%020d", s.seq), Type: "message", Role: "assistant", Model: t.model,
		Content: []textBlockJSON{}, StopReason: &stop, Usage: t.usage(out)}
	if text != "" {
		m.Content = append(m.Content, textBlockJSON{"text", text})
	}
	b.succeeded++
	return map[string]any{"type": "succeeded", "message": m}
}

// batchFor returns the batch named in r's path (s.mu held). On a miss it
// unlocks s.mu, writes a 404 and returns nil.
func (s *Server) batchFor(w http.ResponseWriter, r *http.Request) *batch {
	id := r.PathValue("id")
	b, ok := s.batches[id]
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "not_found_error", "message_batch_id: batch "+id+" not found")
		return nil
	}
	return b
}

func (s *Server) handleBatchGet(w http.ResponseWriter, r *http.Request, _ []byte, f *Fault) {
	s.mu.Lock()
	b := s.batchFor(w, r)
	if b == nil {
		return
	}
	s.advance(b)
	j := s.batchJSON(b)
	s.mu.Unlock()
	if f != nil && f.Kind == FaultTruncated {
		fakeapi.WriteJSON(w, "", j, true)
		return
	}
	writeJSON(w, http.StatusOK, j)
}

func (s *Server) handleBatchCancel(w http.ResponseWriter, r *http.Request, _ []byte, _ *Fault) {
	s.mu.Lock()
	b := s.batchFor(w, r)
	if b == nil {
		return
	}
	if b.status == "in_progress" {
		b.status, b.cancelAt = "canceling", s.cfg.Now()
	}
	j := s.batchJSON(b)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, j)
}

func (s *Server) handleBatchResults(w http.ResponseWriter, r *http.Request, _ []byte, f *Fault) {
	s.mu.Lock()
	b := s.batchFor(w, r)
	if b == nil {
		return
	}
	s.advance(b)
	if b.status != "ended" {
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, "invalid_request_error",
			fmt.Sprintf("message_batch_id: batch %s has not finished processing", b.id))
		return
	}
	var buf bytes.Buffer
	for _, l := range b.results {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	s.mu.Unlock()
	data := buf.Bytes()
	w.Header().Set("content-type", "application/x-jsonl")
	w.WriteHeader(http.StatusOK)
	if f != nil && f.Kind == FaultTruncated {
		cut := len(data) / 2
		// Cut strictly inside a line, never at its end.
		for cut > 0 && (data[cut-1] == '\n' || data[cut] == '\n') {
			cut--
		}
		data = data[:cut]
	}
	_, _ = w.Write(data)
}
