package weaviate

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/situate/situate/driver"
)

// where is a Weaviate filter, rendered as REST JSON (batch delete) or as a
// GraphQL input literal (search).
type where struct {
	Operator       string   `json:"operator"`
	Operands       []*where `json:"operands,omitempty"`
	Path           []string `json:"path,omitempty"`
	ValueText      *string  `json:"valueText,omitempty"`
	ValueTextArray []string `json:"valueTextArray,omitempty"`
	ValueInt       *int64   `json:"valueInt,omitempty"`
	ValueNumber    *float64 `json:"valueNumber,omitempty"`
	ValueBoolean   *bool    `json:"valueBoolean,omitempty"`
	ValueDate      *string  `json:"valueDate,omitempty"`
}

func and(ws ...*where) *where {
	var ops []*where
	for _, w := range ws {
		if w != nil {
			ops = append(ops, w)
		}
	}
	switch len(ops) {
	case 0:
		return nil
	case 1:
		return ops[0]
	}
	return &where{Operator: "And", Operands: ops}
}

func or(ws ...*where) *where    { return &where{Operator: "Or", Operands: ws} }
func not(w *where) *where       { return &where{Operator: "Not", Operands: []*where{w}} }
func ptr[T any](v T) *T         { return &v }
func textEq(p, v string) *where { return &where{Operator: "Equal", Path: []string{p}, ValueText: &v} }
func containsAny(p string, vs []string) *where {
	return &where{Operator: "ContainsAny", Path: []string{p}, ValueTextArray: vs}
}
func containsNone(p string, vs []string) *where {
	return &where{Operator: "ContainsNone", Path: []string{p}, ValueTextArray: vs}
}

// gql renders w as a GraphQL input object.
func (w *where) gql() string {
	var b strings.Builder
	w.write(&b)
	return b.String()
}

func (w *where) write(b *strings.Builder) {
	b.WriteString("{operator: ")
	b.WriteString(w.Operator)
	if len(w.Operands) > 0 {
		b.WriteString(", operands: [")
		for i, o := range w.Operands {
			if i > 0 {
				b.WriteString(", ")
			}
			o.write(b)
		}
		b.WriteString("]")
	}
	if len(w.Path) > 0 {
		b.WriteString(", path: ")
		b.WriteString(gqlString(w.Path))
	}
	switch {
	case w.ValueText != nil:
		b.WriteString(", valueText: " + gqlString(*w.ValueText))
	case w.ValueTextArray != nil:
		b.WriteString(", valueText: " + gqlString(w.ValueTextArray))
	case w.ValueInt != nil:
		b.WriteString(", valueInt: " + strconv.FormatInt(*w.ValueInt, 10))
	case w.ValueNumber != nil:
		b.WriteString(", valueNumber: " + strconv.FormatFloat(*w.ValueNumber, 'g', -1, 64))
	case w.ValueBoolean != nil:
		b.WriteString(", valueBoolean: " + strconv.FormatBool(*w.ValueBoolean))
	case w.ValueDate != nil:
		b.WriteString(", valueDate: " + gqlString(*w.ValueDate))
	}
	b.WriteString("}")
}

// gqlString renders a string or a list of strings as GraphQL literals (JSON
// string escapes are valid GraphQL).
func gqlString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Metadata is pushed down through three properties every object carries:
// metaKV holds "key\x1fvalue" per entry, metaKeys the keys (and a sentinel,
// so that it is never empty), and for values that read as numbers or dates
// a typed property per key (numberProp, dateProp) made on first use.
const (
	propDocID    = "doc_id"
	propChunk    = "chunk"
	propVersion  = "version"
	propPublic   = "public"
	propAccess   = "access"
	propMetaKV   = "meta_kv"
	propMetaKeys = "meta_keys"
	kvSep        = "\x1f"
	keySentinel  = "\x1f"
	// maxKeyBytes bounds the metadata keys given a typed property (property
	// names are at most 230 bytes); a range on a longer key matches nothing.
	maxKeyBytes = 100
)

func numberProp(key string) string { return "mn_" + hex.EncodeToString([]byte(key)) }
func dateProp(key string) string   { return "md_" + hex.EncodeToString([]byte(key)) }

// bound is a parsed range bound.
type bound struct {
	date bool
	num  float64
	t    time.Time
}

func parseBound(s string) (bound, bool) {
	if f, ok := driver.MetadataNumber(s); ok {
		return bound{num: f}, true
	}
	if t, ok := driver.MetadataTime(s); ok {
		return bound{date: true, t: t}, true
	}
	return bound{}, false
}

