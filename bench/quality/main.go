// Command quality is situate's quality gate: it runs every evaluation set
// the project has through the product's evaluation path (harness.Evaluate,
// as "situate eval" runs it with its default settings), prints one table of
// every set × configuration × half with its primary metric, a bootstrap
// interval and the delta against the committed baseline, and exits 1 when a
// report half falls below its baseline beyond noise.
//
//	go run ./bench/quality            # the full form
//	go run ./bench/quality -short     # the sets that run in minutes (CI)
//	go run ./bench/quality -update    # measure and write baseline.json
//
// See bench/quality/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/harness"

	"github.com/situate/situate"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quality", flag.ContinueOnError)
	fs.SetOutput(stderr)
	short := fs.Bool("short", false, "the CI form: the sets marked short, without the raw configurations")
	update := fs.Bool("update", false, "write the measured rows into the baseline (rows not measured are kept)")
	baselinePath := fs.String("baseline", "", "baseline file (default bench/quality/baseline.json)")
	dataDir := fs.String("data", "", "shared evaluation data (default ../shared/data beside the repository)")
	cacheDir := fs.String("cache", "", "where sets built from installed packages are kept (default the user cache directory)")
	require := fs.Bool("require", false, "a set whose data is absent fails instead of being skipped (CI)")
	changed := fs.Bool("changed", false, "print only the rows whose value differs from the baseline (the rows a commit message carries)")
	only := fs.String("sets", "", "run only the sets whose name matches this regular expression")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(stderr, "quality:", err)
		return 2
	}
	e := &env{root: root, data: *dataDir, cache: *cacheDir,
		log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }}
	if e.data == "" {
		e.data = filepath.Join(root, "..", "shared", "data")
	}
	if e.cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		e.cache = filepath.Join(dir, "situate-quality")
	}
	if *baselinePath == "" {
		*baselinePath = filepath.Join(root, "bench", "quality", "baseline.json")
	}
	var match *regexp.Regexp
	if *only != "" {
		if match, err = regexp.Compile(*only); err != nil {
			fmt.Fprintf(stderr, "quality: -sets: %v\n", err)
			return 2
		}
	}
	base, err := readBaseline(*baselinePath)
	if err != nil {
		fmt.Fprintln(stderr, "quality:", err)
		return 2
	}
	sets, err := allSets(e)
	if err != nil {
		fmt.Fprintln(stderr, "quality:", err)
		return 2
	}

	start := time.Now()
	var rows []Row
	outcomes := map[string]Outcome{}
	for _, s := range sets {
		if s.unavailable != "" {
			outcomes[s.name] = Outcome{Skipped: s.unavailable}
			continue
		}
		if (*short && !s.short) || (match != nil && !match.MatchString(s.name)) {
			outcomes[s.name] = Outcome{NotRun: true}
			continue
		}
		t := time.Now()
		configs, notRun := s.configs, s.fullConfigs
		if !*short {
			configs, notRun = append(slices.Clip(s.configs), s.fullConfigs...), nil
		}
		got, err := runSet(ctx, e, s, configs)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "quality: interrupted")
			return 2
		}
		switch reason, skipped := isSkip(err); {
		case skipped && *require:
			outcomes[s.name] = Outcome{Err: fmt.Errorf("-require: %s", reason)}
			e.log("%s: %s (-require)", s.name, reason)
		case skipped:
			outcomes[s.name] = Outcome{Skipped: reason}
			e.log("%s: skipped: %s", s.name, reason)
		case err != nil:
			outcomes[s.name] = Outcome{Err: err}
			e.log("%s: %v", s.name, err)
		default:
			outcomes[s.name] = Outcome{NotRunConfigs: notRun}
			rows = append(rows, got...)
			e.log("%s: %d rows in %s", s.name, len(got), time.Since(t).Round(time.Second))
		}
	}
	sortRows(rows)
	lines := judge(base.Rows, rows, outcomes)
	shown := lines
	if *changed {
		shown = slices.DeleteFunc(slices.Clone(lines), func(l Line) bool {
			return l.Cur != nil && l.Base != nil && l.Cur.Value == l.Base.Value && !l.Fails
		})
	}
	if err := writeTable(stdout, shown); err != nil {
		fmt.Fprintln(stderr, "quality:", err)
		return 2
	}
	notRun := 0
	for _, l := range lines {
		if l.Verdict == verdictNotRun {
			notRun++
		}
	}
	fmt.Fprintf(stdout, "\n%d rows measured in %s (%d baseline rows not run in this form); noise: paired bootstrap (95%%) of the per-question difference against the baseline\n",
		len(rows), time.Since(start).Round(time.Second), notRun)
	if *update {
		if slices.ContainsFunc(slices.Collect(maps.Values(outcomes)), func(o Outcome) bool { return o.Err != nil }) {
			fmt.Fprintln(stderr, "quality: -update: not written, a set failed to run")
			return 1
		}
		base.Note = "written by go run ./bench/quality -update; see bench/quality/README.md"
		base.Rows = merged(base.Rows, rows)
		if err := writeBaseline(*baselinePath, base); err != nil {
			fmt.Fprintln(stderr, "quality:", err)
			return 2
		}
		fmt.Fprintf(stdout, "baseline written: %s (%d rows)\n", *baselinePath, len(base.Rows))
		return 0
	}
	if failed(lines) {
		fmt.Fprintln(stdout, "FAIL: a report half fell below its baseline beyond noise, or a set is missing or failed (rows marked WORSE, MISSING, ERROR)")
		return 1
	}
	fmt.Fprintln(stdout, "PASS")
	return 0
}

