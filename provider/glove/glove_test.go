package glove

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
)

func tiny(t *testing.T, o Options) *Embedder {
	t.Helper()
	if o.Path == "" {
		o.Path = copyTestdata(t, "tiny.txt")
	}
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// copyTestdata copies a testdata file into a temporary directory so the
// cache written next to it never lands in the repository.
func copyTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWords(t *testing.T) {
	known := map[string]bool{"parse": true, "http": true, "header": true, "javascript": true, "user": true, "id": true, "2": true, "v": true}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseHTTPHeader", []string{"parse", "http", "header"}},
		{"JavaScript user_id", []string{"javascript", "user", "id"}},
		{"v2 ParseHeader(", []string{"v", "2", "parse", "header"}},
		{"Über the — unknown", nil},
		{"", nil},
	} {
		var got []string
		Words(tc.in, func(w string) bool { return known[w] }, func(w string) { got = append(got, w) })
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var all []string
	Words("Grüße, HTTPServer_x!", nil, func(w string) { all = append(all, w) })
	if want := []string{"grüße", "httpserver", "x"}; !reflect.DeepEqual(all, want) {
		t.Errorf("Words(nil known) = %q, want %q", all, want)
	}
}

// TestEmbedMean checks the arithmetic on hand-made vectors: the mean of
// the known words, minus its projection on the common direction,
// normalised.
func TestEmbedMean(t *testing.T) {
	e := tiny(t, Options{Weighting: WeightingMean})
	if e.Name() != "glove:tiny+mean" || e.Dim() != 4 {
		t.Fatalf("name %q dim %d", e.Name(), e.Dim())
	}
	got, err := e.Embed(context.Background(), []string{"The CAT, the kitten; zebra!"}, driver.InputQuery)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]float64{"the": {.5, .5, 0, 0}, "cat": {1, 0, .2, 0}, "kitten": {.9, .1, .3, 0}}
	mean := make([]float64, 4)
	for _, w := range []string{"the", "cat", "the", "kitten"} {
		for j := range mean {
			mean[j] += rows[w][j] / 4
		}
	}
	c := make([]float64, 4)
	for j := range c {
		c[j] = float64(e.common[j])
	}
	d := 0.0
	for j := range mean {
		d += mean[j] * c[j]
	}
	for j := range mean {
		mean[j] -= d * c[j]
	}
	want := normalize(mean)
	for j := range want {
		if math.Abs(float64(got[0][j]-want[j])) > 1e-6 {
			t.Fatalf("vector %v, want %v", got[0], want)
		}
	}
	if n := dot(got[0], got[0]); math.Abs(n-1) > 1e-6 {
		t.Fatalf("norm² %v", n)
	}
	if math.Abs(dot(got[0], e.common)) > 1e-6 {
		t.Fatalf("common component not removed: %v", dot(got[0], e.common))
	}
}

func TestEmbedSimilarity(t *testing.T) {
	for _, w := range []string{WeightingMean, WeightingSIF} {
		e := tiny(t, Options{Weighting: w})
		v, err := e.Embed(context.Background(), []string{"cat", "kitten", "desk", "parseHttpHeader", "parse http header"}, driver.InputDocument)
		if err != nil {
			t.Fatal(err)
		}
		if dot(v[0], v[1]) <= dot(v[0], v[2]) {
			t.Errorf("%s: cat·kitten %.3f <= cat·desk %.3f", w, dot(v[0], v[1]), dot(v[0], v[2]))
		}
		if !reflect.DeepEqual(v[3], v[4]) {
			t.Errorf("%s: camelCase identifier embeds differently from its words: %v vs %v", w, v[3], v[4])
		}
	}
}

func TestSIFWeights(t *testing.T) {
	e := tiny(t, Options{Weighting: WeightingSIF, SIFA: 0.01})
	if e.Name() != "glove:tiny+sif(a=0.01)" {
		t.Fatalf("name %q", e.Name())
	}
	for r := 1; r < len(e.weight); r++ {
		if !(e.weight[r] > e.weight[r-1]) || e.weight[r] >= 1 {
			t.Fatalf("weights must rise with rank and stay below 1: %v", e.weight)
		}
	}
}

