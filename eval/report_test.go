package eval

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// published are the cookbook's 2024 figures from the data README, as Results.
var published = []Result{
	{Name: "Basic RAG", Metrics: map[string]float64{KeyPass5: 80.92, KeyPass10: 87.15, KeyPass20: 90.06}},
	{Name: "Contextual embeddings", Metrics: map[string]float64{KeyPass5: 86.37, KeyPass10: 92.81, KeyPass20: 93.78}},
	{Name: "CACM BM25", Metrics: map[string]float64{KeyRecall20: 0.5, KeyMAP: 0.3123}},
	{Name: "no failure metric", Metrics: map[string]float64{KeyMAP: 0.1}},
}

func TestFailureAndReduction(t *testing.T) {
	f0, ok0 := published[0].Failure(20)
	f1, ok1 := published[1].Failure(20)
	if !ok0 || !ok1 {
		t.Fatal("pass@20 results have no failure rate")
	}
	near(t, "failure basic", f0, 9.94)
	near(t, "failure contextual", f1, 6.22)
	red, ok := Reduction(f0, f1)
	near(t, "reduction", red, (9.94-6.22)/9.94*100)
	if !ok {
		t.Error("reduction not ok")
	}
	f, ok := published[2].Failure(20)
	near(t, "failure from recall", f, 50)
	if _, ok := published[3].Failure(20); ok {
		t.Error("failure rate without pass@20 or recall@20")
	}
	if _, ok := Reduction(0, 1); ok {
		t.Error("reduction against a zero baseline reported ok")
	}
	// Anthropic's blog: 5.7% -> 3.7% is a 35% reduction.
	red, _ = Reduction(5.7, 3.7)
	if int(red+0.5) != 35 {
		t.Errorf("blog reduction = %.2f, want ~35", red)
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, published[:3]); err != nil {
		t.Fatal(err)
	}
	want := `configuration          Pass@5  Pass@10  Pass@20  failure@20  reduction
Basic RAG               80.92    87.15    90.06       9.94%   baseline
Contextual embeddings   86.37    92.81    93.78       6.22%      37.4%
CACM BM25                   -        -        -      50.00%    -403.0%
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteMetricsTable(&b, published[2:3], []string{KeyMAP, KeyP30}); err != nil {
		t.Fatal(err)
	}
	if want := "configuration     map  p@30\nCACM BM25      0.3123     -\n"; b.String() != want {
		t.Errorf("metrics table:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	rs := []Result{{Name: "bm25", Settings: map[string]any{"k1": 1.2, "analyzer": "english"}, Metrics: map[string]float64{KeyPass5: 80.48}, Queries: 248}}
	var b bytes.Buffer
	if err := WriteJSON(&b, rs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"configs": [`) || !strings.Contains(b.String(), `"pass@5": 80.48`) {
		t.Errorf("json shape: %s", b.String())
	}
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rs) {
		t.Errorf("round trip = %+v, want %+v", got, rs)
	}
	for name, in := range map[string]string{
		"unknown field": `{"configs": [{"name": "x", "metrix": {}}]}`,
		"missing name":  `{"configs": [{"metrics": {"map": 1}}]}`,
		"not json":      `configs`,
	} {
		if _, err := ReadJSON(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	b.Reset()
	WriteJSON(&b, nil)
	if !strings.Contains(b.String(), `"configs": []`) {
		t.Errorf("empty results: %s", b.String())
	}
}

func TestWriteReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	rs := append([]Result{}, published...)
	rs = append(rs, Result{Name: `<script>&"x"`, Metrics: map[string]float64{KeyPass20: 99}})
	if err := WriteReport(dir, Report{Title: "Codebase", Notes: []string{"dataset: codebase"}, Results: rs}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Codebase", "- dataset: codebase", "| Basic RAG | 80.92 | 87.15 | 90.06 | 9.94% | baseline |", "![failure@20 per configuration](failure.svg)", "| configuration | pass@5 | pass@10 | pass@20 | recall@20 | map |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, ChartFile))
	if err != nil {
		t.Fatal(err)
	}
	// Well-formed XML, one bar per result with a failure rate.
	dec := xml.NewDecoder(bytes.NewReader(svg))
	rects := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("failure.svg is not well-formed XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	if rects != 1+4 { // background + 4 results with a failure rate
		t.Errorf("svg has %d rects, want 5", rects)
	}
	if !strings.Contains(string(svg), "9.94%") || !strings.Contains(string(svg), "n/a") {
		t.Errorf("svg labels missing:\n%s", svg)
	}
	f, err := os.Open(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadJSON(f)
	if err != nil || len(got) != len(rs) {
		t.Errorf("results.json: %v, %d configs", err, len(got))
	}
	if err := WriteReport(filepath.Join(dir, ReportFile, "x"), Report{}); err == nil {
		t.Error("report under a file: no error")
	}
}

func TestWritePerQuery(t *testing.T) {
	_, per := Evaluate(handDataset(), Run{"c": {{DocID: "d1", Chunk: 0}}})
	var b bytes.Buffer
	if err := WritePerQuery(&b, per, true); err != nil {
		t.Fatal(err)
	}
	want := `c [chunk]  pass@20 50.00  recall@20 0.5000  mrr@10 1.0000  map 0.5000  "chunk query"
  golden:    d1#0 d1#1
  found:     d1#0
  missed:    d1#1
  retrieved: d1#0
`
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("per-query:\n%s\nwant prefix:\n%s", b.String(), want)
	}
	if strings.Count(b.String(), "golden:") != 3 {
		t.Errorf("want 3 queries with misses:\n%s", b.String())
	}
	b.Reset()
	if err := WritePerQueryJSONL(&b, per); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"id":"c","text":"chunk query","mode":"chunk","golden":["d1#0","d1#1"]`) {
		t.Errorf("jsonl:\n%s", b.String())
	}
}
