package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/provider/voyage/voyagetest"
	"github.com/situate/situate/vector"
)

// armState is every arm's documents and chunk count, as the arms' own
// files say (read-only opens, no repair).
func armState(t *testing.T, store string) string {
	t.Helper()
	var b strings.Builder
	for _, arm := range []string{"bm25", "bm25-code", "bm25-pairs", "bm25-defs"} {
		ix, err := bm25.OpenReadOnly(filepath.Join(store, arm), bm25.Options{})
		if err != nil {
			t.Fatalf("arm %s: %v", arm, err)
		}
		fmt.Fprintf(&b, "%s %d chunks: %s\n", arm, ix.Stats().Docs, strings.Join(ix.Groups(), " "))
		ix.Close()
	}
	if _, err := os.Stat(filepath.Join(store, "vectors")); err == nil {
		ix, err := vector.OpenReadOnly(filepath.Join(store, "vectors"), vector.Options{})
		if err != nil {
			t.Fatalf("vectors: %v", err)
		}
		g, err := ix.Groups()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "vectors %d: %s\n", ix.Len(), strings.Join(g, " "))
		ix.Close()
	}
	return b.String()
}

// storeState is what "equal to a clean build" compares: documents, chunks
// and contexts in the database, every arm's documents, and the results of
// a fixed query set.
func storeState(t *testing.T, p proc, store string, searchArgs []string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(dumpStore(t, store))
	b.WriteString(armState(t, store))
	for _, q := range []string{"Entity0007 Works revenue", "lamp keeper tower winter", "railway freight foundry 1811"} {
		args := append([]string{"search", "--store", store, "--json", "-k", "10"}, searchArgs...)
		b.WriteString(p.mustRun(t, append(args, q)...))
	}
	return b.String()
}

// editCorpus rewrites every fifth document, adds new ones and removes
// some, so a re-index updates, adds and (with --prune) removes.
func editCorpus(t *testing.T, dir string, n int) {
	t.Helper()
	for i := 0; i < n; i += 5 {
		p := filepath.Join(dir, fmt.Sprintf("doc%04d.md", i))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, append(b, fmt.Sprintf("\n## Update\n\nEntity%04d Works added a railway freight depot in 1811.\n", i)...), 0o644)
	}
	for i := n; i < n+10; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%04d.md", i)), []byte(fmt.Sprintf("# Entity%04d Works\n\nEntity%04d Works runs a lamp keeper school by the tower.\n", i, i)), 0o644)
	}
	for i := 1; i < n; i += 9 {
		os.Remove(filepath.Join(dir, fmt.Sprintf("doc%04d.md", i)))
	}
}

