package weaviate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// client speaks Weaviate's REST and GraphQL API to one or more nodes of a
// cluster: a request that cannot reach a node (refused, reset, timed out
// before an answer) goes to the next one, so a stopped node costs a retry,
// not a failure.
type client struct {
	urls   []string
	apiKey string
	http   *http.Client
	next   atomic.Uint64
}

// apiError is an answer other than 2xx.
type apiError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *apiError) Error() string {
	body := e.Body
	if len(body) > 500 {
		body = body[:500] + "..."
	}
	return fmt.Sprintf("weaviate %s %s: status %d: %s", e.Method, e.Path, e.Status, strings.TrimSpace(body))
}

func isStatus(err error, status int) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Status == status
}

// do sends a request with a JSON body (nil: none) and decodes a JSON answer
// into out (nil: discard). Network failures and 5xx answers move on to the
// next node, up to every node twice.
func (c *client) do(ctx context.Context, method, path string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("weaviate %s %s: encode: %w", method, path, err)
		}
	}
	start := int(c.next.Add(1))
	tries := 2 * len(c.urls)
	var lastErr error
	for i := range tries {
		if err := ctx.Err(); err != nil {
			return errors.Join(err, lastErr)
		}
		base := c.urls[(start+i)%len(c.urls)]
		err := c.once(ctx, method, base, path, payload, out)
		if err == nil {
			return nil
		}
		lastErr = err
		if !retryable(err) {
			return err
		}
		if i >= len(c.urls)-1 {
			// Every node was tried once: give the cluster a moment.
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return lastErr
}

func retryable(err error) bool {
	var ae *apiError
	if errors.As(err, &ae) {
		// A node that is starting answers before it has loaded the
		// schema: another node can answer.
		return ae.Status >= 500 || ae.Status == http.StatusUnprocessableEntity && strings.Contains(ae.Body, "no graphql provider present")
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "connection reset")
}

func (c *client) once(ctx context.Context, method, base, path string, payload []byte, out any) error {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return fmt.Errorf("weaviate %s %s: %w", method, path, err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("weaviate %s %s%s: %w", method, base, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("weaviate %s %s%s: read answer: %w", method, base, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return &apiError{Method: method, Path: path, Status: resp.StatusCode, Body: string(b)}
	}
	if out == nil || len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("weaviate %s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// graphql runs a GraphQL query and decodes its data into out. Queries only
// read: an error answer is asked again a few times (a node joining or
// leaving the cluster fails queries for a moment).
func (c *client) graphql(ctx context.Context, query string, out any) error {
	var err error
	for try := range 4 {
		if err = c.graphqlOnce(ctx, query, out); err == nil || ctx.Err() != nil {
			return err
		}
		var ae *apiError
		if errors.As(err, &ae) && !retryable(err) {
			return err // refused as asked: asking again cannot help
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(try+1) * 250 * time.Millisecond):
		}
	}
	return err
}

func (c *client) graphqlOnce(ctx context.Context, query string, out any) error {
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/graphql", map[string]string{"query": query}, &resp); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		msgs := make([]string, len(resp.Errors))
		for i, e := range resp.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("weaviate graphql: %s", strings.Join(msgs, "; "))
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return fmt.Errorf("weaviate graphql: decode data: %w", err)
	}
	return nil
}
