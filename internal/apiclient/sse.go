package apiclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// SSEEvent is one server-sent event: its name (the "event:" field), its
// data lines joined by "\n", and the payload of llama.cpp's non-standard
// "error: {...}" line.
type SSEEvent struct {
	Name    string
	Data    []byte
	ErrData []byte
}

// SSEReader splits a text/event-stream (Anthropic's Messages stream,
// OpenAI-compatible chat streams) into events.
type SSEReader struct {
	r *bufio.Reader
}

// NewSSEReader reads events from r with a buffer of size bytes (0: the
// bufio default).
func NewSSEReader(r io.Reader, size int) *SSEReader {
	if size <= 0 {
		return &SSEReader{r: bufio.NewReader(r)}
	}
	return &SSEReader{r: bufio.NewReaderSize(r, size)}
}

// Next returns the next event, io.EOF at a clean end, or
// io.ErrUnexpectedEOF if the stream ends inside an event. A last event
// whose terminating blank line is missing is returned if its one data line
// is "[DONE]" or a complete JSON value (some servers end so); otherwise it
// was cut off.
func (s *SSEReader) Next() (SSEEvent, error) {
	var ev SSEEvent
	var data [][]byte
	seen := false
	for {
		line, err := s.r.ReadBytes('\n')
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			if errors.Is(err, io.EOF) {
				if seen {
					return ev, io.ErrUnexpectedEOF
				}
				return ev, io.EOF
			}
			return ev, err
		}
		atEOF := err != nil
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if !seen {
				if atEOF {
					return ev, io.EOF
				}
				continue
			}
			ev.Data = bytes.Join(data, []byte("\n"))
			return ev, nil
		}
		if line[0] == ':' {
			if atEOF {
				if seen {
					return ev, io.ErrUnexpectedEOF
				}
				return ev, io.EOF
			}
			continue // comment or keep-alive
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Name, seen = string(value), true
		case "data":
			data, seen = append(data, value), true
		case "error":
			ev.ErrData, seen = append([]byte(nil), value...), true
		}
		if atEOF {
			if len(data) == 1 && (string(data[0]) == "[DONE]" || json.Valid(data[0])) {
				ev.Data = data[0]
				return ev, nil
			}
			return ev, io.ErrUnexpectedEOF
		}
	}
}
