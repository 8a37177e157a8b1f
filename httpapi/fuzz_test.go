package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/situate/situate/httpapi"
)

// FuzzDecode sends arbitrary bodies to search and upsert and arbitrary
// filters to the listing: the server never fails (5xx) or panics, every
// refusal is a JSON error naming a field, and a refused upsert stores
// nothing.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"query":"tide","k":3}`, `{"query":"x","filters":{"metadata":{"y":{"gte":2020,"lt":"2024-01-01"}}}}`,
		`{"query":"x","filters":{"docs":["a","../b"],"metadata":{"t":{"in":["a"],"not_in":[],"exists":true}}}}`,
		`{"text":"hello","metadata":{"a":"b"},"access":["x"]}`, `{"text":"x","metadata":{"a":1}}`, `{"query":"\ud800"}`,
		"{\"query\":\"caf\xe9\"}", `{"query":"x","k":1e400}`, `{"filters":null,"query":"x"}`, `[]`, `null`, `{"query":"x"}{`,
		`{"query":"x","filters":{"metadata":{"a":{"gt":{"x":1}}}}}`, `{"text":"x","format":"html","lang":"de"}`,
	} {
		f.Add([]byte(s))
	}
	e := newEnv(f, envOptions{})
	h := e.srv.Handler()
	send := func(t *testing.T, method, path string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		req.Host = "127.0.0.1:8080" // a server without keys answers only loopback Hosts
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var er httpapi.ErrorResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &er); err != nil || er.Error.Message == "" {
				t.Fatalf("%s %q: error body %q is not an error document", path, body, rec.Body)
			}
			if rec.Code == 400 && er.Error.Field == "" {
				t.Fatalf("%s %q: 400 without a field: %s", path, body, rec.Body)
			}
		}
		return rec
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if rec := send(t, "POST", "/v1/search", body); rec.Code != 200 && rec.Code != 400 && rec.Code != 413 {
			t.Fatalf("search %q: %d", body, rec.Code)
		}
		before, _ := e.stores[httpapi.LocalTenant].JobCounts(context.Background())
		rec := send(t, "PUT", "/v1/documents/fuzz.md", body)
		after, _ := e.stores[httpapi.LocalTenant].JobCounts(context.Background())
		total := func(m map[string]int) int { return m["queued"] + m["running"] + m["done"] + m["failed"] }
		switch rec.Code {
		case http.StatusAccepted:
			if total(after) != total(before)+1 {
				t.Fatalf("upsert %q accepted without a job", body)
			}
		case 400, 413:
			if total(after) != total(before) {
				t.Fatalf("refused upsert %q queued a job", body)
			}
		default:
			t.Fatalf("upsert %q: %d", body, rec.Code)
		}
		q := "/v1/documents?filter=" + urlEscape(string(body))
		if rec := send(t, "GET", q, nil); rec.Code != 200 && rec.Code != 400 {
			t.Fatalf("list filter %q: %d", body, rec.Code)
		}
	})
}

func urlEscape(s string) string {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else {
			b.WriteString("%")
			b.WriteString("0123456789ABCDEF"[c>>4 : c>>4+1])
			b.WriteString("0123456789ABCDEF"[c&15 : c&15+1])
		}
	}
	return b.String()
}
