package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/situate/situate"
)

// Counts lists counts by name, sorted by name ("(none)" for the empty
// name); "-" when there are none.
func Counts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := k
		if name == "" {
			name = "(none)"
		}
		parts[i] = fmt.Sprintf("%s %d", name, m[k])
	}
	return strings.Join(parts, ", ")
}

// DirSize adds up the sizes of the files under dir.
func DirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// Index is the last line of an index run: "nothing changed" when the
// run changed nothing and met no problem, otherwise what it did. Skipped
// files are counted apart (Skips).
func Index(res situate.IndexResult, err error, storeDir string) string {
	before := ""
	if res.SkippedBefore > 0 {
		before = fmt.Sprintf(", %d skipped %s unchanged", res.SkippedBefore, Plural(res.SkippedBefore, "file", "files"))
	}
	if err == nil && res.Unchanged > 0 && res.Added+res.Updated+res.Removed+res.Failed+res.Fallbacks == 0 {
		return fmt.Sprintf("nothing changed: %d %s unchanged%s (checked in %s); store %s",
			res.Unchanged, Plural(res.Unchanged, "document", "documents"), before, res.Duration.Round(1e6), storeDir)
	}
	if res.Documents+res.Removed == 0 {
		if err != nil {
			return "" // the error says why
		}
		return "found no documents to index; store " + storeDir
	}
	fallbacks := ""
	if res.Fallbacks > 0 {
		fallbacks = fmt.Sprintf("; %d chunks got the offline context because their calls failed", res.Fallbacks)
	}
	return fmt.Sprintf("indexed %d %s in %s: %d added, %d updated, %d unchanged, %d removed, %d failed%s; %d new chunks%s; store %s",
		res.Documents, Plural(res.Documents, "document", "documents"), res.Duration.Round(1e6), res.Added, res.Updated, res.Unchanged, res.Removed, res.Failed, before, res.Chunks, fallbacks, storeDir)
}

// Queue is the last line of queueing documents for workers: what was
// queued into the store at where and, when counts (jobs by state) are
// known, the queue's state.
func Queue(res situate.IndexResult, where string, counts map[string]int) string {
	queued := res.Added + res.Updated
	s := fmt.Sprintf("queued %d %s for workers in %s: %d new, %d changed, %d unchanged, %d removed, %d failed; store %s",
		queued, Plural(queued, "document", "documents"), res.Duration.Round(1e6), res.Added, res.Updated, res.Unchanged,
		res.Removed, res.Failed, where)
	if counts != nil {
		s += fmt.Sprintf("; jobs: %d queued, %d running, %d done, %d failed (run 'situate worker --store-url ...' to process them)",
			counts[situate.JobQueued], counts[situate.JobRunning], counts[situate.JobDone], counts[situate.JobFailed])
	}
	return s
}

// Latency is a call's latency rounded for a table: to 10 ms from a
// second, to 0.1 ms from a millisecond.
func Latency(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d
}
