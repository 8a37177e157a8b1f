package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/situate/situate"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/harness"
	"github.com/situate/situate/ingest"
)

// A set is one evaluation set the gate runs: how to load it, the
// configurations it is measured in and its primary metric.
type set struct {
	name    string
	configs []string // harness.ParseConfig names
	// fullConfigs run in the full form only: raw (no context, the
	// "before" of contextual retrieval) on every set.
	fullConfigs []string
	metric      string // eval.Key*
	short       bool   // part of -short
	// docFormat and depth are as "situate eval" sets them for the format.
	docFormat string
	depth     int
	// load reads the set; a *skipError says its data is absent here.
	load func(ctx context.Context, e *env) (*eval.Dataset, error)
	// unavailable, when set, says why the set cannot run anywhere yet; it
	// is shown as skipped even with -require.
	unavailable string
}

// skipError says why a set cannot run on this machine (its data is absent);
// the table shows the reason instead of failing.
type skipError struct{ reason string }

func (s *skipError) Error() string { return s.reason }

func skipf(format string, args ...any) error { return &skipError{fmt.Sprintf(format, args...)} }

// env is where the sets' data is found.
type env struct {
	root  string // repository root
	data  string // shared evaluation data (../shared/data)
	cache string // sets built from installed packages
	log   func(format string, args ...any)
}

// needFiles returns a skipError naming the first path that does not exist.
func needFiles(paths ...string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return skipf("%s is absent", p)
		}
	}
	return nil
}

