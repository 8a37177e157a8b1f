package fakeapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Kind is a scripted failure of the embedding and rerank fakes. Each fake
// declares the kinds it serves under its own names (coheretest's
// FaultRateLimit is RateLimited) and answers them in its provider's wire
// format.
type Kind int

// Kinds.
const (
	RateLimited Kind = iota + 1 // 429 with the provider's rate-limit body
	ServerError                 // 5xx: the server failed (TEI: 424 Backend)
	Unavailable                 // 503: unhealthy or overloaded
	WrongCount                  // one vector (or result) too few
	WrongDim                    // the first vector one value short
	NaN                         // a NaN in the first vector (not valid JSON)
	Empty                       // no vectors (or results)
	Truncated                   // the body cut in half
	BadIndex                    // two results with the same index
	Zero                        // the first vector all zeros
)

// Fault is one injected failure, used by the first matching request.
type Fault struct {
	Kind Kind
	// RetryAfter, if set, is sent as retry-after (whole seconds, rounded
	// up).
	RetryAfter time.Duration
	// Path selects the endpoint (a URL path such as "/v2/embed"); ""
	// matches any.
	Path string
	// Skip lets that many matching requests pass before the fault fires.
	Skip int
}

// Is reports whether f is a fault of kind k; a nil f is none.
func (f *Fault) Is(k Kind) bool { return f != nil && f.Kind == k }

// FaultHooks are the Match and Skip hooks of a fake whose faults are
// Faults: a fault applies to its Path (any if ""), after Skip requests.
func FaultHooks(h Hooks[Fault]) Hooks[Fault] {
	h.Match = func(f *Fault, r *http.Request) bool { return f.Path == "" || f.Path == r.URL.Path }
	h.Skip = func(f *Fault) *int { return &f.Skip }
	return h
}

// WriteJSON answers v as JSON (json.Marshal's encoding) with status 200
// under contentType ("application/json" if empty). truncate cuts the body
// in half, inside a JSON value, as a connection dropped mid-answer leaves
// it.
func WriteJSON(w http.ResponseWriter, contentType string, v any, truncate bool) {
	data, _ := json.Marshal(v)
	if truncate {
		data = data[:len(data)/2]
	}
	if contentType == "" {
		contentType = "application/json"
	}
	w.Header().Set("content-type", contentType)
	_, _ = w.Write(data)
}

// Shape applies a vector fault (WrongCount, WrongDim, Empty, Zero; other
// kinds leave the batch alone) and returns the batch; Empty gives nil.
func Shape(vecs [][]float32, k Kind) [][]float32 {
	if len(vecs) == 0 {
		return vecs
	}
	switch k {
	case WrongCount:
		return vecs[:len(vecs)-1]
	case WrongDim:
		vecs[0] = vecs[0][:len(vecs[0])-1]
	case Empty:
		return nil
	case Zero:
		vecs[0] = make([]float32, len(vecs[0]))
	}
	return vecs
}

// TruncateTokens keeps the longest prefix of t that tokens counts at no
// more than n, as a server cutting an input at its context length does.
func TruncateTokens(t string, n int, tokens func(string) int) string {
	rs := []rune(t)
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if tokens(string(rs[:mid])) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(rs[:lo])
}

// ShapeResults applies a result fault (WrongCount, Empty, BadIndex: the
// second result given the first one's index) to rerank results whose
// index field index returns, and returns them; Empty gives nil.
func ShapeResults[T any](res []T, k Kind, index func(*T) *int) []T {
	switch {
	case k == WrongCount && len(res) > 0:
		return res[:len(res)-1]
	case k == Empty:
		return nil
	case k == BadIndex && len(res) > 1:
		*index(&res[1]) = *index(&res[0])
	}
	return res
}

// ContextFor is the fake LLMs' situating context for a prompt: "Context
// for: " and the first n words of the last <chunk>...</chunk> in prompt
// (of the whole prompt if it has none), so a test can tell which chunk a
// context was written for.
func ContextFor(prompt string, n int) string {
	if i := strings.LastIndex(prompt, "<chunk>"); i >= 0 {
		prompt = prompt[i+len("<chunk>"):]
		if j := strings.Index(prompt, "</chunk>"); j >= 0 {
			prompt = prompt[:j]
		}
	}
	words := strings.Fields(prompt)
	if len(words) > n {
		words = words[:n]
	}
	return "Context for: " + strings.Join(words, " ")
}
