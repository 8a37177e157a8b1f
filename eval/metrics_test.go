package eval

import (
	"math"
	"reflect"
	"testing"
)

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.12f, want %.12f", name, got, want)
	}
}

func ids(s ...string) []string { return s }

func TestRecall(t *testing.T) {
	rel := Judgments{"a": 1, "b": 1, "c": 1, "n": 0}
	for _, tc := range []struct {
		name   string
		ranked []string
		k      int
		want   float64
	}{
		{"top3 finds a", ids("x", "a", "y", "b", "a"), 3, 1.0 / 3},
		{"top5 a,b; duplicate a counted once", ids("x", "a", "y", "b", "a"), 5, 2.0 / 3},
		{"k<=0 is the whole list", ids("x", "a", "y", "b", "a", "c"), 0, 1},
		{"judged non-relevant is not found", ids("n"), 10, 0},
		{"empty run", nil, 20, 0},
	} {
		near(t, tc.name, Recall(rel, tc.ranked, tc.k), tc.want)
	}
	near(t, "no relevant items", Recall(Judgments{"a": 0}, ids("a"), 5), 0)
}

func TestPrecisionDividesByK(t *testing.T) {
	rel := Judgments{"a": 1, "b": 1}
	// trec_eval P_5 with two results, one relevant: 1/5, not 1/2.
	near(t, "P@5 short list", Precision(rel, ids("a", "x"), 5), 0.2)
	// A repeated relevant id is credited once: [a a b] has 2 relevant of 3.
	near(t, "P@3 duplicate", Precision(rel, ids("a", "a", "b"), 3), 2.0/3)
	near(t, "P@30 no results", Precision(rel, nil, 30), 0)
	near(t, "k<=0 divides by list length", Precision(rel, ids("a", "x", "y", "z"), 0), 0.25)
}

func TestHitAndReciprocalRank(t *testing.T) {
	rel := Judgments{"a": 1}
	near(t, "hit@1 miss", Hit(rel, ids("x", "a"), 1), 0)
	near(t, "hit@2", Hit(rel, ids("x", "a"), 2), 1)
	near(t, "RR@10 rank 3", ReciprocalRank(rel, ids("x", "y", "a"), 10), 1.0/3)
	near(t, "RR@2 beyond cut", ReciprocalRank(rel, ids("x", "y", "a"), 2), 0)
	near(t, "RR with repeated non-relevant", ReciprocalRank(rel, ids("x", "x", "a"), 10), 1.0/3)
	near(t, "RR grade 0 is not relevant", ReciprocalRank(Judgments{"a": 0, "b": 2}, ids("a", "b"), 10), 0.5)
}

func TestAveragePrecision(t *testing.T) {
	rel := Judgments{"a": 1, "b": 1, "c": 1}
	// a at 1 (P=1), b at 3 (P=2/3); c never retrieved contributes 0; /3.
	near(t, "AP", AveragePrecision(rel, ids("a", "x", "b", "y")), (1+2.0/3)/3)
	// The repeated a occupies rank 2 as non-relevant: b at 3 still has P=2/3.
	near(t, "AP duplicate", AveragePrecision(rel, ids("a", "a", "b")), (1+2.0/3)/3)
	near(t, "AP nothing relevant judged", AveragePrecision(Judgments{"a": 0}, ids("a")), 0)
	near(t, "AP graded counts grade>0 only", AveragePrecision(Judgments{"a": 0, "b": 2}, ids("a", "b")), 0.5)
	near(t, "AP empty run", AveragePrecision(rel, nil), 0)
	// A judged relevant document that is not in the collection still counts
	// in the denominator (trec_eval num_rel).
	near(t, "AP unretrievable relevant", AveragePrecision(Judgments{"a": 1, "CACM-756": 1}, ids("a")), 0.5)
}