// allSets lists every set the project has, in table order; the sets under
// bench/sets (answers format) are found when the command runs.
//
// Primary metrics: Pass@10 for the codebase set (the cookbook's own figure,
// chunk-judged with several golden chunks per question), MAP for CACM (its
// standard TREC figure, over 1000 results against many judged documents per
// topic), MRR@10 for every answer set (one golden chunk per question: MRR@10
// counts rank 2 to 10 too, so it moves with smaller changes than hit@1 and
// has a narrower interval).
func allSets(e *env) ([]set, error) {
	d := e.data
	sets := []set{
		{name: "codebase", configs: []string{harness.Provided, harness.Offline}, metric: eval.KeyPass10, short: true,
			docFormat: situate.FormatCode, load: func(ctx context.Context, e *env) (*eval.Dataset, error) {
				c, q, x := filepath.Join(d, "codebase", "codebase_chunks.json"), filepath.Join(d, "codebase", "evaluation_set.jsonl"), filepath.Join(d, "codebase", "contexts_claude3haiku.json")
				if err := needFiles(c, q, x); err != nil {
					return nil, err
				}
				return eval.LoadAnthropic(c, q, x)
			}},
		{name: "cacm", configs: []string{harness.Offline}, metric: eval.KeyMAP, short: true, depth: 1000,
			load: func(ctx context.Context, e *env) (*eval.Dataset, error) {
				docs, topics, qrels := filepath.Join(d, "cacm", "cacm.tar.gz"), filepath.Join(d, "cacm", "topics.cacm.txt"), filepath.Join(d, "cacm", "qrels.cacm.txt")
				if err := needFiles(docs, topics, qrels); err != nil {
					return nil, err
				}
				return eval.LoadTREC(docs, topics, qrels)
			}},
	}
	for _, lang := range []string{"en", "de"} {
		sets = append(sets, set{name: "xquad-" + lang, configs: []string{harness.Offline}, metric: eval.KeyMRR10, short: true,
			load: func(ctx context.Context, e *env) (*eval.Dataset, error) {
				f := filepath.Join(d, "xquad", "xquad."+lang+".json")
				if err := needFiles(f); err != nil {
					return nil, err
				}
				return eval.LoadSQuAD(f, lang)
			}})
	}
	for _, lang := range []string{"es", "ru", "zh"} {
		// XQuAD's Spanish, Russian and Chinese, kept in the repository
		// (bench/sets/xquad/README.md).
		sets = append(sets, set{name: "xquad-" + lang, configs: []string{harness.Offline}, metric: eval.KeyMRR10, short: true,
			load: func(ctx context.Context, e *env) (*eval.Dataset, error) {
				return eval.LoadSQuAD(filepath.Join(e.root, "bench", "sets", "xquad", "xquad."+lang+".json"), lang)
			}})
	}
	for _, lang := range []string{"ru", "zh"} {
		// The hand-written Debian FAQ questions (bench/languages), kept
		// in the repository; faq.* and cloze.* below are built from the
		// debian-faq-ru and debian-faq-zh-cn packages.
		sets = append(sets, set{name: "faq-hand-" + lang, configs: []string{harness.Offline}, metric: eval.KeyMRR10, short: true,
			load: func(ctx context.Context, e *env) (*eval.Dataset, error) {
				return eval.LoadSQuAD(filepath.Join(e.root, "cmd", "situate", "testdata", "debian-faq", "hand."+lang+".json"), lang)
			}})
	}
	for _, m := range []struct{ lang, faq, man string }{{"ru", "ru", "ru"}, {"zh", "zh-cn", "zh_CN"}} {
		faq := "/usr/share/doc/debian/FAQ/" + m.faq
		sets = append(sets,
			builtSet("faq-"+m.lang, m.lang, "debian-faq-"+m.faq, faq, "*.html", "bench/languages/faq.py"),
			builtSet("cloze-"+m.lang, m.lang, "debian-faq-"+m.faq, faq, "*.html", "bench/languages/cloze.py"),
			builtSet("manpages-"+m.lang, m.lang, "manpages-"+m.lang, "/usr/share/man/"+m.man, "man[1-8]/*.gz", "bench/manpages-ru-zh/build.py", "320"))
	}
	sets = append(sets, set{name: "codesearch", configs: []string{harness.Offline}, metric: eval.KeyMRR10, short: true,
		load: loadCodesearch})
	for _, ex := range []string{"corpus", "multilingual"} {
		dir := filepath.Join(e.root, "examples", ex)
		sets = append(sets, answersSet("examples-"+ex, dir, filepath.Join(dir, "queries.jsonl"), nil))
	}
	extra, err := filepath.Glob(filepath.Join(e.root, "bench", "sets", "*", "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(extra)
	for _, q := range extra {
		dir := filepath.Dir(q)
		sets = append(sets, answersSet("sets/"+filepath.Base(dir), filepath.Join(dir, "docs"), q, nil))
	}
	for i := range sets {
		sets[i].fullConfigs = []string{harness.Raw}
	}
	sets = append(sets, set{name: "generated-examples",
		unavailable: "needs a chat model: questions.Generate asks an LLM for every question and none runs offline (see README)"})
	return sets, nil
}

// answersSet is an answers-format set ("situate eval --format answers"):
// every document under docs is indexed, not only those its questions name.
func answersSet(name, docs, queries string, opts *ingest.Options) set {
	return set{name: name, configs: []string{harness.Offline}, metric: eval.KeyMRR10, short: true,
		load: func(ctx context.Context, e *env) (*eval.Dataset, error) {
			if err := needFiles(docs, queries); err != nil {
				return nil, err
			}
			ds, err := eval.LoadAnswers(docs, queries)
			if err != nil {
				return nil, err
			}
			o := ingest.Options{}
			if opts != nil {
				o = *opts
			}
			err = ingest.EvalDocuments(ctx, ds, docs, queries, o, func(err error) { e.log("%s: skip %v", name, err) })
			return ds, err
		}}
}

// loadCodesearch is bench/codesearch: questions about GOROOT/src of the Go
// that runs the command, over the packages its situate.toml includes.
func loadCodesearch(ctx context.Context, e *env) (*eval.Dataset, error) {
	dir := filepath.Join(e.root, "bench", "codesearch")
	var cfg struct{ Include, Exclude []string }
	if _, err := toml.DecodeFile(filepath.Join(dir, "situate.toml"), &cfg); err != nil {
		return nil, fmt.Errorf("codesearch: %w", err)
	}
	src := filepath.Join(goroot(ctx), "src")
	if err := needFiles(filepath.Join(src, "net", "http", "server.go")); err != nil {
		return nil, err
	}
	return answersSet("codesearch", src, filepath.Join(dir, "queries.jsonl"), &ingest.Options{Include: cfg.Include, Exclude: cfg.Exclude}).load(ctx, e)
}

func goroot(ctx context.Context) string {
	if out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	return runtime.GOROOT()
}

// minPages tells an installed translation package from the few pages
// (passwd, login) a fresh Debian ships in /usr/share/man/zh_CN.
const minPages = 100

// builtSet is a SQuAD-format set that a script of the repository builds
// from text an installed Debian package holds (bench/languages,
// bench/manpages-ru-zh): the script runs once per input and script
// version, its output kept in the cache.
func builtSet(name, lang, pkg, input, pattern, script string, args ...string) set {
	return set{name: name, configs: []string{harness.Offline}, metric: eval.KeyMRR10, short: true,
		load: func(ctx context.Context, e *env) (*eval.Dataset, error) {
			files, _ := filepath.Glob(filepath.Join(input, pattern))
			if len(files) == 0 || (strings.HasPrefix(pkg, "manpages") && len(files) < minPages) {
				return nil, skipf("%s holds %d files: install %s (as .ci/run does)", input, len(files), pkg)
			}
			tools := []string{"python3"}
			if strings.HasPrefix(pkg, "manpages") {
				tools = append(tools, "man")
			}
			for _, tool := range tools {
				if _, err := exec.LookPath(tool); err != nil {
					return nil, skipf("%s is not installed (%s needs it)", tool, script)
				}
			}
			path := filepath.Join(e.root, filepath.FromSlash(script))
			code, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			// The cache key is the input file list and the script: a
			// changed package or builder rebuilds.
			h := sha256.Sum256([]byte(strings.Join(files, "\n") + "\n" + strings.Join(args, " ") + "\n" + string(code)))
			out := filepath.Join(e.cache, fmt.Sprintf("%s-%x.json", name, h[:8]))
			if _, err := os.Stat(out); err != nil {
				cmd := exec.CommandContext(ctx, "python3", append([]string{path, lang, input}, args...)...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					return nil, fmt.Errorf("%s: %s: %w: %s", name, script, err, strings.TrimSpace(stderr.String()))
				}
				if err := os.MkdirAll(e.cache, 0o755); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				if err := os.WriteFile(out, stdout.Bytes(), 0o644); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
			}
			return eval.LoadSQuAD(out, lang)
		}}
}

// isSkip unwraps a skipError.
func isSkip(err error) (string, bool) {
	var s *skipError
	if errors.As(err, &s) {
		return s.reason, true
	}
	return "", false
}
