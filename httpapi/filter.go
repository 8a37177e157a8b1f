package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/situate/situate"
)

// Filter restricts a search or a listing to some documents.
type Filter struct {
	// Docs, when set, allows only these document ids.
	Docs []string `json:"docs,omitempty"`
	// Metadata requires every key's condition to hold for the document's
	// metadata value.
	Metadata map[string]Condition `json:"metadata,omitempty"`
}

// UnmarshalJSON decodes a filter strictly; an error names the field
// within the filter ("metadata.year", "docs").
func (f *Filter) UnmarshalJSON(data []byte) error {
	var raw struct {
		Docs     json.RawMessage            `json:"docs"`
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if err := strictUnmarshal(data, &raw); err != nil {
		return relative(err, "")
	}
	*f = Filter{}
	if raw.Docs != nil && string(raw.Docs) != "null" {
		if err := json.Unmarshal(raw.Docs, &f.Docs); err != nil {
			return &fieldError{"docs", "want an array of document ids"}
		}
	}
	if raw.Metadata != nil {
		f.Metadata = make(map[string]Condition, len(raw.Metadata))
		for k, v := range raw.Metadata {
			var c Condition
			if err := c.UnmarshalJSON(v); err != nil {
				return relative(err, "metadata."+k)
			}
			f.Metadata[k] = c
		}
	}
	return nil
}

// fieldError is a decoding error that knows its field's path.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

// relative turns a decoding error inside the value at path into a
// fieldError naming the innermost field it can.
func relative(err error, path string) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		if path != "" {
			return &fieldError{path + "." + fe.field, fe.msg}
		}
		return fe
	}
	ae := jsonError(err)
	field := path
	if ae.field != "body" && ae.field != "" {
		if field != "" {
			field += "."
		}
		field += ae.field
	}
	if field == "" {
		field = "filter"
	}
	msg := ae.msg
	if i := strings.Index(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return &fieldError{field, msg}
}

// Metadata is a document's metadata: string values; a wrong type names
// its key.
type Metadata map[string]string

func (m *Metadata) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return &fieldError{"metadata", "want an object of strings"}
	}
	if raw == nil {
		*m = nil
		return nil
	}
	*m = make(Metadata, len(raw))
	for k, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return &fieldError{"metadata." + k, "want a string, got " + truncate(string(v), 40)}
		}
		(*m)[k] = s
	}
	return nil
}

// Condition is one metadata key's test. In JSON it is either a string (the
// value must equal it) or an object with any of: eq, ne (strings), in,
// not_in (lists of strings), gt, gte, lt, lte (numbers compare the value as
// a number; strings compare it as a date, RFC 3339 or YYYY-MM-DD), exists
// (a boolean). Every test given must hold; a document without the key
// fails every test except ne, not_in and exists=false.
type Condition struct {
	Eq     *string  `json:"eq,omitempty"`
	Ne     *string  `json:"ne,omitempty"`
	In     []string `json:"in,omitempty"`
	NotIn  []string `json:"not_in,omitempty"`
	Gt     *Bound   `json:"gt,omitempty"`
	Gte    *Bound   `json:"gte,omitempty"`
	Lt     *Bound   `json:"lt,omitempty"`
	Lte    *Bound   `json:"lte,omitempty"`
	Exists *bool    `json:"exists,omitempty"`
}

// Bound is a range bound: a number, or a date.
type Bound struct {
	Number *float64
	Date   *time.Time
}

func (b Bound) MarshalJSON() ([]byte, error) {
	if b.Date != nil {
		return json.Marshal(b.Date.Format(time.RFC3339Nano))
	}
	if b.Number != nil {
		return json.Marshal(*b.Number)
	}
	return []byte("null"), nil
}

func (b *Bound) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		t, ok := parseDate(s)
		if !ok {
			return fmt.Errorf("want a number or a date (RFC 3339 or YYYY-MM-DD), got %q", s)
		}
		b.Date = &t
		return nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("want a number or a date (RFC 3339 or YYYY-MM-DD), got %s", truncate(string(data), 40))
	}
	b.Number = &f
	return nil
}

func (c Condition) MarshalJSON() ([]byte, error) {
	type plain Condition
	return json.Marshal(plain(c))
}

