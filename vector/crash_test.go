package vector

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The crash test re-executes the test binary as a child that commits rounds
// of Replace (and, every few rounds, Compact) to an index and prints
// "committed N" after each; the parent SIGKILLs it at a random moment and
// reopens the directory, which must hold exactly the state after the last
// printed round or the one after it (committed but killed before printing).

const (
	crashEnv    = "SITUATE_VECTOR_CRASH_DIR"
	crashDim    = 256
	crashGroups = 13
	crashPer    = 150
)

var crashOpts = Options{Dim: crashDim, QuantizeAbove: -1, MaxSegments: 4}

// crashRound is what round n writes: group n % crashGroups, crashPer items.
func crashRound(n int) (string, []Item) {
	g := fmt.Sprintf("g%d", n%crashGroups)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	items := make([]Item, crashPer)
	for j := range items {
		items[j] = Item{ID: fmt.Sprintf("%s@%d#%d", g, n, j), Vector: gaussian(r, crashDim)}
	}
	return g, items
}

func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestCrashRecovery")
	}
	ix, err := Open(dir, crashOpts)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	for n := 0; ; n++ {
		g, items := crashRound(n)
		if err := ix.Replace(g, items); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if n%5 == 4 {
			if err := ix.Compact(); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
		os.Stdout.WriteString("committed " + strconv.Itoa(n) + "\n")
	}
}

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(42, 42))
	for trial := range 8 {
		dir := t.TempDir()
		cmd := exec.Command(exe, "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		target := 3 + r.IntN(25)
		last := -1
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "error") {
				t.Fatalf("child: %s", line)
			}
			if n, ok := strings.CutPrefix(line, "committed "); ok {
				last, _ = strconv.Atoi(n)
				if last >= target {
					break
				}
			}
		}
		// Kill somewhere inside the next round (or the compaction).
		time.Sleep(time.Duration(r.IntN(4000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		for sc.Scan() { // lines written before the kill
			if n, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
				last, _ = strconv.Atoi(n)
			}
		}
		cmd.Wait()
		if last < 0 {
			t.Fatalf("trial %d: child committed nothing", trial)
		}

		orphans := crashOrphans(dir)
		ix, err := Open(dir, Options{QuantizeAbove: -1})
		if err != nil {
			t.Fatalf("trial %d: reopen after kill: %v", trial, err)
		}
		// Which round does the index hold? last, or last+1 if that
		// commit finished before the kill.
		state := func(upto int) map[string]int { // group -> round
			m := map[string]int{}
			for n := 0; n <= upto; n++ {
				g, _ := crashRound(n)
				m[g] = n
			}
			return m
		}
		got := map[string]map[int]int{} // group -> round -> count
		q := gaussian(rand.New(rand.NewPCG(1, 1)), crashDim)
		all, err := ix.Search(q, 1_000_000, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range all {
			round, _ := strconv.Atoi(res.ID[strings.Index(res.ID, "@")+1 : strings.Index(res.ID, "#")])
			if got[res.Group] == nil {
				got[res.Group] = map[int]int{}
			}
			got[res.Group][round]++
		}
		matches := func(want map[string]int) bool {
			if len(got) != len(want) {
				return false
			}
			for g, round := range want {
				if len(got[g]) != 1 || got[g][round] != crashPer {
					return false
				}
			}
			return true
		}
		which := "none"
		if matches(state(last)) {
			which = "last printed"
		} else if matches(state(last + 1)) {
			which = "next (committed, not printed)"
		} else {
			t.Fatalf("trial %d: killed after round %d: index holds %v, neither round %d nor %d state", trial, last, got, last, last+1)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
		if len(files) != 0 {
			t.Errorf("trial %d: temporaries left after reopen: %v", trial, files)
		}
		segs, _ := filepath.Glob(filepath.Join(dir, "seg-*"))
		t.Logf("trial %d: killed after round %d: %d uncommitted files before reopen; reopened with %s state, %d vectors, %d segment files", trial, last, orphans, which, ix.Len(), len(segs))
		ix.Close()
	}
}

// crashOrphans counts files a killed writer left that the manifest does
// not reference (temporaries, unreferenced segments): non-zero means the
// kill landed mid-commit.
func crashOrphans(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, manifestName))
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") || (strings.HasPrefix(name, "seg-") && !strings.Contains(string(b), `"`+name+`"`)) {
			n++
		}
	}
	return n
}