func TestNoKnownWord(t *testing.T) {
	e := tiny(t, Options{})
	v, err := e.Embed(context.Background(), []string{"", "}}} ;;", "}}} ;;", "zebra quagga", "cat"}, driver.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range v[:4] {
		if n := dot(x, x); math.Abs(n-1) > 1e-6 {
			t.Fatalf("text %d: norm² %v, want a unit vector", i, n)
		}
	}
	if !reflect.DeepEqual(v[1], v[2]) {
		t.Error("identical texts with no known word embed differently")
	}
	if reflect.DeepEqual(v[0], v[1]) || reflect.DeepEqual(v[1], v[3]) {
		t.Error("different texts with no known word share a vector")
	}
}

func TestWinkFormat(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "tiny-wink", WinkFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "package"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package", WinkFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := New(Options{Path: dir}) // finds package/WinkFile
	if err != nil {
		t.Fatal(err)
	}
	if w.Name() != "glove:wink-sg-100d" {
		t.Fatalf("name %q", w.Name())
	}
	txt := tiny(t, Options{})
	if !reflect.DeepEqual(w.t.vecs, txt.t.vecs) || !reflect.DeepEqual(w.t.index, txt.t.index) {
		t.Fatalf("wink and text formats of the same vectors differ")
	}
	// The cache written by the first load is read back identically.
	cached, err := readTable(filepath.Join(dir, "package", WinkFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "package", WinkFile+CacheSuffix)); err != nil {
		t.Fatalf("no cache: %v", err)
	}
	if !reflect.DeepEqual(cached.vecs, w.t.vecs) || !reflect.DeepEqual(cached.index, w.t.index) {
		t.Fatal("cache round trip changed the table")
	}
}

func TestStaleCache(t *testing.T) {
	p := copyTestdata(t, "tiny.txt")
	if _, err := readTable(p); err != nil {
		t.Fatal(err)
	}
	// Rewrite the source: the cache no longer matches and must be ignored.
	if err := os.WriteFile(p, []byte("cat 1 2\ndog 3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := readTable(p)
	if err != nil {
		t.Fatal(err)
	}
	if tb.dim != 2 || tb.size() != 2 {
		t.Fatalf("stale cache used: %d words x %d", tb.size(), tb.dim)
	}
	// A corrupt cache is ignored too.
	if err := os.WriteFile(p+CacheSuffix, []byte("SGLOVE01garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tb, err = readTable(p); err != nil || tb.size() != 2 {
		t.Fatalf("corrupt cache: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		path, want string
	}{
		{write("ragged.txt", "cat 1 2\ndog 3\n"), "line 2: word \"dog\" has 1 values, want 2"},
		{write("nan.txt", "cat 1 NaN\n"), "line 1: word \"cat\": value \"NaN\""},
		{write("empty.txt", "\n\n"), "no word vectors"},
		{write("nodim.json", `{"vectors":{"a":[1]}}`), "field dimensions"},
		{write("short.json", `{"dimensions":2,"vectors":{"a":[1]}}`), `word "a" has 1 values`},
		{write("order.json", `{"dimensions":1,"wordIndex":2,"vectors":{"a":[1,1,1],"b":[1,1,0]}}`), "not in frequency order"},
		{write("trunc.json", `{"dimensions":1,"vectors":{"a":[1`), "byte"},
		{filepath.Join(dir, "missing"), "fetch-glove.sh"},
		{t.TempDir(), "no " + WinkFile},
	} {
		_, err := New(Options{Path: tc.path})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", filepath.Base(tc.path), err, tc.want)
		}
	}
	if _, err := New(Options{Path: "testdata/tiny.txt", Weighting: "tfidf"}); !errors.Is(err, driver.ErrInvalid) {
		t.Errorf("bad weighting: %v", err)
	}
}

func TestParseNumber(t *testing.T) {
	for _, s := range []string{"0", "-0.038194", "5.821154", "1e-05", "-2.5E3", "0.000123", "12345678901234567890.5", "3.4e38"} {
		got, ok := parseNumber([]byte(s))
		want, _ := strconvFloat(s)
		if !ok || math.Abs(float64(got-want)) > 1e-6*math.Max(1, math.Abs(float64(want))) {
			t.Errorf("parseNumber(%q) = %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", ".", "1e", "1.2.3", "abc", "NaN", "Inf", "1e999"} {
		if _, ok := parseNumber([]byte(s)); ok {
			t.Errorf("parseNumber(%q) accepted", s)
		}
	}
}

func TestParseSpec(t *testing.T) {
	for in, want := range map[string]Options{
		"":                {},
		"sif":             {Weighting: "sif"},
		"sif:/x/y.json":   {Path: "/x/y.json", Weighting: "sif"},
		"mean:dir":        {Path: "dir", Weighting: "mean"},
		"/x/glove.6B.txt": {Path: "/x/glove.6B.txt"},
	} {
		if got := ParseSpec(in); got != want {
			t.Errorf("ParseSpec(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func strconvFloat(s string) (float32, error) {
	f, err := strconv.ParseFloat(s, 32)
	return float32(f), err
}
