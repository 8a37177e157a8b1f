package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/situate/situate"
)

// Progress is an index run's progress on one line, as a progress bar
// shows it beside the bar: calls done of all, in flight, the share read
// from the prompt cache, spend, fallbacks, errors and the ETA.
func Progress(pr situate.IndexProgress) string {
	if pr.CallsTotal == 0 {
		return "situating"
	}
	in := pr.InputTokens + pr.CacheReadTokens + pr.CacheWriteTokens
	share := 0.0
	if in > 0 {
		share = 100 * float64(pr.CacheReadTokens) / float64(in)
	}
	errs := 0
	for _, e := range pr.Errors {
		errs += e.Count
	}
	s := fmt.Sprintf("situating · calls %d/%d · %d in flight · %.0f%% cached · $%.4f", pr.Calls, pr.CallsTotal, pr.InFlight, share, pr.CostUSD)
	if pr.Fallbacks > 0 || errs > 0 {
		s += fmt.Sprintf(" · %d fallbacks · %d errors", pr.Fallbacks, errs)
	}
	if pr.ETA > 0 {
		s += " · ETA " + pr.ETA.Round(time.Second).String()
	}
	return s
}

// Skips is one line counting skipped files by reason, most frequent
// first, then hint: "skipped 759 files: 512 binary, 200 image, 47
// archive"; "" when none was skipped.
func Skips(skips map[string]int, hint string) string {
	n := 0
	reasons := make([]string, 0, len(skips))
	for r, c := range skips {
		n += c
		reasons = append(reasons, r)
	}
	if n == 0 {
		return ""
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if c := cmp.Compare(skips[b], skips[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "skipped %d %s: ", n, Plural(n, "file", "files"))
	for i, r := range reasons {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", skips[r], r)
	}
	b.WriteString(hint)
	return b.String()
}

// Plural is one for 1, many otherwise.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
