package main

import (
	"io"
	"log/slog"

	"github.com/situate/situate/report"
)

// warnLogger is the logger of the commands a person runs: the library's
// warnings and errors as lines of text (report.WarnLogger).
func warnLogger(w io.Writer) *slog.Logger { return report.WarnLogger(w) }
