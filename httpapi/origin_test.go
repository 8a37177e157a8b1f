package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestBrowserAttacksRefused: a page of another site cannot make a browser
// post to a local server without keys (cross-origin request), nor reach it
// under its own name after rebinding DNS to 127.0.0.1 (Host check); plain
// clients, which send neither header, are unaffected.
func TestBrowserAttacksRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	body := `{"text":"secret plans","metadata":{},"access":[]}`
	cases := []struct {
		name   string
		host   string
		header map[string]string
		want   int
	}{
		{"plain client", "", nil, http.StatusOK},
		{"cross-site form post", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"cross-origin without fetch metadata", "", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"same-origin page", "", map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		{"rebound host name", "evil.example:8080", nil, http.StatusForbidden},
		{"localhost by name", "localhost:8080", nil, http.StatusOK},
		{"ipv6 loopback", "[::1]:8080", nil, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest("PUT", e.ts.URL+"/v1/documents/origin.md", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if c.host != "" {
				req.Host = c.host
			}
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.StatusCode; (c.want == http.StatusOK) != (got < 300) || (c.want != http.StatusOK && got != c.want) {
				t.Fatalf("PUT with %s: status %d, want %d", c.name, got, c.want)
			}
		})
	}
}
