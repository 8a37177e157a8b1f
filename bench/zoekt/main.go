// Command zoektbench measures Zoekt (built from source in ./src) on situate's
// answers-format code-search sets with the judging the issue asks for, and
// scores situate's own per-query output (situate eval --per-query) the same
// way, so both are compared on the same questions:
//
//   - file level: the rank of the question's file among the results;
//   - chunk level: for Zoekt, the rank of the first file whose best line is
//     the right file's and within ±18 lines of the answer (the needle); for
//     situate, the rank of the first chunk of the right file holding the
//     answer (situate eval's own answer judging).
//
// Usage (see run.sh):
//
//	zoektbench -index DIR -docs DOCS [-config situate.toml]        # build the index, print its time
//	zoektbench -index DIR -docs DOCS -queries Q.jsonl -situate PERQUERY.txt [-modes default,bm25,default:4,bm25:4]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"
	"github.com/sourcegraph/zoekt"
	"github.com/sourcegraph/zoekt/index"
	"github.com/sourcegraph/zoekt/query"
	"github.com/sourcegraph/zoekt/search"
)

// lineWindow is how far (in lines) Zoekt's best line may be from the answer
// line for a chunk-level hit: about half of one of situate's chunks.
const lineWindow = 18

// defaultMinLen is the shortest keyword Zoekt is asked for unless the mode
// says otherwise ("bm25:4").
const defaultMinLen = 3

func main() {
	indexDir := flag.String("index", "", "Zoekt index directory (built when -queries is not given)")
	docs := flag.String("docs", "", "document folder (the answers set's --docs)")
	config := flag.String("config", "", "situate.toml whose include/exclude globs pick the corpus (optional)")
	queries := flag.String("queries", "", "answers-format queries.jsonl")
	situate := flag.String("situate", "", "situate eval --per-query output: the questions it lists are the ones measured (the half) and its rankings are scored")
	modes := flag.String("modes", "default,bm25,default:4,bm25:4", "Zoekt modes to run: default (Zoekt's ranking with ctags symbol boosts) or bm25 (UseBM25Scoring), each optionally :N, the shortest keyword (default 3)")
	ctags := flag.String("ctags", "", "universal-ctags binary (default: universal-ctags or ctags on PATH; none: index without symbols)")
	flag.Parse()
	if *indexDir == "" || *docs == "" {
		log.Fatal("zoektbench: -index and -docs are required")
	}
	ctx := context.Background()
	if *queries == "" {
		if err := build(*indexDir, *docs, *config, *ctags); err != nil {
			log.Fatalf("zoektbench: index %s: %v", *docs, err)
		}
		return
	}
	if err := measure(ctx, *indexDir, *docs, *queries, *situate, strings.Split(*modes, ",")); err != nil {
		log.Fatalf("zoektbench: %v", err)
	}
}

// globs reads the include/exclude lists of a situate.toml.
func globs(path string) (include, exclude []string, err error) {
	if path == "" {
		return nil, nil, nil
	}
	var cfg struct{ Include, Exclude []string }
	if _, err := toml.DecodeFile(path, &cfg); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	for _, g := range append(slices.Clone(cfg.Include), cfg.Exclude...) {
		if !doublestar.ValidatePattern(g) {
			return nil, nil, fmt.Errorf("read %s: include/exclude: %q is not a valid glob pattern", path, g)
		}
	}
	return cfg.Include, cfg.Exclude, nil
}

