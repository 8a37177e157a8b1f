package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/situate/situate/web"
)

// Mount the page beside an API: the page at / and its assets under /ui/;
// every other path stays the API's.
func ExampleHandler() {
	mux := http.NewServeMux()
	page := web.Handler()
	mux.Handle("GET /{$}", page)
	mux.Handle("GET /ui/", page)
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, `{"tenant":"local"}`) })

	for _, path := range []string{"/", "/ui/app.js", "/v1/status", "/ui/missing.js"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		fmt.Println(path, rec.Code, rec.Header().Get("Content-Type"))
	}
	// Output:
	// / 200 text/html; charset=utf-8
	// /ui/app.js 200 text/javascript; charset=utf-8
	// /v1/status 200 text/plain; charset=utf-8
	// /ui/missing.js 404 text/plain; charset=utf-8
}
