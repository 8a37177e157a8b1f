package anthropic

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// Message Batches limits (Anthropic documentation).
const (
	MaxBatchRequests = 100000
	MaxBatchBytes    = 256 << 20
	MaxCustomIDLen   = 64
	// BatchCacheTTL is the cache TTL of batch requests: a batch may run for
	// an hour or more, and 5-minute entries would expire between a
	// document's requests.
	BatchCacheTTL = "1h"
	// maxResultLine bounds one JSONL results line.
	maxResultLine = 32 << 20
)

// Batch processing statuses.
const (
	BatchInProgress = "in_progress"
	BatchCanceling  = "canceling"
	BatchEnded      = "ended"
)

var customIDRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// BatchRequest is one prompt of a Message Batch. CustomID must be unique in
// the batch, 1-64 characters of [a-zA-Z0-9_-]; BatchCustomID makes one.
type BatchRequest struct {
	CustomID string
	Prompt   driver.Prompt
}

// BatchCustomID returns a valid, deterministic custom_id for chunk index of
// document docID: "d" + 16 hex digits of SHA-256(docID) + "_" + index.
// The caller keeps the mapping back to the chunk.
func BatchCustomID(docID string, index int) string {
	h := sha256.Sum256([]byte(docID))
	return "d" + hex.EncodeToString(h[:8]) + "_" + strconv.Itoa(index)
}

// RequestCounts tallies a batch's requests by state.
type RequestCounts struct {
	Processing int `json:"processing"`
	Succeeded  int `json:"succeeded"`
	Errored    int `json:"errored"`
	Canceled   int `json:"canceled"`
	Expired    int `json:"expired"`
}

// BatchStatus is a Message Batch as the API reports it.
type BatchStatus struct {
	ID string `json:"id"`
	// ProcessingStatus is BatchInProgress, BatchCanceling or BatchEnded.
	ProcessingStatus string        `json:"processing_status"`
	RequestCounts    RequestCounts `json:"request_counts"`
	CreatedAt        time.Time     `json:"created_at"`
	EndedAt          *time.Time    `json:"ended_at"`
	ExpiresAt        time.Time     `json:"expires_at"`
	// ResultsURL is set once the batch has ended.
	ResultsURL string `json:"results_url"`
}

// Ended reports whether results can be fetched.
func (s BatchStatus) Ended() bool { return s.ProcessingStatus == BatchEnded }

type batchCreate struct {
	Requests []batchItem `json:"requests"`
}

type batchItem struct {
	CustomID string        `json:"custom_id"`
	Params   messageParams `json:"params"`
}