func (c *Condition) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*c = Condition{Eq: &s}
		return nil
	}
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("want a string or an object of tests (eq, ne, in, not_in, gt, gte, lt, lte, exists), got %s", truncate(string(data), 40))
	}
	type plain Condition
	var p plain
	if err := strictUnmarshal(data, &p); err != nil {
		var raw map[string]json.RawMessage
		if json.Unmarshal(data, &raw) == nil {
			for _, k := range []string{"gt", "gte", "lt", "lte"} {
				var b Bound
				if v, ok := raw[k]; ok {
					if berr := b.UnmarshalJSON(v); berr != nil {
						return &fieldError{k, berr.Error()}
					}
				}
			}
		}
		return relative(err, "")
	}
	*c = Condition(p)
	if c.Eq == nil && c.Ne == nil && c.In == nil && c.NotIn == nil && c.Gt == nil && c.Gte == nil && c.Lt == nil && c.Lte == nil && c.Exists == nil {
		return fmt.Errorf("no test given (want eq, ne, in, not_in, gt, gte, lt, lte or exists)")
	}
	return nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func parseDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// validate checks ids and keys; errors name the field.
func (f *Filter) validate(field string) *apiError {
	if f == nil {
		return nil
	}
	if len(f.Docs) > 10000 {
		return badField(field+".docs", "at most 10000 ids")
	}
	for i, d := range f.Docs {
		if err := validDocID(d); err != nil {
			return badField(fmt.Sprintf("%s.docs[%d]", field, i), err.Error())
		}
	}
	if len(f.Metadata) > 64 {
		return badField(field+".metadata", "at most 64 keys")
	}
	for k, c := range f.Metadata {
		if k == "" || len(k) > 256 {
			return badField(field+".metadata", "keys must be 1-256 bytes")
		}
		var nums, dates int
		for _, b := range []*Bound{c.Gt, c.Gte, c.Lt, c.Lte} {
			switch {
			case b == nil:
			case b.Number != nil:
				nums++
			default:
				dates++
			}
		}
		if nums > 0 && dates > 0 {
			return badField(field+".metadata."+k, "range bounds must all be numbers or all be dates")
		}
	}
	return nil
}

// empty reports whether the filter restricts nothing.
func (f *Filter) empty() bool { return f == nil || f.Docs == nil && len(f.Metadata) == 0 }

// matches reports whether a document passes the filter.
func (f *Filter) matches(rec situate.DocumentRecord) bool {
	if f == nil {
		return true
	}
	if f.Docs != nil && !slices.Contains(f.Docs, rec.ID) {
		return false
	}
	for k, c := range f.Metadata {
		v, ok := rec.Metadata[k]
		if !c.holds(v, ok) {
			return false
		}
	}
	return true
}

func (c Condition) holds(v string, ok bool) bool {
	if c.Exists != nil && *c.Exists != ok {
		return false
	}
	if c.Ne != nil && ok && v == *c.Ne {
		return false
	}
	if c.NotIn != nil && ok && slices.Contains(c.NotIn, v) {
		return false
	}
	if !ok {
		return c.Eq == nil && c.In == nil && c.Gt == nil && c.Gte == nil && c.Lt == nil && c.Lte == nil
	}
	if c.Eq != nil && v != *c.Eq {
		return false
	}
	if c.In != nil && !slices.Contains(c.In, v) {
		return false
	}
	for _, t := range []struct {
		b    *Bound
		want func(int) bool
	}{
		{c.Gt, func(n int) bool { return n > 0 }},
		{c.Gte, func(n int) bool { return n >= 0 }},
		{c.Lt, func(n int) bool { return n < 0 }},
		{c.Lte, func(n int) bool { return n <= 0 }},
	} {
		if t.b == nil {
			continue
		}
		n, ok := t.b.compare(v)
		if !ok || !t.want(n) {
			return false
		}
	}
	return true
}

// compare compares a metadata value with the bound: -1, 0 or 1, and false
// when the value is not a number (or date) at all.
func (b Bound) compare(v string) (int, bool) {
	switch {
	case b.Number != nil:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x != x {
			return 0, false
		}
		switch {
		case x < *b.Number:
			return -1, true
		case x > *b.Number:
			return 1, true
		}
		return 0, true
	case b.Date != nil:
		t, ok := parseDate(v)
		if !ok {
			return 0, false
		}
		return t.Compare(*b.Date), true
	}
	return 0, false
}

// engineFilter turns the caller's access and the request's filter into the
// engine's Filter, applied inside every arm while scoring. Metadata
// conditions become the set of documents that pass them.
func engineFilter(c *Caller, f *Filter) situate.Filter {
	ef := c.Filter()
	if f.empty() {
		return ef
	}
	if len(f.Metadata) == 0 {
		ef.Docs = append([]string{}, f.Docs...)
		return ef
	}
	ef.Docs = []string{}
	if f.Docs != nil {
		for _, id := range f.Docs {
			if rec, err := c.Engine().Document(id); err == nil && f.matches(rec) {
				ef.Docs = append(ef.Docs, id)
			}
		}
		return ef
	}
	for _, rec := range c.Engine().Documents() {
		if f.matches(rec) {
			ef.Docs = append(ef.Docs, rec.ID)
		}
	}
	return ef
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
