package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
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
		t, ok := driver.MetadataTime(s)
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

// where turns the metadata conditions into the engine's, which apply
// them: one implementation of filtering for every arm and every listing.
func (f *Filter) where() []situate.Condition {
	var out []situate.Condition
	for _, k := range slices.Sorted(maps.Keys(f.Metadata)) {
		c := f.Metadata[k]
		add := func(op situate.Op, not bool, values ...string) {
			out = append(out, situate.Condition{Key: k, Op: op, Values: values, Not: not})
		}
		if c.Eq != nil {
			add(situate.OpEq, false, *c.Eq)
		}
		if c.Ne != nil {
			add(situate.OpEq, true, *c.Ne)
		}
		switch {
		case c.In == nil:
		case len(c.In) == 0: // in nothing: no document passes
			add(situate.OpExists, false)
			add(situate.OpExists, true)
		default:
			add(situate.OpIn, false, c.In...)
		}
		if len(c.NotIn) > 0 {
			add(situate.OpIn, true, c.NotIn...)
		}
		for _, t := range []struct {
			b  *Bound
			op situate.Op
		}{{c.Gt, situate.OpGt}, {c.Gte, situate.OpGte}, {c.Lt, situate.OpLt}, {c.Lte, situate.OpLte}} {
			if t.b != nil {
				add(t.op, false, t.b.String())
			}
		}
		if c.Exists != nil {
			add(situate.OpExists, !*c.Exists)
		}
	}
	return out
}

// String is the bound as the engine's conditions take it.
func (b Bound) String() string {
	if b.Date != nil {
		return b.Date.Format(time.RFC3339Nano)
	}
	if b.Number != nil {
		return strconv.FormatFloat(*b.Number, 'g', -1, 64)
	}
	return ""
}

// engineFilter turns the caller's access and the request's filter into the
// engine's Filter, applied inside every arm while scoring.
func engineFilter(c *Caller, f *Filter) situate.Filter {
	ef := c.Filter()
	if f.empty() {
		return ef
	}
	if f.Docs != nil {
		ef.Docs = append([]string{}, f.Docs...)
	}
	ef.Where = f.where()
	return ef
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ParseFilter reads a filter in the JSON form the API takes (the filter of
// a search, the filter query parameter of GET /v1/documents) and returns
// the engine's Filter. An error names the field and wraps
// situate.ErrInvalid. The command line's "situate ls --filter" uses it, so
// both front ends read one form.
func ParseFilter(data []byte) (situate.Filter, error) {
	var f Filter
	e := decodeJSON(data, &f, "filter")
	if e == nil {
		e = f.validate("filter")
	}
	if e != nil {
		msg := e.msg
		if e.field == "body" {
			msg = strings.TrimPrefix(msg, "body")
			e.field = "filter"
		}
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, e.field), ": ")
		return situate.Filter{}, fmt.Errorf("%s: %s: %w", e.field, msg, situate.ErrInvalid)
	}
	return engineFilter(&Caller{Admin: true}, &f), nil
}
