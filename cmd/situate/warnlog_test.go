package main

import (
	"bytes"
	"log/slog"
	"testing"
)

// TestWarnLogger: warnings and errors as one line each, attributes (groups
// dotted, WithAttrs and WithGroup kept) in parentheses, control characters
// escaped, and nothing below a warning.
func TestWarnLogger(t *testing.T) {
	var b bytes.Buffer
	log := warnLogger(&b)
	log.Info("not shown", "k", 1)
	log.Warn("index damaged, rebuilding it", "index", "/s/bm25", "err", "segment\x1b[2J missing")
	log.With("arm", "bm25").WithGroup("g").Error("failed", "n", 3, slog.Group("sub", "x", "y"))
	want := "situate: warning: index damaged, rebuilding it (index: /s/bm25; err: segment\\x1b[2J missing)\n" +
		"situate: error: failed (arm: bm25; g.n: 3; g.sub.x: y)\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
