// Command searchlib measures searches through the library on a store built
// by "situate index": it opens the store read-only (as "situate search"
// does), runs every query of a file once to warm up, then each query once
// more timed, and prints the open time, the latency percentiles and the
// process CPU time per query.
//
// With -http it measures what "situate serve" does for a search instead:
// the store is opened for writing (the documents' records in memory, as
// the server holds them) and every query is a POST /v1/search through the
// HTTP API's handler, in process (routing, JSON, the search queue; no
// sockets), from -clients concurrent callers. The CPU time per search is
// then the server's share of a search without the network.
//
//	go run ./bench/searchlib -store STORE [-queries FILE] [-k 10] [-recipe situate|lucene] [-rounds N] [-cpuprofile FILE]
//	go run ./bench/searchlib -http -store STORE -chunk-size 150 -chunk-overlap 0 [-clients 50] ...
//
// Without -http it also prints a SHA-256 digest of the warm-up pass's
// results (ids and scores, in order): an optimization of the search that
// must not change its results keeps the digest.
//
// -http with -recipe lucene rebuilds a store indexed with the default
// recipe for the one-arm layout (as situate serve --recipe lucene does): use
// a copy.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

func main() {
	store := flag.String("store", "", "store directory")
	queries := flag.String("queries", "", "queries, one per line (default: stdin)")
	k := flag.Int("k", 10, "results per query")
	recipe := flag.String("recipe", "situate", "situate or lucene")
	rounds := flag.Int("rounds", 1, "timed passes over the queries")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed passes")
	flag.StringVar(&memprofile, "memprofile", "", "with -http: write heap profiles before (FILE.base) and after (FILE) the timed passes; go tool pprof -sample_index=alloc_space -diff_base FILE.base FILE shows what the passes allocated")
	useHTTP := flag.Bool("http", false, "search through the HTTP API's handler with a writer engine, as situate serve does")
	clients := flag.Int("clients", 50, "with -http: concurrent callers")
	chunkSize := flag.Int("chunk-size", situate.DefaultOptions().ChunkSize, "with -http: the chunk size the store was indexed with")
	chunkOverlap := flag.Int("chunk-overlap", situate.DefaultOptions().ChunkOverlap, "with -http: the chunk overlap the store was indexed with")
	maxSearches := flag.Int("max-searches", 0, "with -http: httpapi.Limits.MaxSearches (0: GOMAXPROCS, -1: no limit)")
	candidates := flag.Int("candidates", situate.DefaultCandidates, "each arm's top N before the recipe combines them")
	flag.Parse()
	o := situate.DefaultOptions()
	var err error
	if o.Recipe, err = situate.RecipeNamed(*recipe); err != nil {
		fmt.Fprintf(os.Stderr, "searchlib: -recipe: %v\n", err)
		os.Exit(2)
	}
	o.Candidates = *candidates
	o.ChunkSize, o.ChunkOverlap = *chunkSize, *chunkOverlap
	qs, err := readQueries(*queries)
	if err == nil {
		if *useHTTP {
			err = runHTTP(*store, qs, *k, *recipe, o, *rounds, *clients, *maxSearches, *cpuprofile)
		} else {
			err = run(*store, qs, *k, *recipe, o, *rounds, *cpuprofile)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "searchlib:", err)
		os.Exit(1)
	}
}

