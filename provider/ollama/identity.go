package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/situate/situate/driver"
)

var _ driver.ModelIdentifier = (*Client)(nil)

// ModelIdentity asks Ollama which model the configured name resolves to:
// GET /api/tags lists the local models with their digests (the manifest's
// sha256), so a model re-pulled or re-created under the same tag is told
// apart. A name without a tag is "name:latest", as Ollama resolves it.
func (c *Client) ModelIdentity(ctx context.Context) (driver.ModelIdentity, error) {
	var out struct {
		Models []struct {
			Name   string `json:"name"`
			Model  string `json:"model"`
			Digest string `json:"digest"`
		} `json:"models"`
	}
	if err := c.getJSON(ctx, "tags", "/api/tags", &out); err != nil {
		return driver.ModelIdentity{}, err
	}
	want := c.model
	if !strings.Contains(want, ":") {
		want += ":latest"
	}
	var names []string
	for _, m := range out.Models {
		if m.Name == want || m.Model == want || m.Name == c.model {
			return driver.ModelIdentity{Name: c.model, Digest: m.Digest}, nil
		}
		names = append(names, m.Name)
	}
	return driver.ModelIdentity{}, fmt.Errorf("ollama: tags: %s has no model %q (it has %s; ollama pull %s): %w",
		c.base, c.model, strings.Join(names, ", "), c.model, driver.ErrModelNotFound)
}

// getJSON sends GET path and decodes the JSON answer into out.
func (c *Client) getJSON(ctx context.Context, op, path string, out any) error {
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, c.base.JoinPath(path).String(), nil)
	if err != nil {
		return fmt.Errorf("ollama: %s: %w", op, err)
	}
	for k, vs := range c.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.responseError(op, resp)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return c.transportError(ctx, op, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return c.streamError(op, "malformed or truncated JSON answer (%d bytes): %v", len(data), err)
	}
	return nil
}
