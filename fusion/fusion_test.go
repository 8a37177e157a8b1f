package fusion

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate testdata/cookbook_golden.json with python3")

type want struct {
	id    string
	score float64
	ranks []int
}

func check(t *testing.T, got []Result, err error, wants []want) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(wants) {
		t.Fatalf("got %d results %v, want %d", len(got), got, len(wants))
	}
	for i, w := range wants {
		g := got[i]
		if g.ID != w.id || math.Abs(g.Score-w.score) > 1e-12 || !slices.Equal(g.Ranks, w.ranks) {
			t.Errorf("result %d = {%s %.15g %v}, want {%s %.15g %v}", i, g.ID, g.Score, g.Ranks, w.id, w.score, w.ranks)
		}
	}
}

func TestRRF(t *testing.T) {
	a := List{Weight: 1, IDs: []string{"a", "b", "c"}}
	b := List{Weight: 0.5, IDs: []string{"c", "d", "a"}}
	got, err := RRF(60, a, b)
	// a: 1/(60+1) + 0.5/(60+3) = 0.0163934426 + 0.0079365079 = 0.0243299505
	// c: 1/(60+3) + 0.5/(60+1) = 0.0158730159 + 0.0081967213 = 0.0240697372
	// b: 1/(60+2)                                             = 0.0161290323
	// d: 0.5/(60+2)                                           = 0.0080645161
	check(t, got, err, []want{
		{"a", 1.0/61 + 0.5/63, []int{1, 3}},
		{"c", 1.0/63 + 0.5/61, []int{3, 1}},
		{"b", 1.0 / 62, []int{2, 0}},
		{"d", 0.5 / 62, []int{0, 2}},
	})

	// k <= 0 means DefaultRRFK: the same as k = 60.
	got0, _ := RRF(0, a, b)
	if fmt.Sprint(got0) != fmt.Sprint(got) {
		t.Errorf("RRF(0) = %v, want RRF(60) = %v", got0, got)
	}

	// k = 1, one list: 1/(1+1) = 0.5, 1/(1+2) = 0.3333.
	got, err = RRF(1, List{Weight: 1, IDs: []string{"p", "q"}})
	check(t, got, err, []want{{"p", 0.5, []int{1}}, {"q", 1.0 / 3, []int{2}}})
}

func TestRRFTiesByIDAscending(t *testing.T) {
	// x: 1/61 + 1/62 and y: 1/62 + 1/61 are equal; z: 1/63 twice, lower.
	got, err := RRF(60,
		List{Weight: 1, IDs: []string{"y", "x", "z"}},
		List{Weight: 1, IDs: []string{"x", "y", "z"}})
	check(t, got, err, []want{
		{"x", 1.0/62 + 1.0/61, []int{2, 1}},
		{"y", 1.0/61 + 1.0/62, []int{1, 2}},
		{"z", 2.0 / 63, []int{3, 3}},
	})
}

func TestDuplicateKeepsFirstRank(t *testing.T) {
	// [a b a]: a keeps rank 1, the second a is ignored; b keeps rank 2.
	got, err := RRF(60, List{Weight: 1, IDs: []string{"a", "b", "a"}})
	check(t, got, err, []want{{"a", 1.0 / 61, []int{1}}, {"b", 1.0 / 62, []int{2}}})
	got, err = Cookbook(List{Weight: 1, IDs: []string{"a", "b", "a"}})
	check(t, got, err, []want{{"a", 1, []int{1}}, {"b", 0.5, []int{2}}})
}

func TestCookbook(t *testing.T) {
	sem := List{Weight: 0.8, IDs: []string{"a", "b", "c", "d"}}
	bm := List{Weight: 0.2, IDs: []string{"e", "c", "a"}}
	got, err := Cookbook(sem, bm)
	// a: 0.8*(1/1) + 0.2*(1/3) = 0.8 + 0.0666667 = 0.8666667
	// b: 0.8*(1/2)             = 0.4
	// c: 0.8*(1/3) + 0.2*(1/2) = 0.2666667 + 0.1 = 0.3666667
	// d: 0.8*(1/4)             = 0.2 (0.8/4 is exactly float64(0.2))
	// e: 0.2*(1/1)             = 0.2  -> tie with d; reverse=True puts the
	//                                    greater ID first: e, then d.
	check(t, got, err, []want{
		{"a", 0.8 + 0.2*(1.0/3), []int{1, 3}},
		{"b", 0.4, []int{2, 0}},
		{"c", 0.8*(1.0/3) + 0.1, []int{3, 2}},
		{"e", 0.2, []int{0, 1}},
		{"d", 0.2, []int{4, 0}},
	})
	if got[3].Score != got[4].Score {
		t.Errorf("d and e should tie exactly: %v vs %v", got[3].Score, got[4].Score)
	}
}

