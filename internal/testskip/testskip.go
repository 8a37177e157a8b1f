package testskip

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	mu      sync.Mutex
	reasons = map[string]int{}
)

// Skipf records the reason and skips the test with it. Reasons are counted
// by their text: keep variable detail (paths, errors) out of the format's
// first line when many tests share one cause.
func Skipf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	key, _, _ := strings.Cut(msg, "\n")
	mu.Lock()
	reasons[key]++
	mu.Unlock()
	tb.Skip(msg)
}

// Run runs the tests and prints the summary of what was skipped; it
// returns m.Run's code, for a TestMain that does more.
func Run(m *testing.M) int {
	code := m.Run()
	Summary(os.Stdout)
	return code
}

// Main is a TestMain: it runs the tests, prints the summary and exits.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Summary writes "testskip: N tests skipped: reason (count); ..." with
// the most frequent reason first, or nothing when no test skipped through
// Skipf.
func Summary(w io.Writer) {
	mu.Lock()
	defer mu.Unlock()
	if len(reasons) == 0 {
		return
	}
	keys := make([]string, 0, len(reasons))
	total := 0
	for k, n := range reasons {
		keys = append(keys, k)
		total += n
	}
	slices.SortFunc(keys, func(a, b string) int {
		if reasons[a] != reasons[b] {
			return reasons[b] - reasons[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d)", k, reasons[k])
	}
	noun := "tests"
	if total == 1 {
		noun = "test"
	}
	fmt.Fprintf(w, "testskip: %d %s skipped: %s\n", total, noun, strings.Join(parts, "; "))
}
