package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/situate/situate/internal/batch"
)

// TestHostedSplitsTooLarge runs Embed against a server that refuses more
// than two texts a request with a 400 the adapter's TooLarge recognises:
// the core splits the request until it passes, and an answer TooLarge
// does not recognise is returned as the call's error.
func TestHostedSplitsTooLarge(t *testing.T) {
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Texts []string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		sizes = append(sizes, len(in.Texts))
		if len(in.Texts) > 2 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"message": "too many texts: %d"}`, len(in.Texts))
			return
		}
		vecs := make([][]float32, len(in.Texts))
		for i := range vecs {
			vecs[i] = []float32{1, float32(i)}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"vectors": vecs})
	}))
	defer srv.Close()
	hosted := func(tooLarge func(*Error) bool) *Hosted {
		c, err := Settings{APIKey: "k", BaseURL: srv.URL}.Hosted(HostedDefaults{Provider: "p", Model: "m",
			MaxInput: func(string) int { return 100 }, MaxBatch: 8, Timeout: time.Minute,
			Auth: func(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} },
			Response: func(c *Hosted, op string, b batch.Ref, f *Fault) *Error {
				var env struct{ Message string }
				_ = json.Unmarshal(f.Body, &env)
				return c.Errs().Answer(op, b, f, env.Message)
			},
			TooLarge: tooLarge})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	send := func(c *Hosted) func(ctx context.Context, texts []string, b batch.Ref) ([][]float32, int, error) {
		return func(ctx context.Context, texts []string, b batch.Ref) ([][]float32, int, error) {
			var out struct{ Vectors [][]float32 }
			err := c.Post(ctx, "embed", "/embed", b, map[string]any{"texts": texts}, &out)
			return out.Vectors, 0, err
		}
	}
	texts := []string{"a", "b", "c", "d", "e"}
	c := hosted(func(e *Error) bool { return strings.Contains(e.Message, "too many texts") })
	var dim atomic.Int64
	vecs, err := c.Embed(context.Background(), "embed", texts, &dim, send(c))
	if err != nil || len(vecs) != 5 {
		t.Fatalf("Embed: %d vectors, %v", len(vecs), err)
	}
	if fmt.Sprint(sizes) != "[5 2 3 1 2]" {
		t.Errorf("request sizes %v, want the 5 split into 2+3 and the 3 into 1+2", sizes)
	}
	sizes = nil
	c = hosted(nil)
	_, err = c.Embed(context.Background(), "embed", texts, &dim, send(c))
	if err == nil || !strings.Contains(err.Error(), "status 400 http_error: too many texts: 5") || c.TooLarge(err) {
		t.Errorf("without TooLarge: %v, want the 400 as the error", err)
	}
}

func TestCallerAnswer(t *testing.T) {
	c := Caller{Provider: "p", Model: "m", Secret: "sk-the-key"}
	f := &Fault{StatusCode: 502, Type: TypeHTTP, Retryable: true, Body: []byte("  <html>bad gateway sk-the-key</html>\n")}
	if e := c.Answer("embed", batch.Ref{}, f, ""); e.Message != "<html>bad gateway [redacted]</html>" || !e.Retryable() {
		t.Errorf("no message: %q retryable %v, want the body's text, redacted", e.Message, e.Retryable())
	}
	if e := c.Answer("embed", batch.Ref{}, f, "upstream failed"); e.Message != "upstream failed" {
		t.Errorf("message: %q", e.Message)
	}
}
