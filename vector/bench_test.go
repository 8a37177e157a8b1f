package vector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Benchmark data is generated once, seeded, into
// $TMPDIR/situate-vector-bench/<kind>-n<N>-d<dim>-v1 (outside the
// repository) and reused by later runs. Two kinds:
//
//   - gaussian: every component iid N(0,1), queries likewise. No vector is
//     much closer to a query than the rest: the worst case for sign-bit
//     quantization.
//   - clustered: n/50 centres drawn iid N(0,1); a vector is a centre plus
//     iid N(0,1) noise (cosine with its cluster mates ~0.5, with others
//     ~0); a query is a fresh point drawn the same way.
//   - diffuse: clustered with noise of standard deviation 3: cluster mates
//     have cosine ~0.1, barely above the ~0 of the rest (between gaussian
//     and clustered; TestRecallReport only).
//   - anisotropic: clustered plus one offset shared by every vector and
//     query (iid N(0,1) components), as embedding models have a common
//     direction: unrelated vectors have cosine ~0.33, cluster mates ~0.67,
//     and many sign bits lean the same way.
//
// The 1M-vector runs (4 GB of float32) need SITUATE_BENCH_1M=1.

const benchQueries = 100

type benchSet struct {
	kind    string
	n, dim  int
	queries [][]float32
	heapMB  float64 // Go heap the open index holds (ID tables, maps)
}

func (s benchSet) dir() string {
	return filepath.Join(os.TempDir(), "situate-vector-bench", fmt.Sprintf("%s-n%d-d%d-v2", s.kind, s.n, s.dim))
}

func (s benchSet) centres() [][]float32 {
	r := rand.New(rand.NewPCG(1, uint64(s.n)))
	c := make([][]float32, max(s.n/50, 1))
	for i := range c {
		c[i] = gaussian(r, s.dim)
	}
	return c
}

// point draws one vector of the set's distribution.
func (s benchSet) point(r *rand.Rand, centres [][]float32) []float32 {
	v := gaussian(r, s.dim)
	if s.kind == "diffuse" {
		for i := range v {
			v[i] *= 3
		}
	}
	if s.kind == "clustered" || s.kind == "anisotropic" || s.kind == "diffuse" {
		c := centres[r.IntN(len(centres))]
		for i := range v {
			v[i] += c[i]
		}
	}
	if s.kind == "anisotropic" {
		off := gaussian(rand.New(rand.NewPCG(4, 4)), s.dim) // the shared offset
		for i := range v {
			v[i] += off[i]
		}
	}
	return v
}

