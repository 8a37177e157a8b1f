package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	unicodeenc "golang.org/x/text/encoding/unicode"
)

// decodeText turns file bytes into valid UTF-8 text:
//   - UTF-8 passes (a BOM is stripped);
//   - UTF-16 with a BOM, or without one when the NUL pattern is unmistakable,
//     is converted;
//   - NUL bytes or many control characters otherwise mean ErrBinary;
//   - other invalid UTF-8 is decoded as Windows-1252 (a superset of the
//     printable Latin-1), Windows-1251, KOI8-R or GB18030 when a simple
//     script heuristic is confident, and is ErrEncoding otherwise.
//
// Carriage-return line ends are normalised to "\n".
func decodeText(data []byte) (string, error) {
	var text string
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
		if !utf8.Valid(data) {
			return "", fmt.Errorf("%w: UTF-8 byte order mark but invalid UTF-8 at byte %d", ErrEncoding, 3+invalidAt(data))
		}
		text = string(data)
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		s, err := decodeWith(unicodeenc.UTF16(unicodeenc.LittleEndian, unicodeenc.ExpectBOM), data)
		if err != nil {
			return "", fmt.Errorf("%w: UTF-16: %w", ErrEncoding, err)
		}
		text = s
	case bytes.IndexByte(data, 0) >= 0:
		// NULs are valid UTF-8 but mean UTF-16 without a BOM or binary.
		s, ok := utf16NoBOM(data)
		if !ok {
			return "", fmt.Errorf("%w: NUL byte at offset %d", ErrBinary, bytes.IndexByte(data, 0))
		}
		text = s
	case utf8.Valid(data):
		text = string(data)
	default:
		s, err := decodeLegacy(data)
		if err != nil {
			return "", err
		}
		text = s
	}
	if bin, why := binaryText(text); bin {
		return "", fmt.Errorf("%w: %s", ErrBinary, why)
	}
	text = normalizeNewlines(text)
	return text, nil
}

// decodeWith decodes data strictly: replacement characters produced by the
// decoder (invalid input) are an error.
func decodeWith(enc encoding.Encoding, data []byte) (string, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(out) {
		return "", errors.New("decoder produced invalid UTF-8")
	}
	return string(out), nil
}

func invalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// binaryText reports whether decoded text is really binary: a NUL, or more
// than 1 in 20 runes being control characters other than whitespace.
func binaryText(s string) (bool, string) {
	if i := indexNUL(s); i >= 0 {
		return true, fmt.Sprintf("NUL byte at offset %d", i)
	}
	var ctl, n int
	for _, r := range s {
		n++
		if r == utf8.RuneError {
			ctl++
			continue
		}
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' && r != '\v' && r != 0x1b {
			ctl++
		} else if r == 0x7f || (r >= 0x80 && r < 0xa0) {
			ctl++
		}
	}
	if n > 0 && ctl*20 > n {
		return true, fmt.Sprintf("%d of %d characters are control characters", ctl, n)
	}
	return false, ""
}

func indexNUL(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

func normalizeNewlines(s string) string {
	if !bytes.ContainsRune([]byte(s), '\r') {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' {
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			c = '\n'
		}
		b = append(b, c)
	}
	return string(b)
}

// decodeLegacy handles bytes that are not valid UTF-8.
func decodeLegacy(data []byte) (string, error) {
	at := invalidAt(data)
	// High bytes in Latin text sit alone between ASCII letters (Grüße,
	// café); Cyrillic and Chinese legacy encodings put them in runs.
	var high, isolated int
	for i, c := range data {
		if c < 0x80 {
			continue
		}
		high++
		prevASCII := i == 0 || data[i-1] < 0x80
		nextASCII := i == len(data)-1 || data[i+1] < 0x80
		if prevASCII && nextASCII {
			isolated++
		}
	}
	if isolated*10 >= high*7 { // at least 70% isolated
		return decodeWindows1252(data, at)
	}
	type candidate struct {
		name  string
		enc   encoding.Encoding
		score func(rune) bool
	}
	cyrLower := func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) && unicode.IsLower(r) }
	isHan := func(r rune) bool {
		return unicode.Is(unicode.Han, r) || (r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef)
	}
	best, bestScore, bestText := "", 0.0, ""
	for _, c := range []candidate{
		{"windows-1251", charmap.Windows1251, cyrLower},
		{"koi8-r", charmap.KOI8R, cyrLower},
		{"gb18030", simplifiedchinese.GB18030, isHan},
	} {
		out, err := c.enc.NewDecoder().Bytes(data)
		if err != nil || !utf8.Valid(out) {
			continue
		}
		var nonASCII, good, bad int
		for _, r := range string(out) {
			if r < 0x80 {
				continue
			}
			nonASCII++
			if r == utf8.RuneError || r == '\u0080' || (r >= 0xE000 && r <= 0xF8FF) {
				bad++
			}
			if c.score(r) {
				good++
			}
		}
		if nonASCII == 0 || bad > 0 {
			continue
		}
		if s := float64(good) / float64(nonASCII); s > bestScore {
			best, bestScore, bestText = c.name, s, string(out)
		}
	}
	// Cyrillic text is mostly lowercase letters; Chinese mostly ideographs.
	if bestScore >= 0.6 {
		_ = best
		return bestText, nil
	}
	return "", fmt.Errorf("%w: invalid UTF-8 at byte %d and not recognisable as UTF-16, Windows-1252, Windows-1251, KOI8-R or GB18030", ErrEncoding, at)
}

// decodeWindows1252 decodes Latin text, refusing the five byte values
// Windows-1252 leaves undefined.
func decodeWindows1252(data []byte, at int) (string, error) {
	for i, c := range data {
		switch c {
		case 0x81, 0x8D, 0x8F, 0x90, 0x9D:
			return "", fmt.Errorf("%w: invalid UTF-8 at byte %d and byte 0x%02X at %d is undefined in Windows-1252", ErrEncoding, at, c, i)
		}
	}
	return decodeWith(charmap.Windows1252, data)
}

// utf16NoBOM recognises BOM-less UTF-16 by its NUL pattern: ASCII-heavy
// UTF-16LE has a NUL in nearly every odd byte and none in even ones.
func utf16NoBOM(data []byte) (string, bool) {
	if len(data) < 4 || len(data)%2 != 0 {
		return "", false
	}
	var evenNUL, oddNUL int
	for i, c := range data {
		if c == 0 {
			if i%2 == 0 {
				evenNUL++
			} else {
				oddNUL++
			}
		}
	}
	half := len(data) / 2
	var e unicodeenc.Endianness
	switch {
	case oddNUL*10 >= half*6 && evenNUL == 0:
		e = unicodeenc.LittleEndian
	case evenNUL*10 >= half*6 && oddNUL == 0:
		e = unicodeenc.BigEndian
	default:
		return "", false
	}
	s, err := decodeWith(unicodeenc.UTF16(e, unicodeenc.IgnoreBOM), data)
	if err != nil || bytes.ContainsRune([]byte(s), utf8.RuneError) {
		return "", false
	}
	return s, true
}
