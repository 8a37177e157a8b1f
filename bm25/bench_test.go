package bm25

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmark corpus is generated: benchDocs chunks of 100-200 words
// (150 on average) drawn from a Zipf distribution (s = 1.07) over a
// benchVocab-word vocabulary of synthetic consonant-vowel words, seed
// benchSeed; chunks come in groups of 10 (one "document"). Queries have
// 3-8 terms drawn from the same distribution: "zipf" queries from the whole
// vocabulary (they often contain words present in most chunks), "rare"
// queries skip the 100 most frequent words, as stop-word removal would.
const (
	benchDocs    = 100_000
	benchVocab   = 50_000
	benchSeed    = 42
	benchQueries = 2000
)

type benchCorpus struct {
	ids, groups, texts []string
	raw                int64
	queries            map[string][]string
}

var (
	corpusOnce sync.Once
	corpus     *benchCorpus
)

func benchWord(rank int) string {
	const cons, vows = "bdfgklmnprstvz", "aeiou"
	var b []byte
	for r := rank + 1; r > 0; r /= len(cons) * len(vows) {
		x := r % (len(cons) * len(vows))
		b = append(b, cons[x%len(cons)], vows[x/len(cons)])
	}
	return string(b)
}

func loadCorpus() *benchCorpus {
	corpusOnce.Do(func() {
		rng := rand.New(rand.NewSource(benchSeed))
		z := rand.NewZipf(rng, 1.07, 1, benchVocab-1)
		vocab := make([]string, benchVocab)
		for i := range vocab {
			vocab[i] = benchWord(i)
		}
		c := &benchCorpus{queries: map[string][]string{}}
		var sb strings.Builder
		for i := 0; i < benchDocs; i++ {
			sb.Reset()
			n := 100 + rng.Intn(101)
			for j := 0; j < n; j++ {
				if j > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(vocab[z.Uint64()])
			}
			c.ids = append(c.ids, fmt.Sprintf("c%06d", i))
			c.groups = append(c.groups, fmt.Sprintf("d%05d", i/10))
			c.texts = append(c.texts, sb.String())
			c.raw += int64(sb.Len())
		}
		for _, mix := range []string{"zipf", "rare"} {
			for i := 0; i < benchQueries; i++ {
				n := 3 + rng.Intn(6)
				var words []string
				for len(words) < n {
					r := int(z.Uint64())
					if mix == "rare" && r < 100 {
						continue
					}
					words = append(words, vocab[r])
				}
				c.queries[mix] = append(c.queries[mix], strings.Join(words, " "))
			}
		}
		corpus = c
	})
	return corpus
}

// indexCorpus indexes the first n chunks in batches of batch chunks.
func indexCorpus(tb testing.TB, ix *Index, n, batch int) {
	c := loadCorpus()
	for i := 0; i < n; {
		var b Batch
		j := min(i+batch, n)
		for i < j {
			g := c.groups[i]
			var docs []Doc
			for i < j && c.groups[i] == g {
				docs = append(docs, Doc{ID: c.ids[i], Fields: map[string]string{"text": c.texts[i]}})
				i++
			}
			b.Replace(g, docs)
		}
		if err := ix.Apply(&b); err != nil {
			tb.Fatal(err)
		}
	}
}

var benchOpts = Options{Analyzer: "english"}

func dirSize(tb testing.TB, dir string) int64 {
	var n int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// BenchmarkIndex indexes the corpus into a persistent index, committing
// (with fsync) every 10,000 chunks, and reports chunks/s and the on-disk
// size relative to the raw text.
func BenchmarkIndex(b *testing.B) {
	c := loadCorpus()
	for _, n := range []int{10_000, benchDocs} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			var raw int64
			for _, t := range c.texts[:n] {
				raw += int64(len(t))
			}
			var size int64
			start := time.Now()
			iters := 0
			for b.Loop() {
				dir := b.TempDir()
				ix, err := Open(dir, benchOpts)
				if err != nil {
					b.Fatal(err)
				}
				indexCorpus(b, ix, n, 10_000)
				ix.Close()
				size = dirSize(b, dir)
				iters++
			}
			el := time.Since(start)
			b.ReportMetric(float64(n*iters)/el.Seconds(), "chunks/s")
			b.ReportMetric(float64(size)/float64(raw)*100, "disk%raw")
			b.ReportMetric(float64(size)/(1<<20), "diskMB")
		})
	}
}

var (
	benchIndexOnce sync.Once
	benchIndexDir  string
)

