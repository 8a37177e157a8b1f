package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/report"
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
	p.bar.Describe(report.Progress(pr))
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

// skipSummary is one line counting this run's skipped files by reason
// (report.Skips); "" when none was skipped.
func (p *indexProgress) skipSummary() string {
	hint := ""
	if !p.verbose {
		hint = " (--verbose lists them)"
	}
	return report.Skips(p.skips, hint)
}
