package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/situate/situate/eval"
)

// Halves of every set (eval.Split with seed "situate", as "situate eval
// --half" splits). Only report halves can fail the gate.
const (
	halfTune   = "tune"
	halfReport = "report"
)

// Bootstrap settings: a 95% percentile interval from 10,000 seeded
// resamples, so the same scores always give the same interval.
const (
	resamples = 10000
	level     = 0.95
	seed      = 1
)

// minPaired is the share of a row's questions that must be in both the
// baseline and the run for the paired test; below it (the set's questions
// were changed) the unpaired rule decides.
const minPaired = 0.9

// Row is one set × configuration × half: its primary metric over the
// half's questions, with a bootstrap interval and every question's score
// (what makes the paired test against the baseline possible).
type Row struct {
	Set      string             `json:"set"`
	Config   string             `json:"config"`
	Half     string             `json:"half"`
	Metric   string             `json:"metric"`
	Queries  int                `json:"queries"`
	Value    float64            `json:"value"`
	Lo       float64            `json:"lo"`
	Hi       float64            `json:"hi"`
	PerQuery map[string]float64 `json:"per_query"`
}

// Key names the row in the baseline and the table.
func (r Row) Key() string { return r.Set + " " + r.Config + " " + r.Half }

// newRow scores one half: the mean of the metric over its questions and
// the bootstrap interval of that mean.
func newRow(set, config, half, metric string, perQuery map[string]float64) Row {
	ids := slices.Sorted(maps.Keys(perQuery))
	vs := make([]float64, len(ids))
	for i, id := range ids {
		vs[i] = perQuery[id]
	}
	iv := eval.Bootstrap(vs, resamples, seed, level)
	return Row{Set: set, Config: config, Half: half, Metric: metric, Queries: len(vs),
		Value: round(iv.Mean), Lo: round(iv.Lo), Hi: round(iv.Hi), PerQuery: perQuery}
}

// round keeps 6 decimals: the baseline file stays small and byte-stable.
func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// Baseline is the committed bench/quality/baseline.json.
type Baseline struct {
	Note string `json:"note"`
	Rows []Row  `json:"rows"`
}

func readBaseline(path string) (Baseline, error) {
	var b Baseline
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return b, nil
	}
	if err != nil {
		return b, fmt.Errorf("read baseline: %w", err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("read baseline %s: %w", path, err)
	}
	return b, nil
}

func writeBaseline(path string, b Baseline) error {
	sortRows(b.Rows)
	data, err := json.MarshalIndent(b, "", " ")
	if err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

// merged is the baseline after an -update: the rows just measured replace
// theirs, the rows not measured (sets skipped, or left out of -short) stay.
func merged(old []Row, cur []Row) []Row {
	byKey := map[string]Row{}
	for _, r := range old {
		byKey[r.Key()] = r
	}
	for _, r := range cur {
		byKey[r.Key()] = r
	}
	out := make([]Row, 0, len(byKey))
	for _, r := range byKey {
		out = append(out, r)
	}
	sortRows(out)
	return out
}

func sortRows(rs []Row) {
	slices.SortFunc(rs, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Set, b.Set), cmp.Compare(a.Config, b.Config), cmp.Compare(b.Half, a.Half))
	})
}

// Outcomes of a row.
const (
	verdictSame    = "same"    // within noise
	verdictBetter  = "better"  // above the baseline beyond noise
	verdictWorse   = "WORSE"   // a report half below its baseline beyond noise: fails
	verdictDropped = "dropped" // a tune half below its baseline beyond noise: shown, never fails
	verdictNew     = "new"     // no baseline row yet (run -update)
	verdictSkipped = "skipped" // the set's data is absent here (reason given)
	verdictNotRun  = "not run" // left out of the short form
	verdictMissing = "MISSING" // in the baseline, but the set no longer exists or gave no row: fails
	verdictError   = "ERROR"   // the set failed to run: fails
)

// Line is one row of the printed table with the gate's decision on it.
type Line struct {
	Key     string
	Cur     *Row // nil when not measured
	Base    *Row // nil when the baseline has no such row
	Delta   float64
	DeltaLo float64 // paired bootstrap interval of the mean per-question difference
	DeltaHi float64
	Paired  bool // decided by the paired test (else by the unpaired rule)
	Verdict string
	Reason  string // for skipped, missing and error
	Fails   bool
}

// Outcome of a set that did not give rows.
type Outcome struct {
	Skipped string // the set's data is absent: why
	NotRun  bool   // left out of this form (-short)
	// NotRunConfigs are the set's configurations this form left out
	// (raw in -short).
	NotRunConfigs []string
	Err           error // the set failed to run
}

