package apiclient

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestSSEReader(t *testing.T) {
	in := "event: a\ndata: 1\n\n\n: comment\nevent: b\ndata: x\ndata: y\n\nerror: {\"code\":500}\n\nevent: c\ndata: {\"cut"
	sr := NewSSEReader(strings.NewReader(in), 16)
	ev, err := sr.Next()
	if err != nil || ev.Name != "a" || string(ev.Data) != "1" {
		t.Fatalf("first = %+v %v", ev, err)
	}
	ev, err = sr.Next()
	if err != nil || ev.Name != "b" || string(ev.Data) != "x\ny" {
		t.Fatalf("second = %+v %v", ev, err)
	}
	ev, err = sr.Next()
	if err != nil || string(ev.ErrData) != `{"code":500}` {
		t.Fatalf("llama.cpp error line = %+v %v", ev, err)
	}
	if _, err = sr.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut-off event: %v, want ErrUnexpectedEOF", err)
	}
	for in, want := range map[string]error{
		"event: a\ndata: 1\n\n":            io.EOF,              // clean end
		"data: [DONE]":                     nil,                 // last line without its blank line, complete
		"data: {\"a\":1}":                  nil,                 // likewise, a whole JSON value
		"data: {\"a\":":                    io.ErrUnexpectedEOF, // cut inside the value
		"data: {\"a\":1}\ndata: {\"b\":2}": io.ErrUnexpectedEOF, // two data lines, no end
		"data: 1\n: keep-alive":            io.ErrUnexpectedEOF,
		": keep-alive only":                io.EOF,
		"data: 1\r\n\r\n":                  io.EOF, // CRLF lines; the event first, then the end
	} {
		sr := NewSSEReader(strings.NewReader(in), 0)
		_, err := sr.Next()
		if want == io.EOF && err == nil {
			_, err = sr.Next()
		}
		if !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Errorf("%q: %v, want %v", in, err, want)
		}
	}
}
