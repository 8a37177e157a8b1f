package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Result is one configuration's measurement.
type Result struct {
	Name     string             `json:"name"`
	Settings map[string]any     `json:"settings,omitempty"`
	Metrics  map[string]float64 `json:"metrics"`
	// Queries is the number of queries evaluated.
	Queries int `json:"queries,omitempty"`
	// Intervals are bootstrap confidence intervals over the queries of
	// some metrics (see Evaluate), nil when not computed.
	Intervals map[string]Interval `json:"intervals,omitempty"`
}

// DefaultFailureK is the cutoff of the failure rate in tables and charts
// (Anthropic reports the top-20 failure rate).
const DefaultFailureK = 20

// Failure returns the retrieval failure rate at k in percent: 100 − Pass@k
// when the result has pass@k, else 100·(1 − recall@k); ok is false when it
// has neither.
func (r Result) Failure(k int) (rate float64, ok bool) {
	if p, ok := r.Metrics["pass@"+strconv.Itoa(k)]; ok {
		return 100 - p, true
	}
	if rc, ok := r.Metrics["recall@"+strconv.Itoa(k)]; ok {
		return 100 * (1 - rc), true
	}
	return 0, false
}

// Reduction returns the relative reduction of failure from base to v in
// percent ((base − v) / base · 100; positive means fewer failures); ok is
// false when base is 0.
func Reduction(base, v float64) (pct float64, ok bool) {
	if base == 0 {
		return 0, false
	}
	return (base - v) / base * 100, true
}