// filterWhere translates a situate filter into a Weaviate filter; none
// reports a filter no document can pass (an empty Docs list). hasProp says
// whether a typed metadata property exists in the schema. The filter was
// checked by the Engine; a malformed part is still an error here.
func filterWhere(f driver.Filter, hasProp func(string) bool) (w *where, none bool, err error) {
	var parts []*where
	if f.Docs != nil {
		if len(f.Docs) == 0 {
			return nil, true, nil
		}
		parts = append(parts, containsAny(propDocID, f.Docs))
	}
	if f.Principals != nil {
		pub := &where{Operator: "Equal", Path: []string{propPublic}, ValueBoolean: ptr(true)}
		if len(f.Principals) == 0 {
			parts = append(parts, pub)
		} else {
			parts = append(parts, or(pub, containsAny(propAccess, f.Principals)))
		}
	}
	for k, v := range f.Metadata {
		if v != "" {
			parts = append(parts, containsAny(propMetaKV, []string{k + kvSep + v}))
		} else {
			// A missing key reads as "".
			parts = append(parts, or(containsAny(propMetaKV, []string{k + kvSep}), containsNone(propMetaKeys, []string{k})))
		}
	}
	for i, c := range f.Where {
		cw, err := conditionWhere(c, hasProp)
		if err != nil {
			return nil, false, fmt.Errorf("filter: Where[%d] (key %q): %w", i, c.Key, err)
		}
		parts = append(parts, cw)
	}
	return and(parts...), false, nil
}

// matchNothing is a condition no object passes (doc ids are never empty).
func matchNothing() *where { return textEq(propDocID, "") }

func conditionWhere(c driver.Condition, hasProp func(string) bool) (*where, error) {
	var pos *where
	switch c.Op {
	case driver.OpEq, driver.OpIn:
		if len(c.Values) == 0 {
			return nil, fmt.Errorf("%s: no value: %w", c.Op, driver.ErrInvalid)
		}
		kv := make([]string, len(c.Values))
		for i, v := range c.Values {
			kv[i] = c.Key + kvSep + v
		}
		if c.Not {
			return containsNone(propMetaKV, kv), nil
		}
		return containsAny(propMetaKV, kv), nil
	case driver.OpExists:
		if c.Not {
			return containsNone(propMetaKeys, []string{c.Key}), nil
		}
		return containsAny(propMetaKeys, []string{c.Key}), nil
	case driver.OpLt, driver.OpLte, driver.OpGt, driver.OpGte, driver.OpRange:
		var lo, hi *bound
		var strictLo, strictHi bool
		parse := func(s string) (*bound, error) {
			b, ok := parseBound(s)
			if !ok {
				return nil, fmt.Errorf("%s: %q: must be a number or a date: %w", c.Op, s, driver.ErrInvalid)
			}
			return &b, nil
		}
		var err error
		switch c.Op {
		case driver.OpRange:
			if c.Min != "" {
				if lo, err = parse(c.Min); err != nil {
					return nil, err
				}
			}
			if c.Max != "" {
				if hi, err = parse(c.Max); err != nil {
					return nil, err
				}
			}
		default:
			if len(c.Values) != 1 {
				return nil, fmt.Errorf("%s: want 1 value: %w", c.Op, driver.ErrInvalid)
			}
			b, err := parse(c.Values[0])
			if err != nil {
				return nil, err
			}
			switch c.Op {
			case driver.OpLt, driver.OpLte:
				hi, strictHi = b, c.Op == driver.OpLt
			default:
				lo, strictLo = b, c.Op == driver.OpGt
			}
		}
		if lo == nil && hi == nil {
			return nil, fmt.Errorf("range: no bound: %w", driver.ErrInvalid)
		}
		kind := lo
		if kind == nil {
			kind = hi
		}
		prop := numberProp(c.Key)
		if kind.date {
			prop = dateProp(c.Key)
		}
		if len(c.Key) > maxKeyBytes || !hasProp(prop) {
			// No document has a value of the bound's kind under this key.
			pos = matchNothing()
		} else {
			cmp := func(b *bound, strict bool, op, opStrict string) *where {
				w := &where{Operator: op, Path: []string{prop}}
				if strict {
					w.Operator = opStrict
				}
				if b.date {
					w.ValueDate = ptr(b.t.UTC().Format(time.RFC3339Nano))
				} else {
					w.ValueNumber = ptr(b.num)
				}
				return w
			}
			var ps []*where
			if lo != nil {
				ps = append(ps, cmp(lo, strictLo, "GreaterThanEqual", "GreaterThan"))
			}
			if hi != nil {
				ps = append(ps, cmp(hi, strictHi, "LessThanEqual", "LessThan"))
			}
			pos = and(ps...)
		}
	default:
		return nil, fmt.Errorf("Op: %q: unknown: %w", c.Op, driver.ErrInvalid)
	}
	if c.Not {
		return not(pos), nil
	}
	return pos, nil
}
