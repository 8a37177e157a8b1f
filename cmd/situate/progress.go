package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
)

// indexProgress shows an index run: a bar with documents, calls, fallbacks,
// errors, cache share, spend and ETA on a terminal (nothing elsewhere, so
// logs and pipes stay clean), and, everywhere, each failed document and
// each new kind of provider error once. Skipped files are counted by
// reason for the summary (skipSummary); verbose lists each one as well,
// quiet neither.
type indexProgress struct {
	w              io.Writer
	bar            *progressbar.ProgressBar
	max            int
	quiet, verbose bool
	skips          map[string]int // skipped files by ingest.SkipReason
}

func newIndexProgress(w io.Writer, quiet, verbose bool) *indexProgress {
	p := &indexProgress{w: w, quiet: quiet, verbose: verbose && !quiet, skips: map[string]int{}}
	if f, ok := w.(*os.File); !quiet && ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("situating"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// event is the situate.IndexOptions.Progress callback.
func (p *indexProgress) event(ev situate.IndexEvent) {
	switch ev.Kind {
	case situate.EventSkip:
		p.skips[ingest.SkipReason(ev.Err)]++
		if p.verbose {
			p.line("skip %v", ev.Err)
		}
	case situate.EventDocument:
		if ev.Err != nil {
			p.line("fail %s: %v", ev.DocID, ev.Err)
		}
	case situate.EventProviderError:
		p.line("provider error (%s), first at %s: %v", ev.ErrorKind, ev.DocID, ev.Err)
	}
	if p.bar == nil {
		return
	}
	pr := ev.Progress
	if pr.SourceDone && pr.DocsTotal != p.max && pr.DocsTotal > 0 {
		p.max = pr.DocsTotal
		p.bar.ChangeMax(pr.DocsTotal)
	}
	p.bar.Set(pr.Docs)
	p.bar.Describe(describe(pr))
}

// describe is the text before the bar.
func describe(pr situate.IndexProgress) string {
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

func (p *indexProgress) line(format string, args ...any) {
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *indexProgress) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// skipSummary is one line counting this run's skipped files by reason,
// most frequent first: "skipped 759 files: 512 binary, 200 image, 47
// archive"; "" when none was skipped.
func (p *indexProgress) skipSummary() string {
	n := 0
	reasons := make([]string, 0, len(p.skips))
	for r, c := range p.skips {
		n += c
		reasons = append(reasons, r)
	}
	if n == 0 {
		return ""
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if c := cmp.Compare(p.skips[b], p.skips[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "skipped %d %s: ", n, plural(n, "file", "files"))
	for i, r := range reasons {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", p.skips[r], r)
	}
	if !p.verbose {
		b.WriteString(" (--verbose lists them)")
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