func fmtMetric(m map[string]float64, key string) string {
	v, ok := m[key]
	if !ok {
		return "-"
	}
	if strings.HasPrefix(key, "pass@") {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// tableRows builds Anthropic's comparison rows.
func tableRows(rs []Result) [][]string {
	rows := [][]string{{"configuration", "Pass@5", "Pass@10", "Pass@20", "failure@20", "reduction"}}
	base, haveBase := 0.0, false
	for i, r := range rs {
		fail, ok := r.Failure(DefaultFailureK)
		fs, red := "-", "-"
		if ok {
			fs = strconv.FormatFloat(fail, 'f', 2, 64) + "%"
			if i == 0 {
				base, haveBase = fail, true
				red = "baseline"
			} else if haveBase {
				if p, ok := Reduction(base, fail); ok {
					red = strconv.FormatFloat(p, 'f', 1, 64) + "%"
				}
			}
		}
		rows = append(rows, []string{r.Name, fmtMetric(r.Metrics, KeyPass5), fmtMetric(r.Metrics, KeyPass10), fmtMetric(r.Metrics, KeyPass20), fs, red})
	}
	return rows
}

// WriteTable writes rs as an aligned text table in Anthropic's shape:
// configuration | Pass@5 | Pass@10 | Pass@20 | failure@20 | reduction of the
// failure rate relative to the first row.
func WriteTable(w io.Writer, rs []Result) error {
	return writeAligned(w, tableRows(rs))
}

// WriteMetricsTable writes rs as an aligned text table of the given metric
// keys (MetricKeys when keys is nil); metrics a result lacks show as "-".
func WriteMetricsTable(w io.Writer, rs []Result, keys []string) error {
	return writeAligned(w, metricRows(rs, keys))
}

func metricRows(rs []Result, keys []string) [][]string {
	if keys == nil {
		keys = MetricKeys
	}
	rows := [][]string{append([]string{"configuration"}, keys...)}
	for _, r := range rs {
		row := []string{r.Name}
		for _, k := range keys {
			row = append(row, fmtMetric(r.Metrics, k))
		}
		rows = append(rows, row)
	}
	return rows
}

// writeAligned writes rows as columns separated by two spaces, the first
// column left-aligned and the others right-aligned.
func writeAligned(w io.Writer, rows [][]string) error {
	var widths []int
	for _, row := range rows {
		for j, c := range row {
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			if n := utf8.RuneCountInString(c); n > widths[j] {
				widths[j] = n
			}
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for j, c := range row {
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c))
			switch {
			case j == 0:
				b.WriteString(c)
				if len(row) > 1 {
					b.WriteString(pad)
				}
			default:
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdownTable(w io.Writer, rows [][]string) {
	for i, row := range rows {
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		if i == 0 {
			seps := make([]string, len(row))
			for j := range seps {
				seps[j] = "---:"
			}
			seps[0] = "---"
			fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
		}
	}
}

type jsonReport struct {
	Configs []Result `json:"configs"`
}

// WriteJSON writes rs as {"configs":[{"name","settings","metrics"}...]}.
func WriteJSON(w io.Writer, rs []Result) error {
	if rs == nil {
		rs = []Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsonReport{Configs: rs}); err != nil {
		return fmt.Errorf("write results json: %w", err)
	}
	return nil
}

// ReadJSON reads results written by WriteJSON.
func ReadJSON(r io.Reader) ([]Result, error) {
	var rep jsonReport
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("read results json: %w", err)
	}
	for i, c := range rep.Configs {
		if c.Name == "" {
			return nil, fmt.Errorf("read results json: configs[%d]: missing name", i)
		}
		for k, v := range c.Metrics {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("read results json: configs[%d] %s: metric %s is not finite", i, c.Name, k)
			}
		}
	}
	return rep.Configs, nil
}

// Report is what WriteReport renders.
type Report struct {
	Title string
	// Notes are lines shown under the title (dataset, split, commit, models).
	Notes   []string
	Results []Result
	// Metrics selects the columns of the detailed table; nil means every key
	// of MetricKeys that at least one result has.
	Metrics []string
}

// Report file names written by WriteReport.
const (
	ReportFile  = "report.md"
	ChartFile   = "failure.svg"
	ResultsFile = "results.json"
)

// WriteReport writes report.md (comparison table, detailed metric table,
// chart link), failure.svg (failure@20 per configuration) and results.json
// into dir, creating it if needed.
func WriteReport(dir string, r Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	keys := r.Metrics
	if keys == nil {
		for _, k := range MetricKeys {
			for _, res := range r.Results {
				if _, ok := res.Metrics[k]; ok {
					keys = append(keys, k)
					break
				}
			}
		}
	}
	var md bytes.Buffer
	title := r.Title
	if title == "" {
		title = "Retrieval evaluation"
	}
	fmt.Fprintf(&md, "# %s\n\n", title)
	for _, n := range r.Notes {
		fmt.Fprintf(&md, "- %s\n", n)
	}
	if len(r.Notes) > 0 {
		md.WriteString("\n")
	}
	md.WriteString("## Failure rate\n\n")
	writeMarkdownTable(&md, tableRows(r.Results))
	fmt.Fprintf(&md, "\nfailure@%d = 100 − Pass@%d (or 100·(1 − recall@%d) without Pass@k); reduction is relative to the first row.\n\n", DefaultFailureK, DefaultFailureK, DefaultFailureK)
	fmt.Fprintf(&md, "![failure@%d per configuration](%s)\n\n", DefaultFailureK, ChartFile)
	md.WriteString("## All metrics\n\n")
	writeMarkdownTable(&md, metricRows(r.Results, keys))
	md.WriteString("\nPass@k in percent (Anthropic cookbook); other metrics as fractions (trec_eval).\n")
	writeIntervals(&md, r.Results)
	var js bytes.Buffer
	if err := WriteJSON(&js, r.Results); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{ReportFile, md.Bytes()}, {ChartFile, FailureChart(r.Results, DefaultFailureK)}, {ResultsFile, js.Bytes()}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	return nil
}

// FailureChart returns an SVG horizontal bar chart of each result's failure
// rate at k (results without one are drawn as "n/a").
func FailureChart(rs []Result, k int) []byte {
	const (
		labelW = 320
		barW   = 360
		rowH   = 28
		top    = 40
		pad    = 10
	)
	max := 0.0
	for _, r := range rs {
		if f, ok := r.Failure(k); ok && f > max {
			max = f
		}
	}
	if max == 0 {
		max = 1
	}
	width := labelW + barW + 90
	height := top + rowH*len(rs) + pad
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="15" font-weight="bold">Retrieval failure rate @%d (lower is better)</text>`+"\n", pad, k)
	for i, r := range rs {
		y := top + i*rowH
		name := r.Name
		if len([]rune(name)) > 44 {
			name = string([]rune(name)[:43]) + "…"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-pad, y+18, html.EscapeString(name))
		f, ok := r.Failure(k)
		if !ok {
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#888">n/a</text>`+"\n", labelW, y+18)
			continue
		}
		w := f / max * barW
		color := "#4e79a7"
		if i == 0 {
			color = "#9c9c9c"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %.2f%%</title></rect>`+"\n", labelW, y+4, w, rowH-8, color, html.EscapeString(r.Name), f)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%.2f%%</text>`+"\n", float64(labelW)+w+6, y+18, f)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// WritePerQuery writes one block per query: id, headline metrics and text,
// then golden, found/missed and retrieved ids. With onlyMissed, queries
// whose golden items were all found in the top DefaultShown are left out.
func WritePerQuery(w io.Writer, qs []QueryResult, onlyMissed bool) error {
	var b strings.Builder
	for _, q := range qs {
		if onlyMissed && len(q.Missed) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s [%s]", q.ID, q.Mode)
		for _, k := range []string{KeyPass20, KeyRecall20, KeyMRR10, KeyMAP} {
			if _, ok := q.Metrics[k]; ok {
				fmt.Fprintf(&b, "  %s %s", k, fmtMetric(q.Metrics, k))
			}
		}
		fmt.Fprintf(&b, "  %q\n", q.Text)
		fmt.Fprintf(&b, "  golden:    %s\n", strings.Join(q.Golden, " "))
		fmt.Fprintf(&b, "  found:     %s\n", strings.Join(q.Found, " "))
		fmt.Fprintf(&b, "  missed:    %s\n", strings.Join(q.Missed, " "))
		fmt.Fprintf(&b, "  retrieved: %s\n", strings.Join(q.Retrieved, " "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WritePerQueryJSONL writes one JSON object per query and line.
func WritePerQueryJSONL(w io.Writer, qs []QueryResult) error {
	enc := json.NewEncoder(w)
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			return fmt.Errorf("write per-query results: %s: %w", q.ID, err)
		}
	}
	return nil
}

// writeIntervals adds the confidence-interval table when any result has
// intervals: one row per configuration, "mean [lo, hi]" per metric.
func writeIntervals(md *bytes.Buffer, rs []Result) {
	var keys []string
	level := 0.0
	for _, k := range MetricKeys {
		for _, r := range rs {
			if iv, ok := r.Intervals[k]; ok {
				keys = append(keys, k)
				level = iv.Level
				break
			}
		}
	}
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(md, "\n## Confidence intervals\n\n%.0f%% percentile bootstrap over questions (%d resamples): mean [low, high].\n\n", 100*level, IntervalResamples)
	rows := [][]string{append([]string{"configuration"}, keys...)}
	for _, r := range rs {
		row := []string{r.Name}
		for _, k := range keys {
			if iv, ok := r.Intervals[k]; ok {
				row = append(row, fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Mean, iv.Lo, iv.Hi))
			} else {
				row = append(row, "–")
			}
		}
		rows = append(rows, row)
	}
	writeMarkdownTable(md, rows)
}
