// Command serveload measures situate serve under load on loopback: it
// generates a corpus, then runs concurrent searchers and a writer against a
// running server, checking that every upsert is visible to searches once
// its job is done. The recorded runs and their commands are in
// bench/serve-load-*.txt; scripts/serve-load.sh drives a whole run (with
// wrk beside this harness).
//
// It imports nothing from situate: it speaks the HTTP API as any client.
//
//	serveload gen -docs 20000 -chunks 5 > corpus.jsonl
//	serveload run -url http://127.0.0.1:18099 -key sk_... -clients 50 -duration 60s
//	serveload write -url ... -key ... -duration 60s   (the writer alone, beside wrk)
//	serveload queries -n 2000 > queries.txt            (wrk's queries, see search.lua)
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// vocabulary is a fixed synthetic vocabulary whose words appear with a
// Zipf distribution, as words in real text do.
func vocabulary(n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	syll := strings.Fields("ka to ri ne mo sa lu pe vi da go ha ze bo ny fe ru li ma so")
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: serveload gen|run|write [flags]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "gen":
		gen(os.Args[2:])
	case "queries":
		queries(os.Args[2:])
	case "run", "write":
		run(os.Args[1], os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, "usage: serveload gen|run|write [flags]")
		os.Exit(2)
	}
}

// queries prints search queries drawn as run draws them, one per line, for
// wrk's script.
func queries(args []string) {
	fs := flag.NewFlagSet("queries", flag.ExitOnError)
	n := fs.Int("n", 2000, "queries")
	fs.Parse(args)
	vocab := vocabulary(30000)
	rng := rand.New(rand.NewPCG(9, 10))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	for range *n {
		fmt.Println(vocab[zipf.Uint64()] + " " + vocab[zipf.Uint64()] + " " + vocab[rng.IntN(2000)])
	}
}

func gen(args []string) {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	docs := fs.Int("docs", 20000, "documents")
	paras := fs.Int("chunks", 5, "paragraphs per document (one chunk each at --chunk-size 60)")
	words := fs.Int("words", 45, "words per paragraph")
	fs.Parse(args)
	vocab := vocabulary(30000)
	rng := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(5, 6)), 1.1, 2, uint64(len(vocab)-1))
	enc := json.NewEncoder(os.Stdout)
	for d := range *docs {
		var text strings.Builder
		fmt.Fprintf(&text, "# Report %d\n", d)
		for p := range *paras {
			text.WriteString("\n")
			for w := range *words {
				if w > 0 {
					text.WriteByte(' ')
				}
				text.WriteString(vocab[zipf.Uint64()])
			}
			fmt.Fprintf(&text, ". Section %d.\n", p)
		}
		team := []string{"ops", "eng", "sales"}[rng.IntN(3)]
		enc.Encode(map[string]any{"id": fmt.Sprintf("r/%05d.md", d), "text": text.String(), "format": "markdown",
			"metadata": map[string]string{"team": team, "year": fmt.Sprint(2015 + rng.IntN(10))}})
	}
}

type stats struct {
	mu   sync.Mutex
	lat  []time.Duration
	errs map[string]int
}

func (s *stats) add(d time.Duration, err string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != "" {
		s.errs[err]++
		return
	}
	s.lat = append(s.lat, d)
}

func pct(l []time.Duration, p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[min(len(l)-1, int(math.Ceil(p*float64(len(l))))-1)]
}