func TestCookbookKeyedTuples(t *testing.T) {
	// All four score 0.2: 0.8*(1/4) for d#9 (index 3 of the semantic list)
	// and 0.2*(1/1) for the BM25 head d#10, 0.8*(1/4)... ties everywhere.
	sem := List{Weight: 0.8, IDs: []string{"s1#0", "s2#0", "s3#0", "d#9"}}
	bm := List{Weight: 0.2, IDs: []string{"d#10"}}
	// String order (Cookbook): "d#9" > "d#10" ('9' > '1'): d#9 first.
	got, err := Cookbook(sem, bm)
	if err != nil {
		t.Fatal(err)
	}
	if got[3].ID != "d#9" || got[4].ID != "d#10" {
		t.Errorf("Cookbook tie order = %s, %s; want d#9, d#10", got[3].ID, got[4].ID)
	}
	// Tuple order (CookbookKeyed): ("d", 10) > ("d", 9): d#10 first.
	got, err = CookbookKeyed(SplitChunkID("#"), sem, bm)
	if err != nil {
		t.Fatal(err)
	}
	if got[3].ID != "d#10" || got[4].ID != "d#9" {
		t.Errorf("CookbookKeyed tie order = %s, %s; want d#10, d#9", got[3].ID, got[4].ID)
	}
}

func TestMinMax(t *testing.T) {
	a := List{Weight: 3, IDs: []string{"a", "b", "c"}, Scores: []float64{10, 6, 2}}
	b := List{Weight: 1, IDs: []string{"c", "d", "a"}, Scores: []float64{0.9, 0.5, 0.1}}
	got, err := MinMax(a, b)
	// weights 3/(3+1) = 0.75 and 1/(3+1) = 0.25
	// list a: min 2, max 10: a (10-2)/8 = 1, b (6-2)/8 = 0.5, c 0
	// list b: min 0.1, max 0.9: c 1, d (0.5-0.1)/0.8 = 0.5, a 0
	// a: 0.75*1 + 0.25*0 = 0.75; b: 0.75*0.5 = 0.375
	// c: 0.75*0 + 0.25*1 = 0.25; d: 0.25*0.5 = 0.125
	check(t, got, err, []want{
		{"a", 0.75, []int{1, 3}},
		{"b", 0.375, []int{2, 0}},
		{"c", 0.25, []int{3, 1}},
		{"d", 0.125, []int{0, 2}},
	})

	// Theoretical minimum 0 for both lists:
	// list a: [0, 10]: a 1, b 0.6, c 0.2; list b: [0, 0.9]: c 1, d 0.5/0.9, a 0.1/0.9
	// a: 0.75*1 + 0.25*(1/9) = 0.7777778
	// b: 0.75*0.6            = 0.45
	// c: 0.75*0.2 + 0.25*1   = 0.4
	// d: 0.25*(5/9)          = 0.1388889
	zero := 0.0
	a.Min, b.Min = &zero, &zero
	got, err = MinMax(a, b)
	check(t, got, err, []want{
		{"a", 0.75 + 0.25*(0.1/0.9), []int{1, 3}},
		{"b", 0.45, []int{2, 0}},
		{"c", 0.4, []int{3, 1}},
		{"d", 0.25 * (0.5 / 0.9), []int{0, 2}},
	})
}

func TestRelativeScore(t *testing.T) {
	a := List{Weight: 3, IDs: []string{"a", "b", "c"}, Scores: []float64{10, 6, 2}}
	b := List{Weight: 1, IDs: []string{"c", "d", "a"}, Scores: []float64{0.9, 0.5, 0.1}}
	// Same normalisation as TestMinMax, weights as given (not scaled):
	// a: 3*1 = 3; b: 3*0.5 = 1.5; c: 3*0 + 1*1 = 1; d: 1*0.5 = 0.5
	got, err := RelativeScore(a, b)
	check(t, got, err, []want{
		{"a", 3, []int{1, 3}},
		{"b", 1.5, []int{2, 0}},
		{"c", 1, []int{3, 1}},
		{"d", 0.5, []int{0, 2}},
	})

	// Weaviate: a list whose scores are all equal gives each result the
	// full weight. x: 0.7*1 + 0.3*1 = 1; y: 0.3*0 = 0; w: 0.7*1 = 0.7 (single item list).
	got, err = RelativeScore(
		List{Weight: 0.7, IDs: []string{"x", "w"}, Scores: []float64{5, 5}},
		List{Weight: 0.3, IDs: []string{"x", "y"}, Scores: []float64{2, 1}})
	check(t, got, err, []want{
		{"x", 1, []int{1, 1}},
		{"w", 0.7, []int{2, 0}},
		{"y", 0, []int{0, 2}},
	})

	// Weaviate's doc example: [1, 8, 6, 11] -> [0, 0.7, 0.5, 1].
	got, err = RelativeScore(List{Weight: 1, IDs: []string{"p", "q", "r", "s"}, Scores: []float64{1, 8, 6, 11}})
	check(t, got, err, []want{{"s", 1, []int{4}}, {"q", 0.7, []int{2}}, {"r", 0.5, []int{3}}, {"p", 0, []int{1}}})
}

