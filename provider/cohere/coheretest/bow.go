package coheretest

import "github.com/situate/situate/internal/fakeembed"

// The fake's "model" is internal/fakeembed's hashed bag of words, shared by
// every fake provider server so that the same text gets the same vector in
// all of them. These expose it to tests:
//
//   - Terms splits text into lower-cased word terms (runs of letters and
//     digits, stopwords dropped); Han, kana and Hangul characters are terms
//     of their own, and so are their adjacent pairs.
//   - Vector is the fake's embedding of text: every term adds ±1 to a
//     hashed position of a dim-dimensional vector, which is then
//     L2-normalized; a text without terms gets a unit vector at a position
//     hashed from the text, so no vector is ever zero.
//   - ContextVector is the fake's contextualized chunk embedding: the
//     chunk's bag of words plus, at weight 0.3, that of its whole document.
//   - Score is the fake reranker: the share of the query's distinct terms
//     that occur in doc, in [0, 1].
//   - Tokens approximates the token count of Cohere's tokenizer: a token per 4
//     ASCII bytes, per Han/kana/Hangul character and per 2 other characters.
var (
	Terms         = fakeembed.Terms
	Vector        = fakeembed.Vector
	ContextVector = fakeembed.ContextVector
	Score         = fakeembed.Score
	Tokens        = fakeembed.Tokens
)