// runSet evaluates every configuration of a set once over all its
// questions and splits the per-question scores into the tune and report
// halves (eval.Split, seed "situate", as "situate eval --half" does): the
// questions of one half do not change the index or another question's
// results, so this is the two --half runs at half the cost.
func runSet(ctx context.Context, e *env, s set, configs []string) ([]Row, error) {
	ds, err := s.load(ctx, e)
	if err != nil {
		return nil, err
	}
	if n := len(ds.Skipped); n > 0 {
		e.log("%s: %d records skipped by the loader (first: %s)", s.name, n, ds.Skipped[0])
	}
	tune, _ := eval.Split(ds.Queries, "situate")
	inTune := map[string]bool{}
	for _, q := range tune {
		inTune[q.ID] = true
	}
	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close()
	var rows []Row
	for _, name := range configs {
		cfg, err := harness.ParseConfig(name)
		if err != nil {
			return nil, err
		}
		run, err := harness.Evaluate(ctx, ds, cfg, evalOptions(e, s, pdfx))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		halves := map[string]map[string]float64{halfTune: {}, halfReport: {}}
		for _, q := range run.PerQuery {
			v, ok := q.Metrics[s.metric]
			if !ok {
				continue
			}
			h := halfReport
			if inTune[q.ID] {
				h = halfTune
			}
			halves[h][q.ID] = round(v)
		}
		for _, h := range []string{halfTune, halfReport} {
			if len(halves[h]) == 0 {
				return nil, fmt.Errorf("%s: no question of the %s half has %s", name, h, s.metric)
			}
			rows = append(rows, newRow(s.name, name, h, s.metric, halves[h]))
		}
	}
	return rows, nil
}

// evalOptions are "situate eval"'s defaults: a SQLite store per
// configuration, situate.DefaultOptions (what every flag of situate eval
// defaults to) and the offline contextualizer for the offline
// configuration.
func evalOptions(e *env, s set, pdfx *pdf.Extractor) harness.Options {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return harness.Options{
		Depth: s.depth, DocFormat: s.docFormat,
		NewStore: func(ctx context.Context, dir string) (driver.Store, error) {
			return sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
		},
		EngineOptions: func(cfg harness.Config, store driver.Store) (situate.Options, error) {
			o := situate.DefaultOptions()
			o.Logger = log
			if cfg.Contexts == harness.Offline {
				o.Contextualizer = offline.New(offline.DefaultOptions())
			}
			return o, o.Validate()
		},
		Read: func(ctx context.Context, path, id string) (situate.Document, error) {
			return ingest.ParseFile(ctx, path, id, ingest.Options{PDF: pdfx})
		},
		Skip: func(id string, err error) { e.log("%s: skip document %s: %v", s.name, id, err) },
	}
}

// repoRoot is the directory holding go.mod, from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the situate repository (no go.mod above the working directory)")
		}
		dir = parent
	}
}
