package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scores gives n questions q0..q(n-1): the first hits of them score 1, the
// rest 0.
func scores(n, hits int) map[string]float64 {
	m := make(map[string]float64, n)
	for i := range n {
		m[fmt.Sprintf("q%d", i)] = 0
		if i < hits {
			m[fmt.Sprintf("q%d", i)] = 1
		}
	}
	return m
}

// renamed is m with every question id prefixed: the set's questions were
// replaced, so no pairing is possible.
func renamed(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out["new-"+k] = v
	}
	return out
}

func TestJudge(t *testing.T) {
	ran := map[string]Outcome{"s": {}}
	cases := []struct {
		name      string
		base, cur []Row
		sets      map[string]Outcome
		verdicts  map[string]string // line key -> verdict
		fails     bool
	}{
		{
			name:     "unchanged report half passes",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 60))},
			cur:      []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 60))},
			sets:     ran,
			verdicts: map[string]string{"s offline report": verdictSame},
		},
		{
			// Two of 100 questions lost: a paired resample without
			// either is common, so the interval reaches zero.
			name:     "report drop within noise passes",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 60))},
			cur:      []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 58))},
			sets:     ran,
			verdicts: map[string]string{"s offline report": verdictSame},
		},
		{
			name:     "report drop beyond noise fails",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 60))},
			cur:      []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 50))},
			sets:     ran,
			verdicts: map[string]string{"s offline report": verdictWorse},
			fails:    true,
		},
		{
			name:     "tune drop beyond noise is shown but passes",
			base:     []Row{newRow("s", "offline", halfTune, "mrr@10", scores(100, 60))},
			cur:      []Row{newRow("s", "offline", halfTune, "mrr@10", scores(100, 40))},
			sets:     ran,
			verdicts: map[string]string{"s offline tune": verdictDropped},
		},
		{
			name:     "report gain beyond noise passes",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 50))},
			cur:      []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 60))},
			sets:     ran,
			verdicts: map[string]string{"s offline report": verdictBetter},
		},
		{
			// New question ids: the unpaired rule, half the baseline's
			// interval width (about 0.1 at p=0.6, n=100).
			name:     "unpaired drop within half the interval passes",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 60))},
			cur:      []Row{newRow("s", "offline", halfReport, "mrr@10", renamed(scores(100, 55)))},
			sets:     ran,
			verdicts: map[string]string{"s offline report": verdictSame},
		},
		{
			name:     "unpaired drop beyond half the interval fails",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(100, 60))},
			cur:      []Row{newRow("s", "offline", halfReport, "mrr@10", renamed(scores(100, 40)))},
			sets:     ran,
			verdicts: map[string]string{"s offline report": verdictWorse},
			fails:    true,
		},
		{
			name:     "a set in the baseline that no longer exists is missing and fails",
			base:     []Row{newRow("gone", "offline", halfReport, "mrr@10", scores(10, 5))},
			sets:     ran,
			verdicts: map[string]string{"gone offline report": verdictMissing},
			fails:    true,
		},
		{
			name:     "a configuration the set no longer has is missing and fails",
			base:     []Row{newRow("s", "raw", halfReport, "mrr@10", scores(10, 5))},
			sets:     ran,
			verdicts: map[string]string{"s raw report": verdictMissing},
			fails:    true,
		},
		{
			name:     "a set whose data is absent is reported skipped with its reason",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(10, 5))},
			sets:     map[string]Outcome{"s": {Skipped: "/data is absent"}},
			verdicts: map[string]string{"s offline report": verdictSkipped},
		},
		{
			name:     "a set left out of -short is not run",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(10, 5))},
			sets:     map[string]Outcome{"s": {NotRun: true}},
			verdicts: map[string]string{"s offline report": verdictNotRun},
		},
		{
			name:     "a configuration left out of -short is not run",
			base:     []Row{newRow("s", "raw", halfReport, "mrr@10", scores(10, 5))},
			sets:     map[string]Outcome{"s": {NotRunConfigs: []string{"raw"}}},
			verdicts: map[string]string{"s raw report": verdictNotRun},
		},
		{
			name:     "a set that failed to run fails",
			base:     []Row{newRow("s", "offline", halfReport, "mrr@10", scores(10, 5))},
			sets:     map[string]Outcome{"s": {Err: errors.New("load: broken")}},
			verdicts: map[string]string{"s": verdictError},
			fails:    true,
		},
		{
			name:     "a row whose metric changed is new, not compared",
			base:     []Row{newRow("s", "offline", halfReport, "map", scores(100, 60))},
			cur:      []Row{newRow("s", "offline", halfReport, "ndcg@10", scores(100, 10))},
			sets:     ran,
			verdicts: map[string]string{"s offline report": verdictNew},
		},
		{
			name:     "a new set without baseline passes",
			cur:      []Row{newRow("s", "offline", halfReport, "mrr@10", scores(10, 5))},
			sets:     ran,
			verdicts: map[string]string{"s offline report": verdictNew},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines := judge(c.base, c.cur, c.sets)
			got := map[string]string{}
			for _, l := range lines {
				got[l.Key] = l.Verdict
			}
			if !reflect.DeepEqual(got, c.verdicts) {
				t.Errorf("verdicts %v, want %v", got, c.verdicts)
			}
			if failed(lines) != c.fails {
				t.Errorf("failed = %v, want %v", failed(lines), c.fails)
			}
			var buf bytes.Buffer
			if err := writeTable(&buf, lines); err != nil {
				t.Fatal(err)
			}
			for key, v := range c.verdicts {
				if v == verdictNotRun {
					continue // left out of the table
				}
				set, _, _ := splitKey(key)
				if !strings.Contains(buf.String(), set) || !strings.Contains(buf.String(), v) {
					t.Errorf("table does not show %s as %s:\n%s", key, v, buf.String())
				}
			}
		})
	}
}

