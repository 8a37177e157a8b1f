package ingest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrInvalidName reports a file or directory name that is not valid UTF-8.
//
// Such names are refused rather than encoded: a document id travels through
// JSON, SQLite text, HTTP and the command line, all UTF-8, where invalid
// bytes become U+FFFD and the id can no longer be named (shown, removed).
// A reversible encoding would either collide with real names (any escape
// syntax is itself a legal file name) or change every id that contains
// the escape character. The error names the file, quoted so that its bytes
// are visible; renaming it (convmv, or mv with the right encoding) fixes
// it.
var ErrInvalidName = errors.New("name is not valid UTF-8 (rename the file)")

// checkName reports name if it is not valid UTF-8.
func checkName(name string) error {
	if utf8.ValidString(name) {
		return nil
	}
	for i := 0; i < len(name); {
		r, w := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && w == 1 {
			return fmt.Errorf("%w: byte %#x at offset %d", ErrInvalidName, name[i], i)
		}
		i += w
	}
	return ErrInvalidName
}

// QuoteName returns a document id or a file path as human output should
// show it: unchanged when it is valid UTF-8 and has no control, format
// (bidirectional overrides, zero-width) or line-separator characters and
// does not start with a double quote; otherwise quoted with Go syntax
// (strconv.Quote), so that it stays on one line, cannot forge other output
// lines, shows its invalid bytes, and can be given back to the command line
// as printed (see UnquoteName). Machine output (JSON) needs no such
// treatment.
func QuoteName(s string) string {
	if needsQuote(s) {
		return strconv.Quote(s)
	}
	return s
}

func needsQuote(s string) bool {
	if !utf8.ValidString(s) || strings.HasPrefix(s, `"`) {
		return true
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// UnquoteName reverses QuoteName: an argument written as a Go quoted string
// (as QuoteName prints it) is unquoted; anything else is returned as is.
func UnquoteName(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