// SubmitBatch creates a Message Batch (POST /v1/messages/batches) and
// returns its id, which the caller stores to resume after a restart.
// Requests are sent grouped by Prompt.DocID (documents in order of first
// appearance) so each document's cache entry is written once and then read;
// every prefix is cached with the 1-hour TTL. Submitting is not idempotent:
// an error that is not Retryable (for instance a connection lost after the
// request was sent) may still have created a batch.
func (c *Client) SubmitBatch(ctx context.Context, reqs []BatchRequest) (string, error) {
	const op = "batches.create"
	if len(reqs) == 0 {
		return "", fmt.Errorf("anthropic: %s: no requests: %w", op, driver.ErrInvalid)
	}
	if len(reqs) > MaxBatchRequests {
		return "", fmt.Errorf("anthropic: %s: %d requests: at most %d per batch: %w", op, len(reqs), MaxBatchRequests, driver.ErrInvalid)
	}
	// Group by document, keeping first-appearance order.
	order := make([]string, 0)
	byDoc := make(map[string][]int)
	seen := make(map[string]int, len(reqs))
	for i, r := range reqs {
		if !customIDRe.MatchString(r.CustomID) {
			return "", fmt.Errorf("anthropic: %s: request %d: CustomID %q: want 1-%d characters of [a-zA-Z0-9_-]: %w", op, i, r.CustomID, MaxCustomIDLen, driver.ErrInvalid)
		}
		if j, dup := seen[r.CustomID]; dup {
			return "", fmt.Errorf("anthropic: %s: request %d: CustomID %q: duplicate of request %d: %w", op, i, r.CustomID, j, driver.ErrInvalid)
		}
		seen[r.CustomID] = i
		if _, ok := byDoc[r.Prompt.DocID]; !ok {
			order = append(order, r.Prompt.DocID)
		}
		byDoc[r.Prompt.DocID] = append(byDoc[r.Prompt.DocID], i)
	}
	body := batchCreate{Requests: make([]batchItem, 0, len(reqs))}
	for _, doc := range order {
		for _, i := range byDoc[doc] {
			p, err := c.params(reqs[i].Prompt, BatchCacheTTL, false)
			if err != nil {
				return "", fmt.Errorf("anthropic: %s: request %d (%s): %w", op, i, reqs[i].CustomID, err)
			}
			body.Requests = append(body.Requests, batchItem{CustomID: reqs[i].CustomID, Params: p})
		}
	}
	data, err := apiclient.Marshal(body)
	if err != nil {
		return "", fmt.Errorf("anthropic: %s: encode: %w", op, err)
	}
	if len(data) > MaxBatchBytes {
		return "", fmt.Errorf("anthropic: %s: request body %d bytes: at most %d per batch, split the requests: %w", op, len(data), MaxBatchBytes, driver.ErrInvalid)
	}
	var st BatchStatus
	if err := c.doRaw(ctx, op, http.MethodPost, "/v1/messages/batches", data, &st); err != nil {
		var e *Error
		if errors.As(err, &e) && e.StatusCode == 0 && e.Type != TypeCanceled && !isDialError(e.Err) {
			// The request may have reached the API: retrying could create
			// a second batch and pay twice.
			e.SetRetryable(false)
			e.Message = "batch may have been created; check the Console before resubmitting"
		}
		return "", err
	}
	if st.ID == "" {
		return "", c.streamError(op, "", "response has no batch id")
	}
	return st.ID, nil
}

// PollBatch returns the batch's status (GET /v1/messages/batches/{id}).
func (c *Client) PollBatch(ctx context.Context, id string) (BatchStatus, error) {
	var st BatchStatus
	if err := checkBatchID(id); err != nil {
		return st, fmt.Errorf("anthropic: batches.get: %w", err)
	}
	err := c.doRaw(ctx, "batches.get", http.MethodGet, "/v1/messages/batches/"+url.PathEscape(id), nil, &st)
	return st, err
}

// CancelBatch asks the API to cancel a batch in progress.
func (c *Client) CancelBatch(ctx context.Context, id string) (BatchStatus, error) {
	var st BatchStatus
	if err := checkBatchID(id); err != nil {
		return st, fmt.Errorf("anthropic: batches.cancel: %w", err)
	}
	err := c.doRaw(ctx, "batches.cancel", http.MethodPost, "/v1/messages/batches/"+url.PathEscape(id)+"/cancel", nil, &st)
	return st, err
}

func checkBatchID(id string) error {
	if id == "" {
		return fmt.Errorf("batch id: empty: %w", driver.ErrInvalid)
	}
	return nil
}

