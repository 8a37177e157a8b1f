package apiclient_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/situate/situate/internal/apiclient"
)

// A 429 comes back as a Fault carrying the status, the retry-after wait
// and the body, for the adapter to read its provider's error format from.
func ExampleDo() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("retry-after", "3")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"detail":"rate limited"}`)
	}))
	defer srv.Close()
	var out any
	_, err := apiclient.Do(context.Background(), srv.Client(), time.Minute,
		apiclient.Request{Method: http.MethodPost, URL: srv.URL + "/v1/embeddings", In: map[string]any{"input": []string{"hi"}}}, &out)
	f := err.(*apiclient.Fault)
	fmt.Println(f.StatusCode, f.Type, f.Retryable, f.RetryAfter, string(f.Body))
	// Output:
	// 429 http_error true 3s {"detail":"rate limited"}
}
