package report

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// WarnLogger is the logger of the commands a person runs (index, search,
// check...): the library's warnings and errors as lines of text, such as
//
//	situate: warning: repaired the indexes to match the store (bm25: added 12, re-indexed 0, removed 0; journal: 0)
//
// instead of slog's key=value records (time=... level=WARN msg=...), which
// read as machine output among a command's own lines. serve and mcp, which
// run as services, keep structured logs.
func WarnLogger(w io.Writer) *slog.Logger {
	return slog.New(&warnHandler{w: w, mu: new(sync.Mutex)})
}

type warnHandler struct {
	w      io.Writer
	mu     *sync.Mutex
	attrs  []slog.Attr
	prefix string // the open groups, "a.b."
}

func (h *warnHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *warnHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("situate: ")
	if r.Level >= slog.LevelError {
		b.WriteString("error: ")
	} else {
		b.WriteString("warning: ")
	}
	b.WriteString(Line(r.Message))
	var parts []string
	for _, a := range h.attrs { // their keys carry the groups open then
		parts = appendAttr(parts, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		parts = appendAttr(parts, h.prefix, a)
		return true
	})
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, "; ") + ")")
	}
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// appendAttr appends "key: value" for a (groups flattened into dotted
// keys), with control characters escaped.
func appendAttr(parts []string, prefix string, a slog.Attr) []string {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return parts
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			parts = appendAttr(parts, p, g)
		}
		return parts
	}
	return append(parts, Line(fmt.Sprintf("%s%s: %v", prefix, a.Key, a.Value.Any())))
}

func (h *warnHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	for _, a := range attrs {
		c.attrs = append(c.attrs[:len(c.attrs):len(c.attrs)], slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
	}
	return &c
}

func (h *warnHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix += name + "."
	return &c
}