func keep(rel string, include, exclude []string) bool {
	for _, g := range exclude {
		if ok, _ := doublestar.Match(g, rel); ok {
			return false
		}
	}
	if len(include) == 0 {
		return true
	}
	for _, g := range include {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

func ctagsPath(flagValue string) string {
	if flagValue == "none" {
		return ""
	}
	if flagValue != "" {
		return flagValue
	}
	for _, name := range []string{"universal-ctags", "ctags"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// build indexes every file under docs (kept by the config's globs) into
// indexDir with Zoekt's builder, as zoekt-index does, with ctags symbols.
func build(indexDir, docs, config, ctags string) error {
	include, exclude, err := globs(config)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(indexDir); err != nil {
		return err
	}
	if err := os.MkdirAll(indexDir, 0o755); err != nil {
		return err
	}
	opts := index.Options{
		IndexDir:              indexDir,
		RepositoryDescription: zoekt.Repository{Name: "corpus"},
		CTagsPath:             ctagsPath(ctags),
		CTagsMustSucceed:      false,
		Parallelism:           2,
	}
	opts.DisableCTags = opts.CTagsPath == ""
	start := time.Now()
	b, err := index.NewBuilder(opts)
	if err != nil {
		return fmt.Errorf("zoekt builder: %w", err)
	}
	n := 0
	var size int64
	err = filepath.WalkDir(docs, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(docs, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !keep(rel, include, exclude) {
			return nil
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		size += int64(len(content))
		if err := b.Add(index.Document{Name: rel, Content: content}); err != nil {
			return fmt.Errorf("add %s: %w", rel, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := b.Finish(); err != nil {
		return fmt.Errorf("zoekt builder: finish: %w", err)
	}
	fmt.Printf("zoekt index: %d files, %.1f MiB, ctags %q, %s wall\n", n, float64(size)/(1<<20), opts.CTagsPath, time.Since(start).Round(time.Millisecond))
	return nil
}

type question struct {
	ID     string `json:"id"`
	Query  string `json:"query"`
	Doc    string `json:"doc"`
	Answer string `json:"answer"`
}

// situateRun is what situate eval --per-query printed for one question.
type situateRun struct {
	retrieved []string // "doc#i" or "doc#i (answer)"
}

// readSituate parses situate eval --per-query output: "ID [mode] ..." lines
// followed by "  retrieved: doc#i doc#i (answer) ...".
func readSituate(path string) (map[string]situateRun, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	runs := map[string]situateRun{}
	var order []string
	cur := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "== "):
		case !strings.HasPrefix(line, " ") && strings.Contains(line, " ["):
			cur = line[:strings.Index(line, " [")]
			order = append(order, cur)
			runs[cur] = situateRun{}
		case strings.HasPrefix(line, "  retrieved:"):
			var items []string
			for _, tok := range strings.Fields(strings.TrimPrefix(line, "  retrieved:")) {
				if tok == "(answer)" && len(items) > 0 {
					items[len(items)-1] += " (answer)"
					continue
				}
				items = append(items, tok)
			}
			runs[cur] = situateRun{retrieved: items}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(order) == 0 {
		return nil, nil, fmt.Errorf("%s: no per-query results (run situate eval with --per-query)", path)
	}
	return runs, order, nil
}

// ranks are the 1-based ranks of the first file-level and chunk-level hit
// (0: not in the top 10).
type ranks struct{ file, chunk int }

type tally struct {
	n                              int
	fileHit1, fileHit5, fileMRR    float64
	chunkHit1, chunkHit5, chunkMRR float64
}

func (t *tally) add(r ranks) {
	t.n++
	add := func(rank int, h1, h5, mrr *float64) {
		if rank == 0 {
			return
		}
		if rank == 1 {
			*h1++
		}
		if rank <= 5 {
			*h5++
		}
		*mrr += 1 / float64(rank)
	}
	add(r.file, &t.fileHit1, &t.fileHit5, &t.fileMRR)
	add(r.chunk, &t.chunkHit1, &t.chunkHit5, &t.chunkMRR)
}

func (t tally) row(name string) string {
	d := float64(max(t.n, 1))
	return fmt.Sprintf("%-16s %3d   %.3f  %.3f  %.3f    %.3f  %.3f  %.3f", name, t.n,
		t.fileHit1/d, t.fileHit5/d, t.fileMRR/d, t.chunkHit1/d, t.chunkHit5/d, t.chunkMRR/d)
}

func situateRanks(q question, r situateRun) ranks {
	var out ranks
	var files []string
	for i, item := range r.retrieved {
		doc := item[:strings.LastIndex(strings.TrimSuffix(item, " (answer)"), "#")]
		if !slices.Contains(files, doc) {
			files = append(files, doc)
			if doc == q.Doc && out.file == 0 && len(files) <= 10 {
				out.file = len(files)
			}
		}
		if strings.HasSuffix(item, " (answer)") && out.chunk == 0 && i < 10 {
			out.chunk = i + 1
		}
	}
	return out
}

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or of to in on for from by with without at as is are was were be been being
		it its this that these those there here what which who whom whose when where why how does do did done doing
		has have had having can could should would will shall may might must not no nor than then so such
		if else into onto over under about after before between through during out up down off only own same
		all any both each few more most other some very too just also given given's one ones get gets
		i me my we our you your he him his she her they them their while whether until use used using uses`) {
		stopwords[w] = true
	}
}

// keywords are the question's words, lower-cased, without English stop words
// and words shorter than minLen letters, each once.
func keywords(text string, minLen int) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if len([]rune(w)) < minLen || stopwords[w] || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// needleLine is the 1-based line of the answer in the file.
func needleLine(docs string, q question) (int, error) {
	data, err := os.ReadFile(filepath.Join(docs, filepath.FromSlash(q.Doc)))
	if err != nil {
		return 0, err
	}
	i := strings.Index(string(data), q.Answer)
	if i < 0 {
		return 0, fmt.Errorf("%s: answer %q not in %s", q.ID, q.Answer, q.Doc)
	}
	return strings.Count(string(data[:i]), "\n") + 1, nil
}

// parseMode splits "bm25:4" into its scoring and shortest keyword length.
func parseMode(mode string) (scoring string, minLen int, err error) {
	scoring, n, ok := strings.Cut(mode, ":")
	minLen = defaultMinLen
	if ok {
		if minLen, err = strconv.Atoi(n); err != nil || minLen < 1 {
			return "", 0, fmt.Errorf("mode %q: the shortest keyword length after the colon must be a positive number", mode)
		}
	}
	if scoring != "default" && scoring != "bm25" {
		return "", 0, fmt.Errorf("mode %q: must be default or bm25, optionally with :N", mode)
	}
	return scoring, minLen, nil
}

func zoektRanks(ctx context.Context, s zoekt.Searcher, q question, needle int, mode string) (ranks, error) {
	scoring, minLen, err := parseMode(mode)
	if err != nil {
		return ranks{}, err
	}
	var ors []query.Q
	for _, w := range keywords(q.Query, minLen) {
		// Content and file name (neither flag set), case-insensitive: what
		// Zoekt's query language makes of "w1 or w2 ...".
		ors = append(ors, &query.Substring{Pattern: w})
	}
	if len(ors) == 0 {
		return ranks{}, nil
	}
	opts := &zoekt.SearchOptions{
		ShardMaxMatchCount: 100000, TotalMaxMatchCount: 1000000,
		MaxDocDisplayCount: 10, MaxWallTime: time.Minute,
		UseBM25Scoring: scoring == "bm25",
	}
	res, err := s.Search(ctx, query.Simplify(query.NewOr(ors...)), opts)
	if err != nil {
		return ranks{}, fmt.Errorf("zoekt search %s: %w", mode, err)
	}
	var out ranks
	for i, f := range res.Files {
		if i >= 10 {
			break
		}
		if f.FileName != q.Doc {
			continue
		}
		if out.file == 0 {
			out.file = i + 1
		}
		// The best line: the first content line match (Zoekt sorts them
		// by score).
		for _, lm := range f.LineMatches {
			if lm.FileName {
				continue
			}
			if math.Abs(float64(lm.LineNumber-needle)) <= lineWindow && out.chunk == 0 {
				out.chunk = i + 1
			}
			break
		}
	}
	return out, nil
}

func measure(ctx context.Context, indexDir, docs, queriesPath, situatePath string, modes []string) error {
	data, err := os.ReadFile(queriesPath)
	if err != nil {
		return err
	}
	byID := map[string]question{}
	var all []string
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var q question
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return fmt.Errorf("%s:%d: %w", queriesPath, i+1, err)
		}
		byID[q.ID] = q
		all = append(all, q.ID)
	}
	ids := all
	var sit map[string]situateRun
	if situatePath != "" {
		var order []string
		if sit, order, err = readSituate(situatePath); err != nil {
			return err
		}
		ids = order
	}
	ss, err := search.NewDirectorySearcher(indexDir)
	if err != nil {
		return fmt.Errorf("open zoekt index %s: %w", indexDir, err)
	}
	defer ss.Close()
	fmt.Printf("%-16s %3s   %-20s   %-20s\n", "", "", "file level", "chunk level (±18 lines)")
	fmt.Printf("%-16s %3s   %-5s  %-5s  %-5s    %-5s  %-5s  %-5s\n", "system", "n", "hit@1", "hit@5", "mrr10", "hit@1", "hit@5", "mrr10")
	sitRanks := map[string]ranks{}
	if sit != nil {
		var t tally
		for _, id := range ids {
			q, ok := byID[id]
			if !ok {
				return fmt.Errorf("%s: question %s is not in %s", situatePath, id, queriesPath)
			}
			sitRanks[id] = situateRanks(q, sit[id])
			t.add(sitRanks[id])
		}
		fmt.Println(t.row("situate"))
	}
	for _, mode := range modes {
		if _, _, err := parseMode(mode); err != nil {
			return err
		}
		var t tally
		start := time.Now()
		var perQ []string
		for _, id := range ids {
			q := byID[id]
			needle, err := needleLine(docs, q)
			if err != nil {
				return err
			}
			r, err := zoektRanks(ctx, ss, q, needle, mode)
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			t.add(r)
			line := fmt.Sprintf("  %-50s zoekt file %2d chunk %2d", id, r.file, r.chunk)
			if sr, ok := sitRanks[id]; ok {
				line += fmt.Sprintf("   situate file %2d chunk %2d", sr.file, sr.chunk)
			}
			perQ = append(perQ, line)
		}
		fmt.Println(t.row("zoekt-"+mode) + fmt.Sprintf("   (%.1f ms/question)", float64(time.Since(start).Microseconds())/1000/float64(max(len(ids), 1))))
		// ZOEKTBENCH_PERQUERY=1 lists every question's ranks (0: not in
		// the top 10).
		if os.Getenv("ZOEKTBENCH_PERQUERY") != "" {
			fmt.Println(strings.Join(perQ, "\n"))
		}
	}
	return nil
}
