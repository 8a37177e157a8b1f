package web_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/situate/situate/web"
)

func get(t *testing.T, h http.Handler, method, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Result()
}

func TestHandlerServesPageAndAssets(t *testing.T) {
	h := web.Handler()
	for _, c := range []struct {
		path, ctype, contains string
	}{
		{"/", "text/html", `<script type="module" src="/ui/app.js">`},
		{"/index.html", "text/html", `<main id="main"`},
		{"/ui/app.js", "javascript", "route()"},
		{"/ui/style.css", "text/css", ".context"},
		{"/ui/icon.svg", "image/svg+xml", "<svg"},
	} {
		resp := get(t, h, "GET", c.path)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), c.ctype) || !strings.Contains(string(body), c.contains) {
			t.Errorf("GET %s: %d %q, body has %q: %v", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), c.contains, strings.Contains(string(body), c.contains))
		}
		if resp.Header.Get("Content-Security-Policy") != web.ContentSecurityPolicy || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: security headers %v", c.path, resp.Header)
		}
	}
	for _, p := range []string{"/ui/", "/ui/nope.js", "/ui/../web.go", "/ui/index.html", "/v1/status", "/anything", "/ui/.hidden"} {
		if resp := get(t, h, "GET", p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
	if resp := get(t, h, "POST", "/"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d, want 405", resp.StatusCode)
	}
}

// The scripts never turn text into HTML, load nothing from another origin
// and evaluate no strings.
func TestAssetsBuildTheDOMWithTextOnly(t *testing.T) {
	forbidden := []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
		"setAttribute(\"on", "srcdoc", "javascript:", "createContextualFragment", "DOMParser"}
	const svgNS = "http://www.w3.org/2000/svg"
	err := filepath.WalkDir("assets", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		for _, f := range forbidden {
			if strings.Contains(text, f) {
				t.Errorf("%s uses %s", path, f)
			}
		}
		if rest := strings.ReplaceAll(text, svgNS, ""); regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/`).MatchString(rest) {
			t.Errorf("%s refers to another origin: %s", path, regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/\S*`).FindString(rest))
		}
		// Every module import resolves to an embedded file.
		for _, m := range regexp.MustCompile(`(?m)^import .* from "([^"]+)";`).FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), m[1])); err != nil {
				t.Errorf("%s imports %s, which is not embedded", path, m[1])
			}
		}
		for _, m := range regexp.MustCompile(`(?:src|href)="/ui/([^"]+)"`).FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join("assets", m[1])); err != nil {
				t.Errorf("%s refers to /ui/%s, which is not embedded", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