// TestBaselineRoundTrip: -update merges (rows measured replace theirs,
// others stay) and writes the same bytes for the same rows.
func TestBaselineRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.json")
	old := []Row{newRow("a", "offline", halfReport, "map", scores(10, 3)), newRow("b", "offline", halfTune, "map", scores(10, 3))}
	cur := []Row{newRow("a", "offline", halfReport, "map", scores(10, 7))}
	if err := writeBaseline(path, Baseline{Rows: merged(old, cur)}); err != nil {
		t.Fatal(err)
	}
	b, err := readBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Rows) != 2 || b.Rows[0].Set != "a" || b.Rows[0].Value != 0.7 || b.Rows[1].Set != "b" || b.Rows[1].Value != 0.3 {
		t.Errorf("merged rows %+v", b.Rows)
	}
	if !reflect.DeepEqual(b.Rows[0].PerQuery, cur[0].PerQuery) {
		t.Errorf("per-question scores did not round-trip: %v", b.Rows[0].PerQuery)
	}
}

// TestBenchSetsFound: every bench/sets/NAME/queries.jsonl is an answers set
// the gate runs, over all of bench/sets/NAME/docs, through the evaluation
// path, giving a tune and a report row.
func TestBenchSetsFound(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "bench", "sets", "tiny")
	docs := map[string]string{
		"alpha.md": "# Alpha\n\nThe alpha pump moves eleven litres of water per minute.\n",
		"beta.md":  "# Beta\n\nThe beta valve closes when the pressure passes four bar.\n",
		"gamma.md": "# Gamma\n\nThe gamma filter is cleaned every second Tuesday.\n",
		"delta.md": "# Delta\n\nThe delta tank holds nine hundred litres.\n",
	}
	for name, text := range docs {
		writeFile(t, filepath.Join(dir, "docs", name), text)
	}
	writeFile(t, filepath.Join(dir, "queries.jsonl"),
		`{"id":"q1","query":"how much water does the alpha pump move","doc":"alpha.md","answer":"eleven litres","lang":"en"}
{"id":"q2","query":"when does the beta valve close","doc":"beta.md","answer":"four bar","lang":"en"}
{"id":"q3","query":"when is the gamma filter cleaned","doc":"gamma.md","answer":"second Tuesday","lang":"en"}
{"id":"q4","query":"how much does the delta tank hold","doc":"delta.md","answer":"nine hundred litres","lang":"en"}
`)
	e := &env{root: root, data: filepath.Join(root, "no-data"), cache: t.TempDir(), log: t.Logf}
	sets, err := allSets(e)
	if err != nil {
		t.Fatal(err)
	}
	var tiny *set
	for i := range sets {
		if sets[i].name == "sets/tiny" {
			tiny = &sets[i]
		}
	}
	if tiny == nil {
		t.Fatal("bench/sets/tiny not found")
	}
	if _, err := sets[0].load(context.Background(), e); err == nil {
		t.Errorf("%s loaded without its shared data", sets[0].name)
	} else if _, skipped := isSkip(err); !skipped {
		t.Errorf("%s without its data: %v, want a skip", sets[0].name, err)
	}
	rows, err := runSet(context.Background(), e, *tiny, tiny.configs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Half != halfTune || rows[1].Half != halfReport || rows[0].Queries+rows[1].Queries != 4 {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		if r.Value != 1 {
			t.Errorf("%s: MRR@10 %v, want 1 (each question names its document's only subject)", r.Key(), r.Value)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
