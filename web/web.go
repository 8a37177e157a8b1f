package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assets embed.FS

// ContentSecurityPolicy is sent with every response: only the page's own
// scripts, styles and API; no inline script or style, no plugins, no
// framing.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Handler serves the page at / and its assets under /ui/; any other path
// is 404. Mount it at "GET /{$}" and "GET /ui/" so that every other path
// stays the API's.
func Handler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := r.URL.Path
		switch {
		case p == "/" || p == "/index.html":
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/"
			files.ServeHTTP(w, r2)
		case strings.HasPrefix(p, "/ui/"):
			name := strings.TrimPrefix(path.Clean(p), "/ui/")
			if name == "" || name == "index.html" || strings.HasPrefix(name, ".") {
				http.NotFound(w, r)
				return
			}
			if st, err := fs.Stat(sub, name); err != nil || st.IsDir() {
				http.NotFound(w, r)
				return
			}
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/" + name
			files.ServeHTTP(w, r2)
		default:
			http.NotFound(w, r)
		}
	})
}
