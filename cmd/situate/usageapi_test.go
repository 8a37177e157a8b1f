package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/web"
)

// GET /v1/usage, the web page's usage view, is part of the API: every
// request and response here is validated against httpapi/openapi.json.
func TestUsageRouteMatchesOpenAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate serve twice (a few seconds)")
	}
	doc, err := openapi3.NewLoader().LoadFromData(httpapi.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	// specRejects: the spec itself refuses the request (days out of range);
	// an unknown query parameter is refused by the server only.
	get := func(base, path, key string, want int, specRejects ...bool) []byte {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatalf("GET %s: not a route of openapi.json: %v", path, err)
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		reqErr := openapi3filter.ValidateRequest(context.Background(), in)
		if (reqErr != nil) != (len(specRejects) > 0) {
			t.Errorf("GET %s: request validation %v", path, reqErr)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d %s, want %d", path, resp.StatusCode, body, want)
		}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
			Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("GET %s: response %d does not match openapi.json: %v\n%s", path, resp.StatusCode, err, body)
		}
		return body
	}

	// Without keys: the local tenant, whose caller is its administrator.
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	seedUsage(t, store)
	s := startServe(t, dir, store)
	var rep web.UsageReport
	if err := json.Unmarshal(get(s.URL, "/v1/usage?days=7", "", 200), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Days) != 7 || rep.Total.Calls != 7 {
		t.Errorf("7 days of usage: %d days, %d calls (seeded one call a day)", len(rep.Days), rep.Total.Calls)
	}
	get(s.URL, "/v1/usage", "", 200)
	get(s.URL, "/v1/usage?days=0", "", 400, true)
	get(s.URL, "/v1/usage?days=400", "", 400, true)
	get(s.URL, "/v1/usage?from=2026-01-01", "", 400)

	// With keys: administrators only.
	dir2 := t.TempDir()
	store2 := filepath.Join(dir2, "store")
	admin := createKey(t, dir2, store2, "--tenant", "acme", "--admin")
	staff := createKey(t, dir2, store2, "--tenant", "acme", "--principals", "staff")
	s2 := startServe(t, dir2, store2)
	get(s2.URL, "/v1/usage", "", 401)
	get(s2.URL, "/v1/usage", staff, 403)
	get(s2.URL, "/v1/usage?days=3", admin, 200)
}
