// Command searchlib measures searches through the library on a store built
// by "situate index": it opens the store read-only (as "situate search"
// does), runs every query of a file once to warm up, then each query once
// more timed, and prints the open time, the latency percentiles and the
// process CPU time per query.
//
//	go run ./bench/searchlib -store STORE [-queries FILE] [-k 10] [-recipe situate|lucene] [-cpuprofile FILE]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

func main() {
	store := flag.String("store", "", "store directory")
	queries := flag.String("queries", "", "queries, one per line (default: stdin)")
	k := flag.Int("k", 10, "results per query")
	recipe := flag.String("recipe", "situate", "situate or lucene")
	rounds := flag.Int("rounds", 1, "timed passes over the queries")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed passes")
	flag.Parse()
	if err := run(*store, *queries, *k, *recipe, *rounds, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "searchlib:", err)
		os.Exit(1)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func run(dir, queryFile string, k int, recipe string, rounds int, cpuprofile string) error {
	ctx := context.Background()
	in := os.Stdin
	if queryFile != "" {
		f, err := os.Open(queryFile)
		if err != nil {
			return err
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
		return fmt.Errorf("no queries")
	}
	t0 := time.Now()
	st, err := sqlite.OpenWith(ctx, filepath.Join(dir, "situate.db"), sqlite.Options{SkipOpenCheck: true})
	if err != nil {
		return err
	}
	defer st.Close()
	o := situate.DefaultOptions()
	switch recipe {
	case "situate":
	case "lucene":
		o.CodeArmWeight, o.DocumentWeight, o.PairArmWeight, o.CompoundWeight = 0, 0, 0, 0
	default:
		return fmt.Errorf("-recipe %q: must be situate or lucene", recipe)
	}
	o.ReadOnly = true
	eng, err := situate.Open(ctx, dir, st, o)
	if err != nil {
		return err
	}
	defer eng.Close()
	open := time.Since(t0)
	search := func(q string) (time.Duration, error) {
		t := time.Now()
		_, err := eng.Search(ctx, situate.Query{Text: q, K: k})
		return time.Since(t), err
	}
	for _, q := range qs {
		if _, err := search(q); err != nil {
			return err
		}
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
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
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	la, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("store %s, recipe %s, k %d: open %v; %d searches: p50 %v p90 %v p99 %v max %v; CPU %v per search (wall %v); load average %s\n",
		dir, recipe, k, open.Round(time.Millisecond), len(lat), pct(0.5).Round(10*time.Microsecond), pct(0.9).Round(10*time.Microsecond),
		pct(0.99).Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond),
		(cpu / time.Duration(len(lat))).Round(10*time.Microsecond), (wall / time.Duration(len(lat))).Round(10*time.Microsecond),
		strings.Join(strings.Fields(string(la))[:3], " "))
	return nil
}
