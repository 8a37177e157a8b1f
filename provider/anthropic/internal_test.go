package anthropic

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

func TestReadLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("{\"a\":1}\n\n{\"b\":2}"), 16)
	if l, err := readLine(br); err != nil || string(l) != `{"a":1}` {
		t.Fatalf("%q %v", l, err)
	}
	if l, err := readLine(br); err != nil || len(l) != 0 {
		t.Fatalf("blank line: %q %v", l, err)
	}
	if l, err := readLine(br); err != nil || string(l) != `{"b":2}` {
		t.Fatalf("last line without newline: %q %v", l, err)
	}
	if _, err := readLine(br); !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v", err)
	}
	br = bufio.NewReader(strings.NewReader("{\"a\":1}\n{\"b\":"))
	readLine(br)
	if _, err := readLine(br); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut line: %v", err)
	}
}

func TestDefaultPrice(t *testing.T) {
	for model, want := range map[string]float64{
		"claude-haiku-4-5-20251001": 1, "claude-3-haiku-20240307": 0.25, "claude-opus-4-1-20250805": 15,
		"claude-opus-4-5": 5, "claude-sonnet-4-5": 3, "claude-opus-4-20250514": 15,
	} {
		p, ok := DefaultPrice(model)
		if !ok || p.InputPerMTok != want {
			t.Errorf("DefaultPrice(%s) = %v %v, want input %v", model, p, ok, want)
		}
	}
	if _, ok := DefaultPrice("gpt-4o"); ok {
		t.Error("unknown model priced")
	}
	p := Price{InputPerMTok: 1, OutputPerMTok: 5}
	got := p.cost(tokens{input: 1e6, write5m: 1e6, write1h: 1e6, cacheRead: 1e6, output: 1e6}, true)
	if want := (1 + 1.25 + 2 + 0.1 + 5) / 2; got != want {
		t.Errorf("batch cost %v, want %v", got, want)
	}
}

func BenchmarkReadStream(b *testing.B) {
	data, err := os.ReadFile("testdata/stream_documented.sse")
	if err != nil {
		b.Fatal(err)
	}
	c, _ := New(Options{APIKey: "k"})
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := c.readStream(context.Background(), bytes.NewReader(data), "", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReadStream: any byte stream gives text and an error or success,
// never a panic or a hang; success needs a message_stop.
func FuzzReadStream(f *testing.F) {
	for _, name := range []string{"testdata/stream_documented.sse", "testdata/stream_crlf.sse"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n"))
	c, _ := New(Options{APIKey: "k"})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := c.readStream(context.Background(), bytes.NewReader(data), "", nil)
		if err == nil && !bytes.Contains(data, []byte("message_stop")) {
			t.Fatalf("success without message_stop: %q", data)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not *Error", err)
			}
		}
	})
}
