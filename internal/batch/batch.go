package batch

import (
	"context"
	"fmt"
)

// Span is one request's share of a call's items: items[Lo:Hi].
type Span struct{ Lo, Hi int }

// Ref names the request an error belongs to: N is its 1-based number
// within the call (0 means the error is not about one request), First and
// Last are the indexes (inclusive) of the items it carried.
type Ref struct{ N, First, Last int }

// Plan cuts items of the given estimated token counts into spans of at
// most maxItems items and maxTokens tokens; an item above maxTokens goes
// alone.
func Plan(tokens []int, maxItems, maxTokens int) []Span {
	var out []Span
	lo, sum := 0, 0
	for i, t := range tokens {
		if i > lo && (i-lo >= maxItems || sum+t > maxTokens) {
			out = append(out, Span{Lo: lo, Hi: i})
			lo, sum = i, 0
		}
		sum += t
	}
	if lo < len(tokens) {
		out = append(out, Span{Lo: lo, Hi: len(tokens)})
	}
	return out
}

// Run sends spans in order, numbering the requests from 1, and stops at
// the first error. A span of more than one item whose error tooLarge
// reports (the server refused the batch as too large) is split in two
// halves, which are sent next.
func Run(ctx context.Context, spans []Span, send func(ctx context.Context, s Span, r Ref) error, tooLarge func(error) bool) error {
	n := 0
	for len(spans) > 0 {
		s := spans[0]
		spans = spans[1:]
		n++
		err := send(ctx, s, Ref{N: n, First: s.Lo, Last: s.Hi - 1})
		if err != nil && s.Hi-s.Lo > 1 && tooLarge(err) {
			mid := (s.Lo + s.Hi) / 2
			spans = append([]Span{{Lo: s.Lo, Hi: mid}, {Lo: mid, Hi: s.Hi}}, spans...)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Problem is a text refused before sending.
type Problem struct {
	// Index is the text's index in the call, -1 for a query.
	Index int
	// TooLong is set for a text above the limit, clear for an empty text.
	TooLong bool
	Message string
}

// CheckTexts refuses empty texts and texts whose estimated tokens (of
// prefix+text, the text the adapter sends) exceed limit, and returns each
// one's estimate. what names a text in the message ("text", "document 3
// chunk").
func CheckTexts(texts []string, prefix string, limit int, what string, estimate func(string) int) ([]int, *Problem) {
	tokens := make([]int, len(texts))
	for i, t := range texts {
		if t == "" {
			return nil, &Problem{Index: i, Message: fmt.Sprintf("%s %d is empty", what, i)}
		}
		t = prefix + t
		tokens[i] = estimate(t)
		if tokens[i] > limit {
			return nil, &Problem{Index: i, TooLong: true, Message: fmt.Sprintf(
				"%s %d: about %d tokens (estimated from %d bytes) > MaxInputTokens %d; shorten it before embedding",
				what, i, tokens[i], len(t), limit)}
		}
	}
	return tokens, nil
}

// CheckQuery refuses an empty query and one whose estimated tokens reach
// limit (the reranker's bound on query plus one text, leaving no room for
// the text), and returns the estimate.
func CheckQuery(query string, limit int, estimate func(string) int) (int, *Problem) {
	if query == "" {
		return 0, &Problem{Index: -1, Message: "query is empty"}
	}
	qt := estimate(query)
	if qt >= limit {
		return 0, &Problem{Index: -1, TooLong: true,
			Message: fmt.Sprintf("query: about %d tokens (estimated) >= MaxInputTokens %d", qt, limit)}
	}
	return qt, nil
}

// Sequential embeds texts in requests of at most size texts, sent in
// order and numbered from 1; send returns one request's vectors, which
// are appended in order. It stops at the first error.
func Sequential(ctx context.Context, texts []string, size int,
	send func(ctx context.Context, texts []string, r Ref) ([][]float32, error)) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo, n := 0, 1; lo < len(texts); lo, n = lo+size, n+1 {
		hi := min(lo+size, len(texts))
		vecs, err := send(ctx, texts[lo:hi], Ref{N: n, First: lo, Last: hi - 1})
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}