// benchIndex returns the directory of a persisted index of the whole corpus,
// built once per process.
func benchIndex(tb testing.TB) string {
	benchIndexOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bm25-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		ix, err := Open(dir, benchOpts)
		if err != nil {
			tb.Fatal(err)
		}
		indexCorpus(tb, ix, benchDocs, 10_000)
		ix.Close()
		benchIndexDir = dir
	})
	if benchIndexDir == "" {
		tb.Fatal("bench index failed")
	}
	return benchIndexDir
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// BenchmarkSearch runs 3-8 term queries, top 10, on the 100k-chunk index and
// reports latency percentiles.
func BenchmarkSearch(b *testing.B) {
	dir := benchIndex(b)
	ix, err := Open(dir, benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	c := loadCorpus()
	for _, mix := range []string{"zipf", "rare"} {
		for _, k := range []int{10, 100} {
			b.Run(fmt.Sprintf("docs=%d/queries=%s/k=%d", benchDocs, mix, k), func(b *testing.B) {
				qs := c.queries[mix]
				for _, q := range qs[:200] { // warm up
					ix.Search(Query{Text: q, K: k})
				}
				var lat []time.Duration
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					t0 := time.Now()
					if _, err := ix.Search(Query{Text: qs[i%len(qs)], K: k}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
					i++
				}
				b.ReportMetric(float64(percentile(lat, 0.5).Microseconds()), "p50-µs")
				b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
			})
		}
	}
}

// BenchmarkOpen opens the persisted 100k-chunk index.
func BenchmarkOpen(b *testing.B) {
	dir := benchIndex(b)
	for b.Loop() {
		ix, err := Open(dir, benchOpts)
		if err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}

const rssEnv = "BM25_RSS_CHILD_DIR"

// rssChild opens the index, runs every query and prints its peak RSS: a
// process of its own, so the corpus generator's memory does not count.
func rssChild(dir string) {
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fmt.Println("Base" + line)
		}
	}
	ix, err := Open(dir, benchOpts)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	f, err := os.Open(filepath.Join(dir, "queries.txt"))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ix.Search(Query{Text: sc.Text(), K: 10})
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("heap: alloc %d MB, sys %d MB, total sys %d MB\n", ms.HeapAlloc>>20, ms.HeapSys>>20, ms.Sys>>20)
	status, _ = os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") || strings.HasPrefix(line, "VmRSS:") || strings.HasPrefix(line, "Rss") {
			fmt.Println(line)
		}
	}
}

// BenchmarkSearchRSS reports the peak RSS of a process that opens the
// 100k-chunk index and runs 4,000 queries, against the index's size on
// disk: whole-process ("rss/disk") and above the process's RSS before
// opening ("(rss-base)/disk"; the base is mostly the test binary).
func BenchmarkSearchRSS(b *testing.B) {
	dir := benchIndex(b)
	c := loadCorpus()
	qfile := filepath.Join(dir, "queries.txt")
	if err := os.WriteFile(qfile, []byte(strings.Join(append(c.queries["zipf"], c.queries["rare"]...), "\n")), 0o644); err != nil {
		b.Fatal(err)
	}
	defer os.Remove(qfile)
	size := dirSize(b, dir) - int64(len(strings.Join(append(c.queries["zipf"], c.queries["rare"]...), "\n")))
	exe, _ := os.Executable()
	var hwm, base float64
	for b.Loop() {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), rssEnv+"="+dir)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("rss child: %v: %s", err, out)
		}
		b.Logf("child: %s", out)
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				kb, _ := strconv.Atoi(f[1])
				switch f[0] {
				case "VmHWM:":
					hwm = float64(kb) * 1024
				case "BaseVmRSS:":
					base = float64(kb) * 1024
				}
			}
		}
	}
	b.ReportMetric(hwm/(1<<20), "peakRSS-MB")
	b.ReportMetric(base/(1<<20), "baseRSS-MB")
	b.ReportMetric(float64(size)/(1<<20), "diskMB")
	b.ReportMetric(hwm/float64(size), "rss/disk")
	b.ReportMetric((hwm-base)/float64(size), "(rss-base)/disk")
}

// TestExportBenchCorpus writes the benchmark corpus and queries for the
// Lucene comparison (bench/lucene) when BM25_EXPORT_DIR is set.
func TestExportBenchCorpus(t *testing.T) {
	dir := os.Getenv("BM25_EXPORT_DIR")
	if dir == "" {
		t.Skip("BM25_EXPORT_DIR not set")
	}
	c := loadCorpus()
	write := func(name string, fill func(w *bufio.Writer)) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fill(w)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write("corpus.tsv", func(w *bufio.Writer) {
		for i := range c.ids {
			fmt.Fprintf(w, "%s\t%s\t%s\n", c.ids[i], c.groups[i], c.texts[i])
		}
	})
	for mix, qs := range c.queries {
		write("queries-"+mix+".txt", func(w *bufio.Writer) {
			for _, q := range qs {
				fmt.Fprintln(w, q)
			}
		})
	}
}
