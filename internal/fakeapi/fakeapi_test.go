package fakeapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestTake(t *testing.T) {
	type fault struct {
		path string
		skip int
	}
	q := []fault{{"/a", 1}, {"", 0}, {"/a", 0}}
	match := func(path string) func(*fault) bool {
		return func(f *fault) bool { return f.path == "" || f.path == path }
	}
	skip := func(f *fault) *int { return &f.skip }
	if f := Take(&q, match("/a"), skip); f != nil || q[0].skip != 0 || len(q) != 3 {
		t.Fatalf("first /a request: %v, queue %v", f, q)
	}
	if f := Take(&q, match("/b"), skip); f == nil || f.path != "" || len(q) != 2 {
		t.Fatalf("/b request: %v, queue %v", f, q)
	}
	if f := Take(&q, match("/a"), skip); f == nil || f.path != "/a" || len(q) != 1 {
		t.Fatalf("second /a request: %v, queue %v", f, q)
	}
	if f := Take(&q, nil, nil); f == nil || len(q) != 0 {
		t.Fatalf("any: %v, queue %v", f, q)
	}
	if f := Take(&q, nil, skip); f != nil {
		t.Fatalf("empty queue gave %v", f)
	}
}

func TestRetryAfter(t *testing.T) {
	for d, want := range map[time.Duration]string{1500 * time.Millisecond: "2", time.Second: "1", 0: ""} {
		w := httptest.NewRecorder()
		RetryAfter(w, d)
		if got := w.Header().Get("retry-after"); got != want {
			t.Errorf("RetryAfter(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestServer runs a request through every step of the skeleton: it is
// recorded, takes the fault for its path after Skip, is refused without
// the key, and an Intercept answers a status fault.
func TestServer(t *testing.T) {
	var arrived []int
	s := New(FaultHooks(Hooks[Fault]{
		MaxBody:      8,
		Arrive:       func(_ http.ResponseWriter, _ *http.Request, seq int, _ *Fault) { arrived = append(arrived, seq) },
		Authorized:   Bearer("k"),
		Unauthorized: func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no key", http.StatusUnauthorized) },
		Intercept: func(w http.ResponseWriter, _ *http.Request, _ []byte, f *Fault) bool {
			if !f.Is(RateLimited) {
				return false
			}
			RetryAfter(w, f.RetryAfter)
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return true
		},
	}))
	s.Handle("POST /embed", func(w http.ResponseWriter, _ *http.Request, body []byte, f *Fault) {
		WriteJSON(w, "", map[string]any{"got": string(body), "vectors": Shape([][]float32{{1, 2}, {3, 4}}, kindOf(f))}, f.Is(Truncated))
	})
	s.Start()
	defer s.Close()
	s.Inject(Fault{Kind: RateLimited, RetryAfter: 2 * time.Second, Path: "/embed", Skip: 1},
		Fault{Kind: WrongCount, Path: "/other"})
	post := func(key, body string) (int, string, http.Header) {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/embed", strings.NewReader(body))
		req.Header.Set("authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b)), resp.Header
	}
	if code, body, _ := post("k", "hello"); code != 200 || body != `{"got":"hello","vectors":[[1,2],[3,4]]}` {
		t.Errorf("first request (skipped by the fault): %d %s", code, body)
	}
	if code, body, h := post("k", "again"); code != 429 || body != "slow down" || h.Get("retry-after") != "2" {
		t.Errorf("second request: %d %s retry-after %q, want the rate limit", code, body, h.Get("retry-after"))
	}
	if code, body, _ := post("wrong", "x"); code != 401 || body != "no key" {
		t.Errorf("wrong key: %d %s", code, body)
	}
	if code, body, _ := post("k", "0123456789abc"); code != 200 || body != `{"got":"012345678","vectors":[[1,2],[3,4]]}` {
		t.Errorf("long body: %d %s, want it read to MaxBody+1 bytes", code, body)
	}
	reqs := s.Requests()
	if len(reqs) != 4 || reqs[0].Method != "POST" || reqs[0].Path != "/embed" || string(reqs[1].Body) != "again" ||
		reqs[2].Header.Get("authorization") != "Bearer wrong" {
		t.Errorf("recorded %+v", reqs)
	}
	if len(arrived) != 4 || arrived[3] != 4 {
		t.Errorf("Arrive saw %v", arrived)
	}
	s.Inject(Fault{Kind: WrongCount}, Fault{Kind: Truncated})
	if _, body, _ := post("k", "x"); body != `{"got":"x","vectors":[[1,2]]}` {
		t.Errorf("WrongCount: %s", body)
	}
	if _, body, _ := post("k", "x"); body != `{"got":"x","vecto` {
		t.Errorf("Truncated: %s", body)
	}
}

func kindOf(f *Fault) Kind {
	if f == nil {
		return 0
	}
	return f.Kind
}

// TestHangEndsAtClose checks a hung request is let go by its client's
// deadline, and by Close (else Close would wait for it forever).
func TestHangEndsAtClose(t *testing.T) {
	s := New(Hooks[Fault]{})
	s.Handle("/", func(_ http.ResponseWriter, r *http.Request, _ []byte, _ *Fault) { s.Hang(r.Context()) })
	s.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hung request: %v, want the client's deadline", err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := http.Get(s.URL)
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	s.Close()
	select {
	case <-errc: // an empty answer or a closed connection: either ends it
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a hung request")
	}
}

func TestShape(t *testing.T) {
	vecs := func() [][]float32 { return [][]float32{{1, 2}, {3, 4}} }
	if got := Shape(vecs(), WrongDim); len(got[0]) != 1 || len(got[1]) != 2 {
		t.Errorf("WrongDim: %v", got)
	}
	if got := Shape(vecs(), Zero); got[0][0] != 0 || got[0][1] != 0 || got[1][0] != 3 {
		t.Errorf("Zero: %v", got)
	}
	if got := Shape(vecs(), Empty); got != nil {
		t.Errorf("Empty: %v", got)
	}
	if got := Shape(vecs(), NaN); len(got) != 2 || len(got[0]) != 2 {
		t.Errorf("NaN is the fake's to write, Shape changed %v", got)
	}
	type res struct{ i int }
	idx := func(r *res) *int { return &r.i }
	if got := ShapeResults([]res{{2}, {0}, {1}}, BadIndex, idx); got[1].i != 2 {
		t.Errorf("BadIndex: %v", got)
	}
	if got := ShapeResults([]res{{2}, {0}}, WrongCount, idx); len(got) != 1 {
		t.Errorf("WrongCount: %v", got)
	}
	if got := TruncateTokens("abcdefgh", 1, func(s string) int { return (len(s) + 3) / 4 }); got != "abcd" {
		t.Errorf("TruncateTokens: %q", got)
	}
}

func TestContextFor(t *testing.T) {
	for prompt, want := range map[string]string{
		"<document>a b</document> <chunk>one two three four</chunk> tail": "Context for: one two three",
		"<chunk>old</chunk> then <chunk>new words here</chunk>":           "Context for: new words here",
		"no tags at all in this prompt":                                   "Context for: no tags at",
	} {
		if got := ContextFor(prompt, 3); got != want {
			t.Errorf("ContextFor(%q) = %q, want %q", prompt, got, want)
		}
	}
}