func TestScoreTiesByIDAscending(t *testing.T) {
	// b and a both normalise to 1 in their own list with equal weight.
	for name, f := range map[string]func(...List) ([]Result, error){"minmax": MinMax, "relative": RelativeScore} {
		got, err := f(
			List{Weight: 1, IDs: []string{"b", "c"}, Scores: []float64{3, 1}},
			List{Weight: 1, IDs: []string{"a", "d"}, Scores: []float64{9, 7}})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{got[0].ID, got[1].ID, got[2].ID, got[3].ID}
		if !slices.Equal(ids, []string{"a", "b", "c", "d"}) {
			t.Errorf("%s order = %v, want [a b c d]", name, ids)
		}
	}
}

func TestBadInput(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		f    func() ([]Result, error)
		want string
	}{
		{"rrf negative weight", func() ([]Result, error) { return RRF(60, List{Weight: -1}) }, "lists[0].Weight"},
		{"rrf NaN k", func() ([]Result, error) { return RRF(nan) }, "k: must be finite"},
		{"cookbook inf weight", func() ([]Result, error) { return Cookbook(List{}, List{Weight: math.Inf(1)}) }, "lists[1].Weight"},
		{"cookbook nil key", func() ([]Result, error) { return CookbookKeyed(nil) }, "key"},
		{"minmax short scores", func() ([]Result, error) {
			return MinMax(List{Weight: 1, IDs: []string{"a", "b"}, Scores: []float64{1}})
		}, "lists[0].Scores: 1 scores for 2 IDs"},
		{"relative NaN score", func() ([]Result, error) {
			return RelativeScore(List{Weight: 1, IDs: []string{"a", "b"}, Scores: []float64{1, nan}})
		}, `lists[0].Scores[1] (ID "b")`},
		{"minmax NaN min", func() ([]Result, error) {
			return MinMax(List{Weight: 1, IDs: []string{"a"}, Scores: []float64{1}, Min: &nan})
		}, "lists[0].Min"},
	}
	for _, c := range cases {
		_, err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestEmpty(t *testing.T) {
	for _, f := range []func(...List) ([]Result, error){Cookbook, MinMax, RelativeScore} {
		got, err := f()
		if err != nil || len(got) != 0 {
			t.Errorf("empty input: %v, %v", got, err)
		}
		got, err = f(List{Weight: 1}, List{Weight: 0})
		if err != nil || len(got) != 0 {
			t.Errorf("empty lists: %v, %v", got, err)
		}
	}
	// All weights zero: MinMax scores everything 0, still returns the IDs.
	got, err := MinMax(List{Weight: 0, IDs: []string{"b", "a"}, Scores: []float64{2, 1}})
	check(t, got, err, []want{{"a", 0, []int{2}}, {"b", 0, []int{1}}})
}

// cookbookLists builds two top-150 lists in the shape of the cookbook's
// input: chunk IDs doc#index from a few documents (doc names and indices
// chosen so string order and tuple order disagree: "d1" < "d10" < "d2",
// 9 < 10), overlapping partially, with many exact score ties (semantic
// index 4j+3 scores 0.8/(4j+4) = 0.2/(j+1), BM25 index j's score).
func cookbookLists() (sem, bm []string) {
	r := rand.New(rand.NewPCG(1, 2))
	docs := []string{"d1", "d10", "d2", "doc_a", "doc_a#x", "z"}
	var pool []string
	for _, d := range docs {
		for i := range 60 {
			pool = append(pool, d+"#"+strconv.Itoa(i))
		}
	}
	perm := r.Perm(len(pool))
	sem = make([]string, 150)
	for i := range sem {
		sem[i] = pool[perm[i]]
	}
	// BM25: 50 shared with the semantic list (shuffled), 100 of its own.
	bm = make([]string, 0, 150)
	for _, i := range r.Perm(150)[:50] {
		bm = append(bm, sem[i])
	}
	bm = append(bm, func() []string {
		var own []string
		for _, i := range perm[150:250] {
			own = append(own, pool[i])
		}
		return own
	}()...)
	r.Shuffle(len(bm), func(i, j int) { bm[i], bm[j] = bm[j], bm[i] })
	return sem, bm
}

// runPython runs testdata/cookbook.py; keyed sends IDs as [doc, index] tuples.
func runPython(t *testing.T, sem, bm []string, keyed bool, hashSeed string) [][]any {
	t.Helper()
	conv := func(ids []string) []any {
		out := make([]any, len(ids))
		key := SplitChunkID("#")
		for i, id := range ids {
			if keyed {
				d, n := key(id)
				out[i] = []any{d, n}
			} else {
				out[i] = id
			}
		}
		return out
	}
	in, _ := json.Marshal(map[string]any{"semantic": conv(sem), "bm25": conv(bm)})
	cmd := exec.Command("python3", filepath.Join("testdata", "cookbook.py"))
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "PYTHONHASHSEED="+hashSeed)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 cookbook.py: %v: %s", err, stderr.String())
	}
	var res [][]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python output: %v", err)
	}
	return res
}

