package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text returns document text (a chunk, a context, a title or a heading)
// as human output may print it: control characters other than newline and
// tab (ESC, BEL, backspace, carriage return, C1 controls, DEL), the
// bidirectional overrides and isolates, and invalid UTF-8 bytes are shown as
// Go escapes (\x1b, \u202e) instead of being written raw. A document is
// input nobody vetted: written raw, "\x1b]0;...\a" retitles the terminal,
// "\x1b[2J" clears it, "\r" overprints the line before it, and OSC 52 sets
// the clipboard on many terminals. JSON output needs no such treatment.
func Text(s string) string {
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

// Line is Text for text shown on one line: newlines and tabs are
// escaped too.
func Line(s string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(Text(s))
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

// Bytes is a size in bytes for people: 512 B, 1.5 KiB, 3.2 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