// judge compares the measured rows with the baseline. sets maps every set
// the command knows to its outcome: skipped, not run, failed, or ran (with
// the configurations this form left out). A report half fails when it is below its baseline
// beyond noise: by the paired test when the baseline holds the same
// questions (the 95% bootstrap interval of the mean per-question
// difference lies wholly below zero), else when the drop is more than half
// the baseline's interval width. A baseline row whose set is not known or
// that the set's run did not give is missing, and fails.
func judge(base []Row, cur []Row, sets map[string]Outcome) []Line {
	baseBy := map[string]*Row{}
	for i := range base {
		baseBy[base[i].Key()] = &base[i]
	}
	seen := map[string]bool{}
	var lines []Line
	for i := range cur {
		r := &cur[i]
		seen[r.Key()] = true
		l := Line{Key: r.Key(), Cur: r, Base: baseBy[r.Key()]}
		switch {
		case l.Base == nil:
			l.Verdict = verdictNew
		case l.Base.Metric != r.Metric:
			l.Verdict, l.Reason = verdictNew, "the baseline measured "+l.Base.Metric+": run -update"
			l.Base = nil
		default:
			compare(&l)
		}
		lines = append(lines, l)
	}
	for name, o := range sets {
		if o.Err != nil {
			lines = append(lines, Line{Key: name, Verdict: verdictError, Reason: o.Err.Error(), Fails: true})
		}
	}
	for i := range base {
		b := &base[i]
		if seen[b.Key()] {
			continue
		}
		l := Line{Key: b.Key(), Base: b}
		o, known := sets[b.Set]
		switch {
		case !known:
			l.Verdict, l.Reason, l.Fails = verdictMissing, "no such set any more: run -update to drop its rows", true
		case o.Err != nil:
			continue // reported once above
		case o.NotRun || slices.Contains(o.NotRunConfigs, b.Config):
			l.Verdict = verdictNotRun
		case o.Skipped != "":
			l.Verdict, l.Reason = verdictSkipped, o.Skipped
		default:
			l.Verdict, l.Reason, l.Fails = verdictMissing, "the set ran but gave no such row", true
		}
		lines = append(lines, l)
	}
	for name, o := range sets {
		if o.Skipped != "" && !hasSet(base, name) {
			lines = append(lines, Line{Key: name, Verdict: verdictSkipped, Reason: o.Skipped})
		}
	}
	slices.SortStableFunc(lines, func(a, b Line) int { return cmp.Compare(lineSort(a), lineSort(b)) })
	return lines
}

func hasSet(rows []Row, set string) bool {
	return slices.ContainsFunc(rows, func(r Row) bool { return r.Set == set })
}

// lineSort orders the table as the rows are sorted: by set, configuration,
// then tune before report.
func lineSort(l Line) string {
	k := l.Key
	k = strings.Replace(k, " "+halfTune, " 0", 1)
	return strings.Replace(k, " "+halfReport, " 1", 1)
}

// compare decides one row that has a baseline.
func compare(l *Line) {
	cur, base := l.Cur, l.Base
	l.Delta = round(cur.Value - base.Value)
	var diffs []float64
	for id, v := range cur.PerQuery {
		if b, ok := base.PerQuery[id]; ok {
			diffs = append(diffs, v-b)
		}
	}
	slices.Sort(diffs) // map order must not reach the seeded bootstrap
	n := max(len(cur.PerQuery), len(base.PerQuery))
	worse, better := false, false
	if n > 0 && float64(len(diffs)) >= minPaired*float64(n) {
		iv := eval.Bootstrap(diffs, resamples, seed, level)
		l.Paired, l.DeltaLo, l.DeltaHi = true, round(iv.Lo), round(iv.Hi)
		worse, better = iv.Hi < 0, iv.Lo > 0
	} else {
		noise := (base.Hi - base.Lo) / 2
		worse, better = l.Delta < -noise, l.Delta > noise
	}
	switch {
	case worse && cur.Half == halfReport:
		l.Verdict, l.Fails = verdictWorse, true
	case worse:
		l.Verdict = verdictDropped
	case better:
		l.Verdict = verdictBetter
	default:
		l.Verdict = verdictSame
	}
}

// failed reports whether any line fails the gate.
func failed(lines []Line) bool {
	return slices.ContainsFunc(lines, func(l Line) bool { return l.Fails })
}

// writeTable prints the one table: every set × configuration × half that
// was measured or needs attention (baseline rows this form does not run
// are left out; the summary counts them).
func writeTable(w io.Writer, lines []Line) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "set\tconfig\thalf\tmetric\tn\tvalue [95% CI]\tbaseline\tdelta\tpaired delta [95% CI]\tverdict")
	for _, l := range lines {
		if l.Verdict == verdictNotRun {
			continue
		}
		set, config, half := splitKey(l.Key)
		metric, n, value, baseline, delta, paired := "", "", "", "", "", ""
		if l.Cur != nil {
			metric, n = l.Cur.Metric, fmt.Sprint(l.Cur.Queries)
			value = fmt.Sprintf("%.4f [%.4f, %.4f]", l.Cur.Value, l.Cur.Lo, l.Cur.Hi)
		}
		if l.Base != nil {
			metric = l.Base.Metric
			baseline = fmt.Sprintf("%.4f", l.Base.Value)
		}
		if l.Cur != nil && l.Base != nil {
			delta = fmt.Sprintf("%+.4f", l.Delta)
			paired = "unpaired"
			if l.Paired {
				paired = fmt.Sprintf("[%+.4f, %+.4f]", l.DeltaLo, l.DeltaHi)
			}
		}
		verdict := l.Verdict
		if l.Reason != "" {
			verdict += ": " + l.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", set, config, half, metric, n, value, baseline, delta, paired, verdict)
	}
	return tw.Flush()
}

// splitKey undoes Row.Key (a set-level line has only the set).
func splitKey(k string) (set, config, half string) {
	parts := strings.SplitN(k, " ", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return parts[0], parts[1], parts[2]
}