func TestNDCG(t *testing.T) {
	graded := Judgments{"a": 3, "b": 2, "c": 1, "z": 0}
	// DCG = 1/log2(2) + 3/log2(3) + 0 + 2/log2(5); IDCG = 3 + 2/log2(3) + 1/log2(4).
	dcg := 1 + 3/math.Log2(3) + 2/math.Log2(5)
	idcg := 3 + 2/math.Log2(3) + 0.5
	near(t, "graded nDCG@10", NDCG(graded, ids("c", "a", "x", "b"), 10), dcg/idcg)
	near(t, "graded hand value", NDCG(graded, ids("c", "a", "x", "b"), 10), 0.7883773914853737)
	// Binary: relevant a,b; ranked [x a] → (1/log2 3) / (1 + 1/log2 3).
	near(t, "binary nDCG", NDCG(Judgments{"a": 1, "b": 1}, ids("x", "a"), 10), 0.38685280723454163)
	near(t, "binary via Binary()", NDCG(graded.Binary(), ids("a", "b", "c"), 10), 1)
	near(t, "cut at 1", NDCG(Judgments{"a": 1, "b": 1}, ids("x", "a"), 1), 0)
	// The ideal list is cut at k too: 3 relevant, k=2, top two relevant → 1.
	near(t, "ideal cut", NDCG(Judgments{"a": 1, "b": 1, "c": 1}, ids("a", "b"), 2), 1)
	// A repeat gains nothing: [a a] vs ideal [a b].
	near(t, "duplicate", NDCG(Judgments{"a": 1, "b": 1}, ids("a", "a"), 10), 1/(1+1/math.Log2(3)))
	near(t, "no relevant", NDCG(Judgments{"a": 0}, ids("a"), 10), 0)
}

func TestPassAtCookbookSemantics(t *testing.T) {
	for _, tc := range []struct {
		name              string
		golden, retrieved []string
		k                 int
		want              float64
	}{
		{"strip on retrieved", ids("A", "B"), ids(" A\n", "x", "B"), 2, 0.5},
		{"all found in k", ids("A", "B"), ids(" A\n", "x", "B"), 3, 1},
		// Two golden chunks with the same content (licence headers) are both
		// found by one retrieved chunk, as the cookbook's loop does.
		{"duplicate golden", ids("L", "L"), ids("L"), 5, 1},
		// A repeated retrieved chunk occupies a slot.
		{"duplicate retrieved takes a slot", ids("A", "B"), ids("A", "A", "B"), 2, 0.5},
		// Python's str.strip() removes U+001C..U+001F; Go's TrimSpace does not.
		{"python strip separators", ids("A"), ids("\x1cA\x1f"), 1, 1},
		{"unicode space", ids("A"), ids("\u3000A\u00a0"), 1, 1},
		{"substring is not a match", ids("A"), ids("AB"), 1, 0},
		{"no golden", nil, ids("A"), 1, 0},
		{"k<=0 whole list", ids("A"), ids("x", "y", "A"), 0, 1},
	} {
		near(t, tc.name, PassAt(tc.golden, tc.retrieved, tc.k), tc.want)
	}
}

func TestStrip(t *testing.T) {
	for in, want := range map[string]string{
		"  x y \n\t":          "x y",
		"\x1c\x1d x \x1e\x1f": "x",
		"\u2028x\u3000":       "x",
		"\u200bx":             "\u200bx", // zero-width space is not whitespace in Python
		"":                    "",
	} {
		if got := Strip(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRankTRECTies(t *testing.T) {
	got := RankTREC([]Scored{{"a", 1}, {"b", 2}, {"c", 1}, {"d", 2}, {"CACM-10", 1}, {"CACM-9", 1}})
	// Score descending; ties by id descending byte order (trec_eval's
	// comp_sim_docno: strcmp(ptr2->docno, ptr1->docno)).
	want := ids("d", "b", "c", "a", "CACM-9", "CACM-10")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("RankTREC = %v, want %v", got, want)
	}
}

func TestContainsAnswerIgnoresLayoutWhitespace(t *testing.T) {
	for _, tc := range []struct {
		text, answer string
		want         bool
	}{
		{"доставляют на вершину\nвездеходом.", "доставляют на вершину вездеходом", true},
		{"the tower was  finished\tin 1873", "tower was finished in 1873", true},
		{"the tower was finished in 1874", "finished in 1873", false},
		{"towerwas finished", "tower was", false},
	} {
		if got := ContainsAnswer(tc.text, tc.answer); got != tc.want {
			t.Errorf("ContainsAnswer(%q, %q) = %v, want %v", tc.text, tc.answer, got, tc.want)
		}
	}
}
