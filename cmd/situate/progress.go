package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress draws a bar with counts and ETA on a terminal and nothing
// elsewhere, so logs and pipes stay clean.
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(w io.Writer, total int, what string, quiet bool) *progress {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) || total == 0 {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) add(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

func (p *progress) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
