package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/situate/situate"
)

// MaxJSONLLine is the longest JSONL line read; longer lines are reported and
// skipped.
const MaxJSONLLine = DefaultMaxFileSize

// jsonlRecord is one JSONL line. Only "id" and "text" are required.
type jsonlRecord struct {
	ID       *string                    `json:"id"`
	Text     *string                    `json:"text"`
	Title    string                     `json:"title"`
	Metadata map[string]json.RawMessage `json:"metadata"`
	Lang     string                     `json:"lang"`
	Format   string                     `json:"format"`
	Access   []string                   `json:"access"`
}

var knownFormats = []string{situate.FormatText, situate.FormatMarkdown, situate.FormatHTML,
	situate.FormatPDF, situate.FormatDOCX, situate.FormatCode}

// JSONL reads one document per line:
//
//	{"id": "...", "text": "...", "title": "...", "metadata": {"k": "v"}}
//
// plus optional "lang", "format" (default "text") and "access" (a list of
// principals). Metadata values may be strings, numbers or booleans. Blank
// lines are skipped. A bad line (invalid JSON or UTF-8, missing id or text,
// an id repeated in the same input) is passed to fn as a *FileError with
// Path name and its 1-based Line, and skipped. fn's error stops reading;
// so do read errors and a cancelled ctx.
func JSONL(ctx context.Context, r io.Reader, name string, fn func(doc situate.Document, err error) error) error {
	br := bufio.NewReaderSize(r, 64*1024)
	seen := map[string]int{}
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, tooLong, err := readLine(br, MaxJSONLLine)
		if len(b) > 0 || tooLong {
			var doc situate.Document
			perr := error(nil)
			if tooLong {
				perr = fmt.Errorf("line longer than %d bytes", MaxJSONLLine)
			} else {
				doc, perr = parseJSONLLine(b)
			}
			if perr == nil {
				if prev, dup := seen[doc.ID]; dup && doc.ID != "" {
					perr = fmt.Errorf("id %q: duplicate of line %d", doc.ID, prev)
				} else if doc.ID != "" {
					seen[doc.ID] = line
				}
			}
			if perr != nil {
				if ferr := fn(situate.Document{}, &FileError{Path: name, Line: line, Op: "parse", Err: fmt.Errorf("%w: %w", ErrInvalidRecord, perr)}); ferr != nil {
					return ferr
				}
			} else if ferr := fn(doc, nil); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &FileError{Path: name, Line: line, Op: "read", Err: err}
		}
	}
}

// readLine reads one line without its end. A line longer than max is
// consumed and reported as tooLong.
func readLine(br *bufio.Reader, max int64) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if int64(len(buf)+len(chunk)) > max+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if tooLong {
			buf = nil
		}
		return bytes.TrimSpace(buf), tooLong, err
	}
}

func parseJSONLLine(b []byte) (situate.Document, error) {
	if !utf8.Valid(b) {
		return situate.Document{}, fmt.Errorf("invalid UTF-8 at byte %d", invalidAt(b))
	}
	var rec jsonlRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rec); err != nil {
		if strings.HasPrefix(err.Error(), "json: ") { // encoding/json's own prefix: said once
			return situate.Document{}, err
		}
		return situate.Document{}, fmt.Errorf("json: %w", err)
	}
	if dec.More() {
		return situate.Document{}, errors.New("json: more than one value on the line")
	}
	switch {
	case rec.ID == nil:
		return situate.Document{}, errors.New(`field "id": missing`)
	case strings.TrimSpace(*rec.ID) == "":
		return situate.Document{}, errors.New(`field "id": empty`)
	case rec.Text == nil:
		return situate.Document{}, fmt.Errorf(`id %q: field "text": missing`, *rec.ID)
	case strings.TrimSpace(*rec.Text) == "":
		return situate.Document{}, fmt.Errorf(`id %q: field "text": %w`, *rec.ID, ErrNoText)
	}
	doc := situate.Document{
		ID:     *rec.ID,
		Title:  cleanTitle(rec.Title),
		Text:   normalizeNewlines(*rec.Text),
		Format: rec.Format,
		Lang:   normalizeLang(rec.Lang),
		Access: rec.Access,
	}
	if rec.Lang != "" && doc.Lang == "" {
		return situate.Document{}, fmt.Errorf("id %q: field \"lang\": %q is not an ISO 639 code", doc.ID, rec.Lang)
	}
	if doc.Format == "" {
		doc.Format = situate.FormatText
	} else if !slices.Contains(knownFormats, doc.Format) {
		return situate.Document{}, fmt.Errorf("id %q: field \"format\": unknown format %q", doc.ID, doc.Format)
	}
	if doc.Title == "" {
		if doc.Format == situate.FormatMarkdown {
			doc.Title = cleanTitle(markdownTitle(doc.Text))
		}
		if doc.Title == "" {
			doc.Title = doc.ID
		}
	}
	if len(rec.Metadata) > 0 {
		doc.Metadata = make(map[string]string, len(rec.Metadata))
		for k, raw := range rec.Metadata {
			v, err := metadataValue(raw)
			if err != nil {
				return situate.Document{}, fmt.Errorf("id %q: field \"metadata.%s\": %w", doc.ID, k, err)
			}
			if v != nil {
				doc.Metadata[k] = *v
			}
		}
	}
	return doc, nil
}

func metadataValue(raw json.RawMessage) (*string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return &s, nil
	case raw[0] == '{' || raw[0] == '[':
		return nil, errors.New("must be a string, number or boolean")
	default: // number, true, false
		s := string(raw)
		return &s, nil
	}
}