// BatchResults streams the results JSONL of an ended batch, calling fn once
// per request in the order the API returns them (not request order). For a
// succeeded request err is nil and c holds the text and usage (priced at
// the batch discount; DocID is left for the caller, who knows it from the
// custom id); for an errored, canceled or expired one err is an *Error
// (Op "batch result") whose Retryable says whether resubmitting may help.
// If fn returns an error, iteration stops and that error is returned.
// Results stay available for 29 days, so after a restart BatchResults can
// be called again with the stored id; fn must then tolerate results it has
// seen before. It wraps ErrBatchInProgress if the batch has not ended.
func (c *Client) BatchResults(ctx context.Context, id string, fn func(customID string, c driver.Completion, err error) error) error {
	const op = "batches.results"
	st, err := c.PollBatch(ctx, id)
	if err != nil {
		return err
	}
	if !st.Ended() {
		e := &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, Type: "batch_in_progress",
			Message: fmt.Sprintf("batch %s is %s (%d processing)", id, st.ProcessingStatus, st.RequestCounts.Processing),
			Err:     ErrBatchInProgress}
		e.SetRetry(true, 30*time.Second)
		return e
	}
	// The API key goes only to the configured host: a results_url elsewhere
	// (as seen through a proxy BaseURL) is replaced by the documented path
	// on BaseURL.
	u := c.base.JoinPath("/v1/messages/batches", id, "results")
	if ru, err := url.Parse(st.ResultsURL); st.ResultsURL != "" && err == nil && ru.Scheme == c.base.Scheme && ru.Host == c.base.Host {
		u = ru
	}
	// Results can be large: no overall timeout, only the caller's context.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("anthropic: %s: %w", op, err)
	}
	c.setHeaders(req)
	req.Header.Set("accept", "application/x-jsonl")
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.responseError(op, resp)
	}
	reqID := resp.Header.Get("request-id")
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	for line := 1; ; line++ {
		data, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				return c.streamError(op, reqID, "results line %d: longer than %d bytes", line, maxResultLine)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return c.streamError(op, reqID, "results line %d: cut off", line)
			}
			return c.transportError(ctx, op, err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		var r batchResultLine
		if err := json.Unmarshal(data, &r); err != nil || r.CustomID == "" {
			return c.streamError(op, reqID, "results line %d: malformed or truncated JSON: %v", line, err)
		}
		comp, rerr := c.batchResult(&r)
		if err := fn(r.CustomID, comp, rerr); err != nil {
			return err
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine returns one '\n'-terminated line without its terminator; a
// final line without '\n' is io.ErrUnexpectedEOF (a cut-off download), a
// clean end io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxResultLine {
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			return bytes.TrimRight(buf, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(bytes.TrimSpace(buf)) == 0 {
				return nil, io.EOF
			}
			// A last line without newline is still complete JSON if it parses.
			if json.Valid(buf) {
				return buf, nil
			}
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

type batchResultLine struct {
	CustomID string `json:"custom_id"`
	Result   struct {
		Type    string               `json:"type"`
		Message *wireMessageResponse `json:"message"`
		Error   *errorEnvelope       `json:"error"`
	} `json:"result"`
}

func (c *Client) batchResult(r *batchResultLine) (driver.Completion, error) {
	const op = "batch result"
	comp := driver.Completion{Usage: driver.Usage{Time: time.Now(), Provider: ProviderName, Model: c.model, Operation: "context"}}
	switch r.Result.Type {
	case "succeeded":
		if r.Result.Message == nil {
			e := &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, Item: r.CustomID, Type: TypeStream, Message: "succeeded result without message"}
			e.SetRetryable(true)
			return comp, e
		}
		m := r.Result.Message
		comp.Text = m.text()
		if m.Usage != nil {
			c.fill(&comp.Usage, m.Usage.tokens(BatchCacheTTL), true)
		}
		return comp, nil
	case "errored":
		we := wireError{Type: "api_error", Message: "errored result without error"}
		if r.Result.Error != nil {
			we = r.Result.Error.Error
		}
		e := c.fromWire(op, 0, we, "")
		e.Item = r.CustomID
		comp.Usage.Error = e.Error()
		return comp, e
	case "canceled", "expired":
		e := &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, Item: r.CustomID, Type: r.Result.Type,
			Message: "request was " + r.Result.Type + " before it ran; resubmit it"}
		e.SetRetryable(true)
		comp.Usage.Error = e.Error()
		return comp, e
	default:
		e := &Error{Index: -1, Provider: ProviderName, Op: op, Model: c.model, Item: r.CustomID, Type: TypeStream,
			Message: fmt.Sprintf("unknown result type %q", r.Result.Type)}
		comp.Usage.Error = e.Error()
		return comp, e
	}
}

// doRaw sends an already-encoded body (or none) and decodes the JSON answer.
func (c *Client) doRaw(ctx context.Context, op, method, path string, body []byte, out any) error {
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(tctx, method, path, body)
	if err != nil {
		return fmt.Errorf("anthropic: %s: %w", op, err)
	}
	req.Header.Set("accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.responseError(op, resp)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return c.transportError(ctx, op, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return c.streamError(op, resp.Header.Get("request-id"), "malformed or truncated JSON response (%d bytes): %v", len(data), err)
	}
	return nil
}
