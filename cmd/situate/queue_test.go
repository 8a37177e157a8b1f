package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/postgres"
)

// `situate index --queue` stores files as documents with jobs in a shared
// PostgreSQL store and contextualizes nothing; a `situate worker` process
// runs the jobs. The store it leaves equals the one a direct `situate index
// --store-url` writes from the same files, a second queue run queues
// nothing, and a run after files were changed, added and removed (with
// --prune) queues exactly those and again ends equal to a direct run.
func TestIndexQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and a worker process")
	}
	pg := startPostgres(t)
	ctx := context.Background()
	queued, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	copyTree(t, filepath.Join(repoRoot(t), "examples", "corpus"), docs)

	// Wrong uses say what is wrong.
	if code, _, errOut := run(t, dir, "index", "--queue", "--store", "s", docs); code != exitUsage || !strings.Contains(errOut, "--queue needs --store-url") {
		t.Errorf("--queue without --store-url: exit %d %s", code, errOut)
	}
	if code, _, errOut := run(t, dir, "index", "--tenant", "a", "--store", "s", "--store-url", queued, docs); code != exitUsage || !strings.Contains(errOut, "--tenant works with --queue only") {
		t.Errorf("--tenant without --queue: exit %d %s", code, errOut)
	}

	_, errOut := mustRun(t, dir, "index", "--queue", "--store", "s", "--store-url", queued, docs)
	m := regexp.MustCompile(`queued (\d+) documents for workers .*: (\d+) new, 0 changed, 0 unchanged, 0 removed, 0 failed`).FindStringSubmatch(errOut)
	if m == nil || m[1] != m[2] || m[1] == "0" {
		t.Fatalf("first queue run:\n%s", errOut)
	}
	total := atoiT(t, m[1])
	s, err := postgres.Open(ctx, queued)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if counts, err := s.JobCounts(ctx); err != nil || counts[situate.JobQueued] != total {
		t.Fatalf("jobs after queueing %d documents: %v %v", total, counts, err)
	}
	if d, err := s.Documents(ctx); err != nil || len(d) != 0 {
		t.Fatalf("queueing indexed %d documents itself (%v)", len(d), err)
	}

	bin := situateBin(t, "")
	w := startWorker(t, bin, t.TempDir(), []string{"worker", "--store-url", queued, "--poll", "100ms", "--log-level", "warn"})
	if counts := waitJobs(t, s, total, 2*time.Minute, nil); counts[situate.JobDone] != total {
		t.Fatalf("jobs: %v\nworker:\n%s", counts, w.stderr)
	}
	mustRun(t, dir, "index", "--store", "d", "--store-url", direct, docs)
	compare := func(when string) {
		t.Helper()
		got, n := storeDump(t, queued)
		want, wn := storeDump(t, direct)
		if got != want || n == 0 {
			t.Errorf("%s: the queued store (%d chunks) differs from a direct index (%d chunks):\n--- queued\n%s\n--- direct\n%s", when, n, wn, got, want)
		}
	}
	compare("first run")
	res := search(t, dir, "q", 3, "Halden Ironworks third quarter revenue", "--store-url", queued)
	if len(res.Results) == 0 || res.Results[0].Doc != "en/halden-ironworks.md" {
		t.Errorf("search over the worker's store: %+v", res.Results)
	}

	// Nothing changed: nothing queued.
	_, errOut = mustRun(t, dir, "index", "--queue", "--store", "s", "--store-url", queued, docs)
	if !strings.Contains(errOut, "queued 0 documents") || !strings.Contains(errOut, itoa(total)+" unchanged") {
		t.Errorf("second queue run:\n%s", errOut)
	}
	if counts, _ := s.JobCounts(ctx); counts[situate.JobDone] != total || counts[situate.JobQueued] != 0 {
		t.Errorf("the second run queued jobs: %v", counts)
	}

	// One changed, one added, one removed.
	os.WriteFile(filepath.Join(docs, "en", "halden-ironworks.md"), []byte("# Halden Ironworks\n\nThe foundry closed in the fourth quarter; the quaymaster sold the cranes.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "en", "new-pier.md"), []byte("# New pier\n\nA new pier opens at the harbour mouth in spring.\n"), 0o644)
	os.Remove(filepath.Join(docs, "en", "brightwater-logistics.md"))
	_, errOut = mustRun(t, dir, "index", "--queue", "--prune", "--store", "s", "--store-url", queued, docs)
	if !strings.Contains(errOut, "queued 2 documents") || !strings.Contains(errOut, "1 new, 1 changed") || !strings.Contains(errOut, "1 removed") {
		t.Errorf("queue run after changes:\n%s", errOut)
	}
	waitJobs(t, s, total+2, 2*time.Minute, nil)
	mustRun(t, dir, "index", "--prune", "--store", "d", "--store-url", direct, docs)
	compare("after changes")
	res = search(t, dir, "q", 3, "quaymaster cranes", "--store-url", queued)
	if len(res.Results) == 0 || res.Results[0].Doc != "en/halden-ironworks.md" {
		t.Errorf("search for the changed document: %+v", res.Results)
	}
	w.stop(t)
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = 10*n + int(r-'0')
	}
	return n
}