func run(mode string, args []string) {
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:18099", "server URL")
	key := fs.String("key", "", "API key (none for a local server)")
	clients := fs.Int("clients", 50, "concurrent searchers (run)")
	duration := fs.Duration("duration", 60*time.Second, "how long")
	k := fs.Int("k", 10, "results per search")
	writeEvery := fs.Duration("write-every", 200*time.Millisecond, "pause between the writer's upserts")
	fs.Parse(args)
	tr := &http.Transport{MaxIdleConnsPerHost: *clients + 4, MaxConnsPerHost: *clients + 4}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	do := func(method, path string, body any) (int, []byte, error) {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, *url+path, rd)
		if *key != "" {
			req.Header.Set("Authorization", "Bearer "+*key)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	vocab := vocabulary(30000)
	deadline := time.Now().Add(*duration)
	st := &stats{errs: map[string]int{}}
	var wg sync.WaitGroup
	if mode == "run" {
		for c := range *clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(c), 7))
				zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
				for time.Now().Before(deadline) {
					q := vocab[zipf.Uint64()] + " " + vocab[zipf.Uint64()] + " " + vocab[rng.IntN(2000)]
					start := time.Now()
					code, body, err := do("POST", "/v1/search", map[string]any{"query": q, "k": *k})
					switch {
					case err != nil:
						st.add(0, err.Error())
					case code != 200:
						st.add(0, fmt.Sprintf("status %d: %.100s", code, body))
					default:
						st.add(time.Since(start), "")
					}
				}
			}()
		}
	}
	// The writer: upsert a document with a unique word, wait for its job,
	// then search for the word; it must be found.
	var upserts, visible, invisible atomic.Int64
	var jobLat []time.Duration
	wg.Add(1)
	go func() {
		defer wg.Done()
		runID := time.Now().UnixNano() % 1000000
		for i := 0; time.Now().Before(deadline); i++ {
			marker := fmt.Sprintf("zqmark%dx%dq", runID, i)
			id := fmt.Sprintf("w/%d-%d.md", runID, i)
			text := fmt.Sprintf("# Update %d\n\n%s %s %s %s.", i, marker, vocab[i%500], vocab[(i*7)%500], vocab[(i*13)%500])
			start := time.Now()
			code, body, err := do("PUT", "/v1/documents/"+id, map[string]any{"text": text, "format": "markdown"})
			if err != nil || code != 202 {
				st.add(0, fmt.Sprintf("upsert: %v %d %.100s", err, code, body))
				continue
			}
			upserts.Add(1)
			var ur struct{ Job struct{ ID int64 } }
			json.Unmarshal(body, &ur)
			for {
				code, body, err := do("GET", fmt.Sprintf("/v1/jobs/%d", ur.Job.ID), nil)
				var j struct{ State, Error string }
				if err == nil && code == 200 && json.Unmarshal(body, &j) == nil && (j.State == "done" || j.State == "failed") {
					if j.State == "failed" {
						st.add(0, "job failed: "+j.Error)
					}
					break
				}
				if err != nil || code != 200 {
					st.add(0, fmt.Sprintf("job: %v %d", err, code))
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			jobLat = append(jobLat, time.Since(start))
			code, body, err = do("POST", "/v1/search", map[string]any{"query": marker, "k": 1})
			if err == nil && code == 200 && strings.Contains(string(body), `"doc":"`+id+`"`) {
				visible.Add(1)
			} else {
				invisible.Add(1)
				fmt.Fprintf(os.Stderr, "upsert %s done but not found: %d %.200s\n", id, code, body)
			}
			time.Sleep(*writeEvery)
		}
	}()
	wg.Wait()
	slices.Sort(st.lat)
	slices.Sort(jobLat)
	errs := 0
	for _, n := range st.errs {
		errs += n
	}
	if mode == "run" {
		fmt.Printf("searches: %d in %s (%.0f/s) with %d clients, k=%d\n", len(st.lat), *duration, float64(len(st.lat))/duration.Seconds(), *clients, *k)
		fmt.Printf("search latency: p50 %s  p90 %s  p99 %s  max %s\n", pct(st.lat, .5).Round(10*time.Microsecond),
			pct(st.lat, .9).Round(10*time.Microsecond), pct(st.lat, .99).Round(10*time.Microsecond), pct(st.lat, 1).Round(10*time.Microsecond))
	}
	fmt.Printf("upserts: %d acknowledged, %d visible to search once their job was done, %d not; upsert to job done: p50 %s p99 %s\n",
		upserts.Load(), visible.Load(), invisible.Load(), pct(jobLat, .5).Round(time.Millisecond), pct(jobLat, .99).Round(time.Millisecond))
	fmt.Printf("errors: %d\n", errs)
	for e, n := range st.errs {
		fmt.Printf("  %d× %s\n", n, e)
	}
	if errs > 0 || invisible.Load() > 0 {
		os.Exit(1)
	}
}