type goldenRow struct {
	ID    string `json:"id"`
	Score string `json:"score"` // Python float.hex()
}

type golden struct {
	Plain []goldenRow `json:"plain"` // string IDs
	Keyed []goldenRow `json:"keyed"` // (doc_id, original_index) tuples
}

func fromPython(rows [][]any) []goldenRow {
	out := make([]goldenRow, len(rows))
	for i, r := range rows {
		var id string
		if len(r) == 3 {
			id = r[0].(string) + "#" + strconv.Itoa(int(r[1].(float64)))
		} else {
			id = r[0].(string)
		}
		out[i] = goldenRow{ID: id, Score: r[len(r)-1].(string)}
	}
	return out
}

// parseHex parses Python's float.hex() ("0x1.999999999999ap-3").
func parseHex(t *testing.T, s string) float64 {
	t.Helper()
	if s == "0x0.0p+0" {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return f
}

func compareGolden(t *testing.T, name string, got []Result, want []goldenRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d", name, len(got), len(want))
	}
	for i, w := range want {
		if got[i].ID != w.ID || got[i].Score != parseHex(t, w.Score) {
			t.Fatalf("%s: result %d = %s %x, want %s %s", name, i, got[i].ID, got[i].Score, w.ID, w.Score)
		}
	}
}

// TestCookbookMatchesPython checks Cookbook and CookbookKeyed against the
// cookbook's own Python operations over two top-150 lists with weights
// 0.8/0.2: same IDs in the same order and bit-identical scores. The
// expected output is testdata/cookbook_golden.json (written by python3 with
// -update); when python3 is installed the test also reruns it under two
// hash seeds, showing the set iteration order does not leak into the order.
func TestCookbookMatchesPython(t *testing.T) {
	sem, bm := cookbookLists()
	semL := List{Weight: CookbookSemanticWeight, IDs: sem}
	bmL := List{Weight: CookbookBM25Weight, IDs: bm}
	plain, err := Cookbook(semL, bmL)
	if err != nil {
		t.Fatal(err)
	}
	keyed, err := CookbookKeyed(SplitChunkID("#"), semL, bmL)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 250 {
		t.Fatalf("%d fused IDs, want 250 (150 + 100 BM25-only)", len(plain))
	}
	ties := 0
	for i := 1; i < len(plain); i++ {
		if plain[i].Score == plain[i-1].Score {
			ties++
		}
	}
	if ties < 5 {
		t.Fatalf("only %d ties: the lists do not exercise tie-breaking", ties)
	}

	path := filepath.Join("testdata", "cookbook_golden.json")
	if _, err := exec.LookPath("python3"); err == nil {
		g1 := golden{fromPython(runPython(t, sem, bm, false, "1")), fromPython(runPython(t, sem, bm, true, "1"))}
		g2 := golden{fromPython(runPython(t, sem, bm, false, "2")), fromPython(runPython(t, sem, bm, true, "2"))}
		compareGolden(t, "python plain", plain, g1.Plain)
		compareGolden(t, "python keyed", keyed, g1.Keyed)
		compareGolden(t, "python plain seed 2", plain, g2.Plain)
		compareGolden(t, "python keyed seed 2", keyed, g2.Keyed)
		if *update {
			b, _ := json.MarshalIndent(g1, "", " ")
			if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		t.Logf("python3 not found: checking %s only", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update and python3 to create it): %v", err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	compareGolden(t, "golden plain", plain, g.Plain)
	compareGolden(t, "golden keyed", keyed, g.Keyed)
	if slices.EqualFunc(plain, keyed, func(a, b Result) bool { return a.ID == b.ID }) {
		t.Error("plain and keyed orders are equal: the lists do not tell string from tuple ties")
	}
}