// TestKillAnywhere SIGKILLs situate at random moments of index,
// re-index with edits, index --prune, rm and contexts --regenerate (with
// embeddings, so the vector arm is written too), reruns the interrupted
// command, and checks that the store equals a clean build of the same
// state: documents, chunks, contexts, every arm's documents and the
// results of a fixed query set. A search right after each kill must
// succeed: readers never fail on a store a writer left half-way.
func TestKillAnywhere(t *testing.T) {
	kills := 50
	n := 120
	if testing.Short() {
		kills, n = 5, 40
	}
	dir := t.TempDir()
	emb := voyagetest.NewServer(voyagetest.Config{APIKey: "vk"})
	defer emb.Close()
	var flaky atomic.Bool // the LLM answers nothing for Entity0003 while set
	llm := anthropictest.NewServer(anthropictest.Config{APIKey: "test-key",
		Generate: func(model string, blocks []string) string {
			last := blocks[len(blocks)-1]
			if flaky.Load() && strings.Contains(blocks[0], "Entity0003") {
				return ""
			}
			words := strings.Fields(last[strings.Index(last, "<chunk>")+len("<chunk>"):])
			return "Context for: " + strings.Join(words[:min(8, len(words))], " ")
		}})
	defer llm.Close()
	p := proc{bin: situateBin(t, dir), env: []string{"VOYAGE_API_KEY=vk", "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + llm.URL}}
	embed := []string{"--embed", "voyage:voyage-3.5", "--embed-base-url", emb.URL}

	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	writeCorpus(t, corpus, n)
	corpus2 := filepath.Join(dir, "corpus2")
	copyTree(t, corpus, corpus2)
	editCorpus(t, corpus2, n)
	var rmIDs []string
	for i := 2; i < n; i += 7 {
		if i%9 != 1 { // not pruned
			rmIDs = append(rmIDs, fmt.Sprintf("doc%04d.md", i))
		}
	}
	llmCorpus := filepath.Join(dir, "llmcorpus")
	os.MkdirAll(llmCorpus, 0o755)
	writeCorpus(t, llmCorpus, 6)

	type op struct {
		name   string
		args   []string
		search []string
		okExit func(code int, stderr string) bool
	}
	ok0 := func(code int, _ string) bool { return code == 0 }
	ops := []op{
		{"index", append(append([]string{"index"}, embed...), corpus), embed, ok0},
		{"re-index with edits", append(append([]string{"index"}, embed...), corpus2), embed, ok0},
		{"index --prune", append(append([]string{"index", "--prune"}, embed...), corpus2), embed, ok0},
		{"rm", append([]string{"rm"}, rmIDs...), embed, func(code int, stderr string) bool {
			// A rerun reports the documents the killed run already removed.
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if l != "" && !strings.HasSuffix(l, ": not indexed") && !strings.Contains(l, "repaired") {
					return false
				}
			}
			return code == 0 || code == 1
		}},
		{"contexts --regenerate", []string{"contexts", "--flagged", "--sample", "0", "--regenerate", "--llm", testModel}, nil, ok0},
	}
	// Pre-states: the clean store before each op.
	pre := make([]string, len(ops))
	ref := make([]string, len(ops))
	dur := make([]time.Duration, len(ops))
	build := filepath.Join(dir, "build")
	for i, o := range ops {
		if o.name == "contexts --regenerate" {
			// Its own store: LLM contexts, one document's flagged.
			build = filepath.Join(dir, "llmbuild")
			flaky.Store(true)
			p.mustRun(t, "index", "--store", build, "--llm", testModel, "--allow-fallback", llmCorpus)
			flaky.Store(false)
			out := p.mustRun(t, "contexts", "--store", build, "--flagged", "--sample", "0", "--json")
			if !strings.Contains(out, "Entity0003") {
				t.Fatalf("no flagged context to regenerate:\n%s", out)
			}
		}
		pre[i] = filepath.Join(dir, fmt.Sprintf("pre%d", i))
		if _, err := os.Stat(build); err == nil {
			copyTree(t, build, pre[i])
		}
		start := time.Now()
		code, out, errOut := p.run(append([]string{o.args[0], "--store", build}, o.args[1:]...)...)
		dur[i] = time.Since(start)
		if !o.okExit(code, errOut) || code != 0 {
			t.Fatalf("clean %s: exit %d\n%s\n%s", o.name, code, out, errOut)
		}
		ref[i] = storeState(t, p, build, o.search)
		t.Logf("clean %s: %v", o.name, dur[i].Round(time.Millisecond))
	}

	rng := rand.New(rand.NewPCG(5, 8))
	killed, finished := 0, 0
	perOp := map[string]int{}
	// Kill until kills runs died midway (a run may finish before its
	// moment comes), within a bounded number of attempts.
	for k := 0; killed < kills && k < 2*kills; k++ {
		i := k % len(ops)
		o := ops[i]
		store := filepath.Join(dir, fmt.Sprintf("kill%d", k))
		if _, err := os.Stat(pre[i]); err == nil {
			copyTree(t, pre[i], store)
		}
		args := append([]string{o.args[0], "--store", store}, o.args[1:]...)
		cmd := p.command(args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		at := time.Duration(rng.Int64N(int64(dur[i]) + 1))
		time.Sleep(at)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killed++
			perOp[o.name]++
		} else {
			// It finished first: aim earlier next time.
			finished++
			dur[i] = dur[i] * 2 / 3
		}
		// A reader right after the kill: it must not fail.
		if _, err := os.Stat(filepath.Join(store, storeFile)); err == nil {
			sargs := append([]string{"search", "--store", store, "-k", "3"}, o.search...)
			if code, out, errOut := p.run(append(sargs, "harbour ledger")...); code != 0 {
				t.Errorf("kill %d (%s at %v): search after the kill: exit %d\n%s\n%s", k, o.name, at, code, out, errOut)
			}
		}
		code, out, errOut := p.run(args...)
		if !o.okExit(code, errOut) {
			t.Fatalf("kill %d (%s at %v): rerun: exit %d\n%s\n%s", k, o.name, at, code, out, errOut)
		}
		if got := storeState(t, p, store, o.search); got != ref[i] {
			t.Fatalf("kill %d (%s at %v): store after the rerun differs from a clean build:\n%s", k, o.name, at, firstDiff(got, ref[i]))
		}
		os.RemoveAll(store)
	}
	t.Logf("%d SIGKILLs (%v), %d runs finished before their kill; every store equal to a clean build after the rerun", killed, perOp, finished)
	if killed < kills {
		t.Errorf("only %d runs of %d attempts were killed midway, want %d", killed, killed+finished, kills)
	}
}

var _ = slices.Contains[[]string]
var _ = context.Background
