package fakeembed

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by for from has have in is it its of on or
		that the this to was were will with der die das und ist ein eine zu den von mit el la los las
		de del y en es un una que и в на не что это 的 了 是`) {
		stopwords[w] = true
	}
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Terms splits text into lower-cased word terms (runs of letters and
// digits, stopwords dropped); Han, kana and Hangul characters are terms of
// their own, and so are their adjacent pairs.
func Terms(text string) []string {
	var out []string
	var word []rune
	var prevCJK rune
	flush := func() {
		if len(word) > 0 {
			w := string(word)
			if !stopwords[w] {
				out = append(out, w)
			}
			word = word[:0]
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case isCJK(r):
			flush()
			if !stopwords[string(r)] {
				out = append(out, string(r))
			}
			if prevCJK != 0 {
				out = append(out, string([]rune{prevCJK, r}))
			}
			prevCJK = r
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			word = append(word, r)
		default:
			flush()
		}
		prevCJK = 0
	}
	flush()
	return out
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Vector is the fakes' embedding of text: every term adds ±1 to a hashed
// position of a dim-dimensional vector, which is then L2-normalized. A text
// without terms gets a unit vector at a position hashed from the text, so
// no vector is ever zero.
func Vector(text string, dim int) []float32 {
	acc := make([]float64, dim)
	for _, t := range Terms(text) {
		h := hash(t)
		if h>>63 == 0 {
			acc[h%uint64(dim)]++
		} else {
			acc[h%uint64(dim)]--
		}
	}
	return normalize(acc, text)
}

func normalize(acc []float64, text string) []float32 {
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	out := make([]float32, len(acc))
	if norm == 0 {
		out[hash("\x00"+text)%uint64(len(acc))] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range acc {
		out[i] = float32(x / norm)
	}
	return out
}

// ContextVector is the fakes' contextualized chunk embedding: the chunk's
// bag of words plus, at weight 0.3, the bag of words of its whole document.
func ContextVector(chunk string, doc []string, dim int) []float32 {
	c := Vector(chunk, dim)
	d := Vector(strings.Join(doc, "\n"), dim)
	acc := make([]float64, dim)
	for i := range acc {
		acc[i] = float64(c[i]) + 0.3*float64(d[i])
	}
	return normalize(acc, chunk)
}

// Score is the fakes' reranker: the share of the query's distinct terms that
// occur in doc, in [0, 1].
func Score(query, doc string) float64 {
	q := map[string]bool{}
	for _, t := range Terms(query) {
		q[t] = true
	}
	if len(q) == 0 {
		return 0
	}
	d := map[string]bool{}
	for _, t := range Terms(doc) {
		d[t] = true
	}
	hit := 0
	for t := range q {
		if d[t] {
			hit++
		}
	}
	return float64(hit) / float64(len(q))
}

// Tokens approximates a subword tokenizer's token count: a token per 4 ASCII bytes,
// per Han/kana/Hangul character and per 2 other characters.
func Tokens(s string) int {
	ascii, cjk, other := 0, 0, 0
	for _, r := range s {
		switch {
		case r < 0x80:
			ascii++
		case isCJK(r):
			cjk++
		default:
			other++
		}
	}
	return (ascii+3)/4 + cjk + (other+1)/2
}

// HashVector is the LLM fakes' embedding (ollamatest, openaitest): dim
// values in [-1, 1] from an FNV hash of the index and the whole text,
// L2-normalised. Unlike Vector it carries no meaning: texts that differ
// at all get unrelated vectors.
func HashVector(text string, dim int) []float64 {
	v := make([]float64, dim)
	var norm float64
	for i := range v {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d:%s", i, text)
		v[i] = float64(h.Sum64()%2001)/1000 - 1
		norm += v[i] * v[i]
	}
	norm = math.Sqrt(norm)
	for i := range v {
		if norm > 0 {
			v[i] /= norm
		}
	}
	return v
}
