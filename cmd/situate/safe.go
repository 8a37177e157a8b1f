package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
)

// termText returns document text (a chunk, a context, a title or a heading)
// as human output may print it: control characters other than newline and
// tab (ESC, BEL, backspace, carriage return, C1 controls, DEL), the
// bidirectional overrides and isolates, and invalid UTF-8 bytes are shown as
// Go escapes (\x1b, \u202e) instead of being written raw. A document is
// input nobody vetted: written raw, "\x1b]0;...\a" retitles the terminal,
// "\x1b[2J" clears it, "\r" overprints the line before it, and OSC 52 sets
// the clipboard on many terminals. JSON output needs no such treatment.
func termText(s string) string {
	if !needsTermEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

// termLine is termText for text shown on one line: newlines and tabs are
// escaped too.
func termLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(termText(s))
}

func needsTermEscape(s string) bool {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 || unsafeRune(r) {
			return true
		}
		i += w
	}
	return false
}

// unsafeRune: C0 controls but newline and tab, DEL, C1 controls, and the
// bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069), which reorder what follows them on the line.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\n' && r != '\t'
	case r >= 0x7f && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// documentArg resolves a DOC argument: the id as given, or, when no
// document has that id and the argument is quoted as ls, search and show
// print an id with control characters (ingest.QuoteName), the unquoted id.
func documentArg(eng interface {
	Document(id string) (situate.DocumentRecord, error)
}, arg string) (situate.DocumentRecord, error) {
	rec, err := eng.Document(arg)
	if errors.Is(err, situate.ErrNotFound) {
		if id := ingest.UnquoteName(arg); id != arg {
			if rec2, err2 := eng.Document(id); err2 == nil {
				return rec2, nil
			}
		}
	}
	return rec, err
}