// open returns the set's index, generating it first if needed.
func (s *benchSet) open(tb testing.TB) *Index {
	tb.Helper()
	centres := s.centres()
	qr := rand.New(rand.NewPCG(2, 2))
	s.queries = make([][]float32, benchQueries)
	for i := range s.queries {
		s.queries[i] = s.point(qr, centres)
	}
	opts := Options{Dim: s.dim, MaxSegments: 1000}
	h0 := heapMB()
	ix, err := Open(s.dir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	if ix.Len() == s.n {
		s.heapMB = heapMB() - h0
		return ix
	}
	ix.Close()
	os.RemoveAll(s.dir())
	if ix, err = Open(s.dir(), opts); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	batch := 65540 // a multiple of the 10 items per group: groups never span batches
	r := rand.New(rand.NewPCG(3, uint64(s.n)))
	for lo := 0; lo < s.n; lo += batch {
		m := map[string][]Item{}
		for i := lo; i < min(lo+batch, s.n); i++ {
			g := "d" + strconv.Itoa(i/10)
			m[g] = append(m[g], Item{ID: g + "#" + strconv.Itoa(i%10), Vector: s.point(r, centres)})
		}
		if err := ix.ReplaceBatch(m); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Logf("generated %s in %v", s.dir(), time.Since(start).Round(time.Millisecond))
	// Reopen so the heap figure is the index's, not the generator's.
	ix.Close()
	debug.FreeOSMemory()
	h0 = heapMB()
	if ix, err = Open(s.dir(), opts); err != nil {
		tb.Fatal(err)
	}
	s.heapMB = heapMB() - h0
	return ix
}

// recall is the mean fraction of the exact top-k that the quantized search
// with the given options returns, and the mean number of rows it scored
// exactly.
func recall(tb testing.TB, ix *Index, queries [][]float32, k, rescore int, epsilon float64) (float64, float64) {
	save := ix.opts
	defer func() { ix.opts = save }()
	var sum, rescored float64
	for _, q := range queries {
		ix.opts.QuantizeAbove = -1
		exact, err := ix.Search(q, k, nil)
		if err != nil {
			tb.Fatal(err)
		}
		ix.opts.QuantizeAbove, ix.opts.Rescore, ix.opts.Epsilon = 1, rescore, epsilon
		if epsilon == 0 {
			ix.opts.Epsilon = DefaultEpsilon
		}
		approx, st, err := ix.search(q, k, nil)
		if err != nil {
			tb.Fatal(err)
		}
		rescored += float64(st.rescored)
		hit := 0
		for _, e := range exact {
			if slices.ContainsFunc(approx, func(a Result) bool { return a.ID == e.ID }) {
				hit++
			}
		}
		sum += float64(hit) / float64(len(exact))
	}
	return sum / float64(len(queries)), rescored / float64(len(queries))
}

// recallDeep runs default quantized searches for k results and returns the
// mean recall of the exact top head among the first head results, the mean
// recall of the exact top k, and the mean number of rows scored exactly.
func recallDeep(tb testing.TB, ix *Index, queries [][]float32, k, head int) (float64, float64, float64) {
	save := ix.opts
	defer func() { ix.opts = save }()
	var recHead, recAll, rescored float64
	share := func(exact, approx []Result) float64 {
		hit := 0
		for _, e := range exact {
			if slices.ContainsFunc(approx, func(a Result) bool { return a.ID == e.ID }) {
				hit++
			}
		}
		return float64(hit) / float64(len(exact))
	}
	for _, q := range queries {
		ix.opts.QuantizeAbove = -1
		exact, err := ix.Search(q, k, nil)
		if err != nil {
			tb.Fatal(err)
		}
		ix.opts.QuantizeAbove, ix.opts.Rescore, ix.opts.Epsilon = 1, 0, DefaultEpsilon
		approx, st, err := ix.search(q, k, nil)
		if err != nil {
			tb.Fatal(err)
		}
		rescored += float64(st.rescored)
		recHead += share(exact[:head], approx[:head])
		recAll += share(exact, approx)
	}
	n := float64(len(queries))
	return recHead / n, recAll / n, rescored / n
}

func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// mappedMB sums the resident size of this process's mappings of files
// under dir (the memory-mapped segments), from /proc/self/smaps.
func mappedMB(dir string) float64 {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	var kb float64
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && strings.Contains(f[0], "-") {
			in = strings.HasPrefix(f[5], dir)
			continue
		}
		if in && len(f) >= 2 && f[0] == "Rss:" {
			v, _ := strconv.ParseFloat(f[1], 64)
			kb += v
		}
	}
	return kb / 1024
}

// procStatus returns a /proc/self/status field in MB (0 if unavailable).
func procStatus(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func benchSearch(b *testing.B, ix *Index, queries [][]float32, k int) {
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 1024)
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		t := time.Now()
		if _, err := ix.Search(queries[i%len(queries)], k, nil); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		i++
	}
	cpu := cpuTime() - cpu0
	slices.Sort(lat)
	ms := func(p float64) float64 {
		return float64(lat[min(int(p*float64(len(lat))), len(lat)-1)]) / 1e6
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	// Process CPU time per search (all goroutines): what a search costs
	// independent of how much of the shared machine the run got.
	b.ReportMetric(float64(cpu)/1e6/float64(len(lat)), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkSearch(b *testing.B) {
	sets := []benchSet{
		{kind: "gaussian", n: 100_000, dim: 1024},
		{kind: "clustered", n: 100_000, dim: 1024},
		{kind: "anisotropic", n: 100_000, dim: 1024},
	}
	if os.Getenv("SITUATE_BENCH_1M") != "" {
		sets = append(sets, benchSet{kind: "clustered", n: 1_000_000, dim: 1024}, benchSet{kind: "gaussian", n: 1_000_000, dim: 1024})
	}
	for _, s := range sets {
		name := fmt.Sprintf("data=%s/n=%d/dim=%d", s.kind, s.n, s.dim)
		var ix *Index
		setup := func(b *testing.B) *Index {
			if ix == nil {
				ix = s.open(b)
			}
			return ix
		}
		if s.n <= 100_000 {
			b.Run(name+"/mode=exact/k=10", func(b *testing.B) {
				ix := setup(b)
				ix.opts.QuantizeAbove = -1
				benchSearch(b, ix, s.queries, 10)
				// Index memory after a full scan: resident mapped segment
				// pages plus the Go heap the index holds, over the raw
				// float32 size; and the whole process's RSS.
				raw := float64(s.n*s.dim*4) / (1 << 20)
				mem := mappedMB(s.dir()) + s.heapMB
				b.ReportMetric(raw, "raw-MB")
				b.ReportMetric(mem, "index-MB")
				b.ReportMetric(mem/raw, "index/raw")
				b.ReportMetric(procStatus("VmRSS"), "rss-MB")
			})
		}
		// epsilon 0 is the default (DefaultEpsilon); -1 rescores only the
		// default 200 best estimates.
		for _, epsilon := range []float64{0, -1, 1.5, 2.5} {
			b.Run(fmt.Sprintf("%s/mode=binary/epsilon=%g/k=10", name, epsilon), func(b *testing.B) {
				ix := setup(b)
				rec, rescored := recall(b, ix, s.queries[:20], 10, 0, epsilon)
				ix.opts.QuantizeAbove, ix.opts.Rescore, ix.opts.Epsilon = 1, 0, epsilon
				if epsilon == 0 {
					ix.opts.Epsilon = DefaultEpsilon
				}
				benchSearch(b, ix, s.queries, 10)
				b.ReportMetric(rec, "recall@10")
				b.ReportMetric(rescored, "rescored/op")
				b.ReportMetric(mappedMB(s.dir())+s.heapMB, "index-MB")
				b.ReportMetric(procStatus("VmRSS"), "rss-MB")
			})
		}
		if ix != nil {
			ix.Close()
		}
	}
}

// TestRecallReport prints recall@10 of the first pass against exact search
// for several Epsilon values (go test -run RecallReport -v with
// SITUATE_VECTOR_RECALL=1 or =diffuse,gaussian...; it generates the
// benchmark data if missing).
func TestRecallReport(t *testing.T) {
	env := os.Getenv("SITUATE_VECTOR_RECALL")
	if env == "" {
		t.Skip("set SITUATE_VECTOR_RECALL=1 (or a comma-separated list of data kinds) to measure recall on the benchmark data")
	}
	kinds := []string{"gaussian", "clustered", "anisotropic", "diffuse"}
	if env != "1" {
		kinds = strings.Split(env, ",")
	}
	for _, kind := range kinds {
		s := benchSet{kind: kind, n: 100_000, dim: 1024}
		ix := s.open(t)
		for _, epsilon := range []float64{-1, 1, 1.5, 1.9, 2.5, 3} {
			rec, rescored := recall(t, ix, s.queries, 10, 0, epsilon)
			t.Logf("data=%s n=%d dim=%d queries=%d epsilon=%g recall@10=%.3f rescored=%.0f", kind, s.n, s.dim, len(s.queries), epsilon, rec, rescored)
		}
		// A fusion arm asks for 150 candidates: the bound pass protects its
		// top BoundDepth (20), the rest come from the best estimates.
		rec10, rec150, rescored := recallDeep(t, ix, s.queries, 150, 10)
		t.Logf("data=%s n=%d dim=%d queries=%d epsilon=default k=150 recall@10=%.3f recall@150=%.3f rescored=%.0f", kind, s.n, s.dim, len(s.queries), rec10, rec150, rescored)
		ix.Close()
		runtime.GC()
	}
}
