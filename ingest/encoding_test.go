package ingest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	unicodeenc "golang.org/x/text/encoding/unicode"
)

func encode(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return b
}

func TestDecodeText(t *testing.T) {
	const (
		de = "Grüße aus Köln: Straße, Maß und Übermut – für 5 €.\n"
		ru = "Съешь же ещё этих мягких французских булок, да выпей чаю.\n"
		zh = "云溪茶园坐落在福建武夷山脉东麓，以出产岩茶闻名。\n"
	)
	utf16le := unicodeenc.UTF16(unicodeenc.LittleEndian, unicodeenc.UseBOM)
	utf16be := unicodeenc.UTF16(unicodeenc.BigEndian, unicodeenc.UseBOM)
	utf16leNoBOM := unicodeenc.UTF16(unicodeenc.LittleEndian, unicodeenc.IgnoreBOM)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"utf-8", []byte(de), de},
		{"utf-8 BOM stripped", append([]byte{0xEF, 0xBB, 0xBF}, ru...), ru},
		{"utf-16le BOM", encode(t, utf16le, ru), ru},
		{"utf-16be BOM", encode(t, utf16be, zh), zh},
		{"utf-16le without BOM", encode(t, utf16leNoBOM, "plain ASCII text in UTF-16\n"), "plain ASCII text in UTF-16\n"},
		{"windows-1252", encode(t, charmap.Windows1252, de), de},
		{"latin-1", encode(t, charmap.ISO8859_1, "café crème, naïve façade\n"), "café crème, naïve façade\n"},
		{"windows-1251", encode(t, charmap.Windows1251, ru), ru},
		{"koi8-r", encode(t, charmap.KOI8R, ru), ru},
		{"gb18030", encode(t, simplifiedchinese.GB18030, zh), zh},
		{"gbk", encode(t, simplifiedchinese.GBK, zh), zh},
		{"CRLF and CR", []byte("a\r\nb\rc\n"), "a\nb\nc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeText(tt.data)
			if err != nil {
				t.Fatalf("decodeText: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecodeTextRefuses(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"NUL", []byte("text\x00more text"), ErrBinary, "NUL byte at offset 4"},
		{"ELF", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00"), ErrBinary, "binary content"},
		{"undefined windows-1252 bytes", []byte("abc \x81 def \x8d ghi"), ErrEncoding, "undefined in Windows-1252"},
		{"random high bytes", []byte("x\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc\x81\x8d"), ErrEncoding, "invalid UTF-8 at byte 1"},
		{"bad utf-8 after BOM", []byte("\xEF\xBB\xBFok \xff"), ErrEncoding, "byte order mark"},
		{"control characters", []byte(strings.Repeat("\x01\x02\x03a", 10)), ErrBinary, "control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeText(tt.data)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

func TestDecodeHTMLDeclaredCharset(t *testing.T) {
	const page = `<html><head><meta charset="shift_jis"><title>東京</title></head><body><p>こんにちは、世界</p></body></html>`
	data := encode(t, japanese.ShiftJIS, page)
	doc, err := Parse(context.Background(), data, "sjis.html", "sjis.html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "東京" || !strings.Contains(doc.Text, "こんにちは、世界") {
		t.Errorf("title %q, text %q", doc.Title, doc.Text)
	}
	// Without a declaration the legacy heuristics apply: Windows-1251.
	data = encode(t, charmap.Windows1251, `<html><body><p>Привет, как дела? Всё хорошо.</p></body></html>`)
	doc, err = Parse(context.Background(), data, "ru.html", "ru.html", Options{})
	if err != nil || !strings.Contains(doc.Text, "Привет, как дела?") {
		t.Errorf("windows-1251 page: %q, %v", doc.Text, err)
	}
}
