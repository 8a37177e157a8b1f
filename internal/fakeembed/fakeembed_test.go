package fakeembed

import (
	"hash/fnv"
	"math"
	"slices"
	"testing"
)

func sum(v []float32) uint64 {
	h := fnv.New64a()
	for _, x := range v {
		b := math.Float32bits(x)
		h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
	}
	return h.Sum64()
}

// The pinned sums were computed by the four fakes' former copies of this
// code (provider/*/…test/bow.go before it moved here): a change to the
// vectors changes what every fake answers and what end-to-end tests rank.
func TestPinned(t *testing.T) {
	for _, c := range []struct {
		text   string
		sum    uint64
		tokens int
		terms  []string
	}{
		{"the cat sat on the mat", 0xf0f1ef4cf3127c9e, 6, []string{"cat", "sat", "mat"}},
		{"", 0x29379626a3e77be8, 0, nil},
		{"Der Hund, 北京!", 0x638610b73e9624f5, 5, []string{"hund", "北", "京", "北京"}},
		{"Москва — столица России", 0x108b0b3e572194fe, 11, []string{"москва", "столица", "россии"}},
		{"el perro y la casa", 0x3a7d69f9f5c9bf51, 5, []string{"perro", "casa"}},
		{"the of and", 0xfad9f5a1be94e438, 3, nil},
	} {
		v := Vector(c.text, 64)
		if got := sum(v); got != c.sum {
			t.Errorf("Vector(%q, 64): sum %#x, want %#x", c.text, got, c.sum)
		}
		if got := Tokens(c.text); got != c.tokens {
			t.Errorf("Tokens(%q) = %d, want %d", c.text, got, c.tokens)
		}
		if got := Terms(c.text); !slices.Equal(got, c.terms) {
			t.Errorf("Terms(%q) = %q, want %q", c.text, got, c.terms)
		}
	}
	if got := sum(ContextVector("cat mat", []string{"cat mat", "dog bone"}, 32)); got != 0xb1895f6c52334b8d {
		t.Errorf("ContextVector: sum %#x, want %#x", got, uint64(0xb1895f6c52334b8d))
	}
	if got := Score("cat dog fish", "a cat and a dog"); got != 2.0/3 {
		t.Errorf("Score = %v, want 2/3", got)
	}
}

func TestVectorUnitNorm(t *testing.T) {
	for _, text := range []string{"", "the", "hello world", "北京大学", "x"} {
		for _, dim := range []int{1, 7, 256} {
			v := Vector(text, dim)
			if len(v) != dim {
				t.Fatalf("Vector(%q, %d): len %d", text, dim, len(v))
			}
			var n float64
			for _, x := range v {
				n += float64(x) * float64(x)
			}
			if math.Abs(n-1) > 1e-5 {
				t.Errorf("Vector(%q, %d): squared norm %v, want 1", text, dim, n)
			}
		}
	}
}

func TestScore(t *testing.T) {
	for _, c := range []struct {
		q, d string
		want float64
	}{
		{"cat", "a cat", 1},
		{"cat dog", "fish", 0},
		{"the", "the cat", 0}, // only stopwords: no query terms
		{"北京", "我在北京", 1},
	} {
		if got := Score(c.q, c.d); got != c.want {
			t.Errorf("Score(%q, %q) = %v, want %v", c.q, c.d, got, c.want)
		}
	}
}

func TestHashVector(t *testing.T) {
	a, b := HashVector("some text", 16), HashVector("some text.", 16)
	var norm, dot float64
	for i := range a {
		norm += a[i] * a[i]
		dot += a[i] * b[i]
	}
	if math.Abs(norm-1) > 1e-9 || len(a) != 16 {
		t.Errorf("norm %v, len %d: want a unit vector of 16", norm, len(a))
	}
	if dot > 0.9 {
		t.Errorf("texts differing by one character have similar vectors (cosine %v)", dot)
	}
	if c := HashVector("some text", 16); c[3] != a[3] {
		t.Error("not deterministic")
	}
}