func readQueries(queryFile string) ([]string, error) {
	in := os.Stdin
	if queryFile != "" {
		f, err := os.Open(queryFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	var qs []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if q := strings.TrimSpace(sc.Text()); q != "" {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("no queries")
	}
	return qs, sc.Err()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var memprofile string

// writeHeapProfile writes the heap profile (allocations since the start
// included) to path, if path is not empty.
func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // the in-use figures are those of the last GC
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func report(what string, open time.Duration, lat []time.Duration, cpu, wall time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	la, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%s: open %v; %d searches: p50 %v p90 %v p99 %v max %v; CPU %v per search (wall %v); load average %s\n",
		what, open.Round(time.Millisecond), len(lat), pct(0.5).Round(10*time.Microsecond), pct(0.9).Round(10*time.Microsecond),
		pct(0.99).Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond),
		(cpu / time.Duration(len(lat))).Round(10*time.Microsecond), (wall / time.Duration(len(lat))).Round(10*time.Microsecond),
		strings.Join(strings.Fields(string(la))[:3], " "))
}

func run(dir string, qs []string, k int, recipe string, o situate.Options, rounds int, cpuprofile string) error {
	ctx := context.Background()
	t0 := time.Now()
	st, err := sqlite.OpenWith(ctx, filepath.Join(dir, "situate.db"), sqlite.Options{SkipOpenCheck: true})
	if err != nil {
		return err
	}
	defer st.Close()
	o.OpenMode = situate.OpenReader
	eng, err := situate.Open(ctx, dir, st, o)
	if err != nil {
		return err
	}
	defer eng.Close()
	open := time.Since(t0)
	digest := sha256.New()
	search := func(q string) (time.Duration, error) {
		t := time.Now()
		res, err := eng.Search(ctx, situate.Query{Text: q, K: k})
		d := time.Since(t)
		if digest != nil {
			fmt.Fprintf(digest, "%s\n", q)
			for _, r := range res {
				fmt.Fprintf(digest, "%s %d %x\n", r.DocID, r.Chunk, math.Float64bits(r.Score))
			}
		}
		return d, err
	}
	for _, q := range qs {
		if _, err := search(q); err != nil {
			return err
		}
	}
	fmt.Printf("results digest (sha256 of the ids and scores of %d searches): %x\n", len(qs), digest.Sum(nil))
	digest = nil
	stop, err := startProfile(cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	var lat []time.Duration
	c0, w0 := cpuTime(), time.Now()
	for range rounds {
		for _, q := range qs {
			d, err := search(q)
			if err != nil {
				return err
			}
			lat = append(lat, d)
		}
	}
	cpu, wall := cpuTime()-c0, time.Since(w0)
	report(fmt.Sprintf("store %s, recipe %s, k %d", dir, recipe, k), open, lat, cpu, wall)
	return nil
}

func runHTTP(dir string, qs []string, k int, recipe string, o situate.Options, rounds, clients, maxSearches int, cpuprofile string) error {
	ctx := context.Background()
	t0 := time.Now()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "situate.db"))
	if err != nil {
		return err
	}
	o.Contextualizer = offline.New(offline.DefaultOptions())
	open := func(ctx context.Context, name string) (*httpapi.Tenant, error) {
		eng, err := situate.Open(ctx, dir, st, o)
		if err != nil {
			return nil, err
		}
		return &httpapi.Tenant{Engine: eng, Jobs: st, Close: func() error { eng.Close(); return st.Close() }}, nil
	}
	srv, err := httpapi.New(ctx, httpapi.Options{OpenTenant: open, Limits: httpapi.Limits{MaxSearches: maxSearches}})
	if err != nil {
		return err
	}
	defer srv.Close()
	h := srv.Handler()
	opened := time.Since(t0)
	search := func(q string) (time.Duration, error) {
		body, _ := json.Marshal(httpapi.SearchRequest{Query: q, K: k})
		req := httptest.NewRequest("POST", "/v1/search", bytes.NewReader(body))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		t := time.Now()
		h.ServeHTTP(w, req)
		d := time.Since(t)
		if w.Code != http.StatusOK {
			return d, fmt.Errorf("search %q: %d %s", q, w.Code, w.Body.String())
		}
		return d, nil
	}
	for _, q := range qs {
		if _, err := search(q); err != nil {
			return err
		}
	}
	if memprofile != "" {
		if err := writeHeapProfile(memprofile + ".base"); err != nil {
			return err
		}
	}
	stop, err := startProfile(cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	var (
		mu   sync.Mutex
		lat  []time.Duration
		errs []error
		next = make(chan string)
		wg   sync.WaitGroup
	)
	c0, w0 := cpuTime(), time.Now()
	for range clients {
		wg.Go(func() {
			for q := range next {
				d, err := search(q)
				mu.Lock()
				lat = append(lat, d)
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		})
	}
	for range rounds {
		for _, q := range qs {
			next <- q
		}
	}
	close(next)
	wg.Wait()
	cpu, wall := cpuTime()-c0, time.Since(w0)
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d searches failed, first: %w", len(errs), len(lat), errs[0])
	}
	if err := writeHeapProfile(memprofile); err != nil {
		return err
	}
	report(fmt.Sprintf("store %s, recipe %s, k %d, through the HTTP handler, %d clients", dir, recipe, k, clients), opened, lat, cpu, wall)
	return nil
}
