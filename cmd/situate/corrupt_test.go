package main

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/situate/situate/provider/voyage/voyagetest"
)

// TestDamagedStore damages each kind of file in a store — the database
// (a 4 KB page overwritten mid-file, truncated, deleted), a BM25 segment
// and manifest, a vector segment and manifest (byte flipped, truncated,
// deleted) — and runs every command on it through the built binary. Each
// command either fails with a message naming the damaged file, or
// succeeds with the same results as the undamaged store (having repaired
// it, and saying so, when it touched the damage); none returns other
// results. "situate check" names the file and exits 1; "check --repair"
// restores the indexes, and drops the documents whose database rows are
// damaged so that the next index reads them again (damage to SQLite's own
// pages it cannot repair: it says the database must be restored or
// rebuilt).
func TestDamagedStore(t *testing.T) {
	n := 40
	dir := t.TempDir()
	emb := voyagetest.NewServer(voyagetest.Config{APIKey: "vk"})
	defer emb.Close()
	p := proc{bin: situateBin(t, dir), env: []string{"VOYAGE_API_KEY=vk"}}
	embed := []string{"--embed", "voyage:voyage-3.5", "--embed-base-url", emb.URL}
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	writeCorpus(t, corpus, n)
	pristine := filepath.Join(dir, "pristine")
	p.mustRun(t, append(append([]string{"index", "--store", pristine}, embed...), corpus)...)
	work := filepath.Join(dir, "store")

	queries := []string{"Entity0007 Works revenue", "lamp keeper tower winter", "observatory telescope"}
	reset := func() {
		os.RemoveAll(work)
		copyTree(t, pristine, work)
	}
	type cmdSpec struct {
		name string
		args []string
	}
	var reads []cmdSpec
	for _, q := range queries {
		reads = append(reads, cmdSpec{"search " + q, append(append([]string{"search", "--store", work, "--json", "-k", "10"}, embed...), q)})
	}
	reads = append(reads,
		cmdSpec{"status", []string{"status", "--store", work}},
		cmdSpec{"show", []string{"show", "--store", work, "doc0005.md"}})
	normalize := func(out string) string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "store ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	reset()
	want := map[string]string{}
	for _, c := range reads {
		want[c.name] = normalize(p.mustRun(t, c.args...))
	}

	largest := func(glob string) string {
		m, _ := filepath.Glob(filepath.Join(work, glob))
		sort.Slice(m, func(i, j int) bool {
			a, _ := os.Stat(m[i])
			b, _ := os.Stat(m[j])
			return a.Size() > b.Size()
		})
		if len(m) == 0 {
			t.Fatalf("no file %s", glob)
		}
		return m[0]
	}
	rng := rand.New(rand.NewPCG(3, 4))
	damage := map[string]func(path string){
		"flip": func(path string) {
			b, _ := os.ReadFile(path)
			b[rng.IntN(len(b))] ^= 0x20
			os.WriteFile(path, b, 0o644)
		},
		"page": func(path string) { // a 4 KB page in the middle, random bytes
			b, _ := os.ReadFile(path)
			at := (len(b) / 4096 / 2) * 4096
			for i := at; i < at+4096 && i < len(b); i++ {
				b[i] = byte(rng.Uint32())
			}
			os.WriteFile(path, b, 0o644)
		},
		"truncate": func(path string) {
			b, _ := os.ReadFile(path)
			os.WriteFile(path, b[:len(b)/2], 0o644)
		},
		"delete": func(path string) { os.Remove(path) },
		// One chunk row's bytes changed behind SQLite's back: its pages
		// are sound, its checksum no longer matches.
		"row": func(path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			res, err := db.Exec(`UPDATE chunks SET heading = heading || 'x' WHERE doc_id = 'doc0005.md' AND idx = 0`)
			if n, _ := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("damage a row: %v, %d rows", err, n)
			}
		},
	}
	cases := []struct{ file, how string }{
		{"situate.db", "page"}, {"situate.db", "truncate"}, {"situate.db", "delete"},
		{"situate.db", "flip"}, {"situate.db", "flip"}, {"situate.db", "flip"}, {"situate.db", "flip"}, {"situate.db", "row"},
		{"bm25/seg-*.seg", "flip"}, {"bm25/seg-*.seg", "truncate"}, {"bm25/seg-*.seg", "delete"},
		{"bm25/MANIFEST", "flip"}, {"bm25/MANIFEST", "truncate"}, {"bm25/MANIFEST", "delete"},
		{"bm25-pairs/seg-*.seg", "flip"},
		{"vectors/seg-*.vec", "flip"}, {"vectors/seg-*.vec", "truncate"}, {"vectors/seg-*.vec", "delete"},
		{"vectors/MANIFEST", "flip"}, {"vectors/MANIFEST", "truncate"}, {"vectors/MANIFEST", "delete"},
	}
	if testing.Short() {
		// One damage per kind of file.
		cases = []struct{ file, how string }{{"situate.db", "page"}, {"situate.db", "flip"}, {"situate.db", "row"}, {"bm25/seg-*.seg", "flip"},
			{"bm25/MANIFEST", "truncate"}, {"vectors/seg-*.vec", "flip"}, {"vectors/MANIFEST", "delete"}}
	}
	outcomes := map[string]int{}
	harmlessN := 0
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.file, "/", "_")+"/"+tc.how, func(t *testing.T) {
			reset()
			path := largest(tc.file)
			damage[tc.how](path)
			db := strings.HasPrefix(tc.file, "situate.db")
			// What a failing command must name: the file, or for the
			// database the store it is in.
			names := func(msg string) bool {
				if strings.Contains(msg, path) {
					return true
				}
				if tc.how == "delete" && strings.HasSuffix(path, "MANIFEST") && strings.Contains(msg, filepath.Dir(path)) {
					return true // the arm's directory holds no index
				}
				return db && strings.Contains(msg, work)
			}
			repaired := false
			harmless := true // every command so far gave the undamaged store's results
			judge := func(name, out, errOut string, code int, wantOut string) {
				t.Helper()
				if code != 0 || normalize(out) != wantOut {
					harmless = false
				}
				switch {
				case code != 0 && names(errOut):
					outcomes["failed naming the file"]++
				case code != 0:
					t.Errorf("%s: exit %d without naming %s:\n%s", name, code, path, errOut)
				case normalize(out) != wantOut:
					t.Errorf("%s: exit 0 with results other than the undamaged store's:\n%s\nstderr:\n%s", name, firstDiff(normalize(out), wantOut), errOut)
				case strings.Contains(errOut, "rebuil") || strings.Contains(errOut, "repair"):
					outcomes["repaired and said so"]++
					repaired = true
				default:
					outcomes["same results (damage not on its path)"]++
				}
			}
			for _, c := range reads {
				code, out, errOut := p.run(c.args...)
				judge(c.name, out, errOut, code, want[c.name])
			}
			// check names the file and exits 1 (0 once a command repaired
			// the damage).
			code, out, errOut := p.run("check", "--store", work)
			if !(code == 1 && names(out+errOut)) && !(code == 0 && (repaired || harmless)) {
				t.Errorf("check: exit %d, want 1 naming %s:\n%s\n%s", code, path, out, errOut)
			}
			if harmless && !repaired {
				harmlessN++
			}
			// index either fails naming the file or leaves a sound store.
			code, out, errOut = p.run(append(append([]string{"index", "--store", work}, embed...), corpus)...)
			switch {
			case code != 0:
				if !names(errOut) {
					t.Errorf("index: exit %d without naming %s:\n%s", code, path, errOut)
				}
				outcomes["index failed naming the file"]++
			default:
				if code, out, errOut := p.run("check", "--store", work); code != 0 {
					t.Errorf("index exited 0 but left a store that fails check:\n%s\n%s", out, errOut)
				}
				outcomes["index repaired"]++
			}
			// check --repair: indexes come back; a damaged database does not.
			code, out, errOut = p.run(append([]string{"check", "--store", work, "--repair"}, embed...)...)
			if tc.how == "row" && code != 0 {
				t.Errorf("check --repair: exit %d on damaged rows, want their documents dropped:\n%s\n%s", code, out, errOut)
			}
			if db && code == 0 && tc.how != "delete" && !harmless {
				// Only damaged rows are repaired: their documents are
				// dropped, and the next index reads them again, after which
				// every read gives the undamaged store's results.
				if !strings.Contains(out, "dropped") {
					t.Errorf("check --repair exit 0 on a damaged database without dropping its damaged documents:\n%s", out)
				}
				outcomes["check --repair dropped damaged documents"]++
				p.mustRun(t, append(append([]string{"index", "--store", work}, embed...), corpus)...)
				for _, c := range reads {
					if got := normalize(p.mustRun(t, c.args...)); got != want[c.name] {
						t.Errorf("%s after check --repair and index differs:\n%s", c.name, firstDiff(got, want[c.name]))
					}
				}
			}
			if !db {
				if code != 0 {
					t.Fatalf("check --repair: exit %d\n%s\n%s", code, out, errOut)
				}
				for _, c := range reads {
					got := normalize(p.mustRun(t, c.args...))
					if got != want[c.name] {
						t.Errorf("%s after check --repair differs:\n%s", c.name, firstDiff(got, want[c.name]))
					}
				}
			}
		})
	}
	t.Logf("%d damaged stores (%d without effect: the damage was on no path, as a flip in unused bytes); outcomes: %v", len(cases), harmlessN, outcomes)
	_ = fmt.Sprint
}
