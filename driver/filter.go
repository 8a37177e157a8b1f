package driver

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Filter restricts a search to some documents. The zero Filter allows all;
// a document passes when it passes every part that is set. Every arm (the
// BM25 arms and the dense arm) applies the same Filter while scoring, so K
// allowed hits come back whenever they exist.
type Filter struct {
	// Docs, when not nil, is the set of document ids allowed.
	Docs []string
	// Principals, when not nil, allows only documents whose Access is empty or
	// shares a principal with it.
	Principals []string
	// Metadata requires every key to equal the document's metadata value (a
	// key the document lacks reads as "").
	Metadata map[string]string
	// Where are further conditions on metadata values; every one must hold.
	Where []Condition
}

// Op is the test a Condition makes.
type Op string

// Condition operators. Every one but OpExists fails for a document without
// the key (and so, negated, passes it).
const (
	// OpEq: the value equals Values[0].
	OpEq Op = "eq"
	// OpIn: the value equals one of Values.
	OpIn Op = "in"
	// OpLt, OpLte, OpGt, OpGte compare the value with Values[0]: as
	// numbers when the bound is a number, as instants when it is a date
	// (RFC 3339, or 2006-01-02 for midnight UTC). A value that is not of
	// the bound's kind fails.
	OpLt  Op = "lt"
	OpLte Op = "lte"
	OpGt  Op = "gt"
	OpGte Op = "gte"
	// OpRange: the value lies within [Min, Max], compared like OpGte and
	// OpLte.
	OpRange Op = "range"
	// OpExists: the document has the key.
	OpExists Op = "exists"
)

// Condition tests the metadata value a document holds under Key.
type Condition struct {
	Key string
	Op  Op
	// Values are OpEq's one value, OpIn's set, and the comparisons' bound.
	Values []string
	// Min and Max bound OpRange, inclusive; an empty bound is open, but not
	// both.
	Min, Max string
	// Not negates the condition: a document passes when the condition does
	// not hold for it (Not OpEq is "not equal, or no such key").
	Not bool
}

// IsZero reports whether f allows every document.
func (f Filter) IsZero() bool {
	return f.Docs == nil && f.Principals == nil && len(f.Metadata) == 0 && len(f.Where) == 0
}

// Allows reports whether a document with this record passes f, as a search
// with f would admit it (the access list, metadata and Where conditions,
// and Docs); an invalid filter is an error naming the field and wrapping
// ErrInvalid. It compiles f on every call: to test many records, use
// Engine.DocumentsMatching.
func (f Filter) Allows(rec DocumentRecord) (bool, error) {
	if f.IsZero() {
		return true, nil
	}
	df, err := compileFilter(f)
	if err != nil {
		return false, err
	}
	return (f.Docs == nil || slices.Contains(f.Docs, rec.ID)) && df.allows(rec.Access, rec.Metadata), nil
}

// docFilter is a Filter checked and compiled: the one implementation of
// filtering that every arm uses (through Engine.allowedDocs).
type docFilter struct {
	principals []string // nil: no access check
	conds      []cond
}

// cond is one compiled condition.
type cond struct {
	key      string
	op       Op
	values   map[string]bool
	lo, hi   *bound // range bounds; nil is open
	strictLo bool   // lo excluded (OpGt)
	strictHi bool   // hi excluded (OpLt)
	negative bool
	// missingIsEmpty reads a missing key as "" (Filter.Metadata).
	missingIsEmpty bool
}

// bound is a range bound: a number, or an instant when date is set.
type bound struct {
	date bool
	num  float64
	t    time.Time
}

// parseBound parses s as a number, else as a date.
func parseBound(s string) (*bound, bool) {
	if f, ok := MetadataNumber(s); ok {
		return &bound{num: f}, true
	}
	if t, ok := MetadataTime(s); ok {
		return &bound{date: true, t: t}, true
	}
	return nil, false
}

// cmp returns the sign of x − b for x of the bound's kind.
func (b *bound) cmp(x *bound) int {
	if b.date {
		return x.t.Compare(b.t)
	}
	switch {
	case x.num < b.num:
		return -1
	case x.num > b.num:
		return 1
	}
	return 0
}

// parseAs parses a document's value as the bound's kind.
func (b *bound) parseAs(s string) (*bound, bool) {
	if b.date {
		t, ok := MetadataTime(s)
		return &bound{date: true, t: t}, ok
	}
	f, ok := MetadataNumber(s)
	return &bound{num: f}, ok
}

// compileFilter checks f and compiles everything but its document set; an
// invalid part is an error naming it and wrapping ErrInvalid.
func compileFilter(f Filter) (*docFilter, error) {
	df := &docFilter{principals: f.Principals}
	keys := make([]string, 0, len(f.Metadata))
	for k := range f.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c, err := compileCondition(Condition{Key: k, Op: OpEq, Values: []string{f.Metadata[k]}})
		if err != nil {
			return nil, fmt.Errorf("filter: Metadata[%q]: %w", k, err)
		}
		c.missingIsEmpty = true
		df.conds = append(df.conds, c)
	}
	for i, w := range f.Where {
		c, err := compileCondition(w)
		if err != nil {
			return nil, fmt.Errorf("filter: Where[%d] (key %q): %w", i, w.Key, err)
		}
		df.conds = append(df.conds, c)
	}
	return df, nil
}

func compileCondition(w Condition) (cond, error) {
	c := cond{key: w.Key, op: w.Op, negative: w.Not}
	if w.Key == "" {
		return c, fmt.Errorf("Key: must not be empty: %w", ErrInvalid)
	}
	switch w.Op {
	case OpEq, OpIn:
		switch {
		case w.Op == OpEq && len(w.Values) != 1:
			return c, fmt.Errorf("eq: want 1 value, got %d: %w", len(w.Values), ErrInvalid)
		case w.Op == OpIn && len(w.Values) == 0:
			return c, fmt.Errorf("in: want at least 1 value: %w", ErrInvalid)
		}
		c.values = make(map[string]bool, len(w.Values))
		for _, v := range w.Values {
			c.values[v] = true
		}
	case OpLt, OpLte, OpGt, OpGte:
		if len(w.Values) != 1 || w.Min != "" || w.Max != "" {
			return c, fmt.Errorf("%s: want 1 value (the bound) and no Min or Max, got %d values: %w", w.Op, len(w.Values), ErrInvalid)
		}
		b, ok := parseBound(w.Values[0])
		if !ok {
			return c, fmt.Errorf("%s: %q: must be a number or a date (RFC 3339 or YYYY-MM-DD): %w", w.Op, w.Values[0], ErrInvalid)
		}
		switch w.Op {
		case OpLt, OpLte:
			c.hi, c.strictHi = b, w.Op == OpLt
		default:
			c.lo, c.strictLo = b, w.Op == OpGt
		}
		c.op = OpRange
	case OpRange:
		if len(w.Values) > 0 {
			return c, fmt.Errorf("range: takes Min and Max, not Values: %w", ErrInvalid)
		}
		if w.Min == "" && w.Max == "" {
			return c, fmt.Errorf("range: Min and Max: at least one bound is needed: %w", ErrInvalid)
		}
		var ok bool
		if w.Min != "" {
			if c.lo, ok = parseBound(w.Min); !ok {
				return c, fmt.Errorf("range: Min %q: must be a number or a date (RFC 3339 or YYYY-MM-DD): %w", w.Min, ErrInvalid)
			}
		}
		if w.Max != "" {
			if c.hi, ok = parseBound(w.Max); !ok {
				return c, fmt.Errorf("range: Max %q: must be a number or a date (RFC 3339 or YYYY-MM-DD): %w", w.Max, ErrInvalid)
			}
		}
		if c.lo != nil && c.hi != nil {
			if c.lo.date != c.hi.date {
				return c, fmt.Errorf("range: Min %q and Max %q: must be both numbers or both dates: %w", w.Min, w.Max, ErrInvalid)
			}
			if c.lo.cmp(c.hi) < 0 {
				return c, fmt.Errorf("range: Min %q is above Max %q: %w", w.Min, w.Max, ErrInvalid)
			}
		}
	case OpExists:
		if len(w.Values) > 0 || w.Min != "" || w.Max != "" {
			return c, fmt.Errorf("exists: takes no Values, Min or Max: %w", ErrInvalid)
		}
	default:
		return c, fmt.Errorf("Op: %q: must be eq, in, lt, lte, gt, gte, range or exists: %w", w.Op, ErrInvalid)
	}
	return c, nil
}

// MetadataNumber reads a metadata value as a number, as a Condition
// compares it: a finite decimal number.
func MetadataNumber(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// MetadataTime reads a metadata value as an instant, as a Condition
// compares it: an RFC 3339 time, the same without a zone (UTC), or a
// YYYY-MM-DD date (midnight UTC).
func MetadataTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// allows reports whether a document with this access list and metadata
// passes the filter.
func (f *docFilter) allows(access []string, meta map[string]string) bool {
	if f.principals != nil && len(access) > 0 &&
		!slices.ContainsFunc(f.principals, func(p string) bool { return slices.Contains(access, p) }) {
		return false
	}
	for i := range f.conds {
		if !f.conds[i].holds(meta) {
			return false
		}
	}
	return true
}

// holds evaluates the condition, negation included.
func (c *cond) holds(meta map[string]string) bool {
	v, ok := meta[c.key]
	if !ok && c.missingIsEmpty {
		v, ok = "", true
	}
	var r bool
	switch c.op {
	case OpEq, OpIn:
		r = ok && c.values[v]
	case OpExists:
		r = ok
	case OpRange:
		b := c.lo
		if b == nil {
			b = c.hi
		}
		x, valid := b.parseAs(v)
		r = ok && valid && c.above(x) && c.below(x)
	}
	return r != c.negative
}

// above reports whether x passes the lower bound.
func (c *cond) above(x *bound) bool {
	if c.lo == nil {
		return true
	}
	n := c.lo.cmp(x)
	return n > 0 || n == 0 && !c.strictLo
}

// below reports whether x passes the upper bound.
func (c *cond) below(x *bound) bool {
	if c.hi == nil {
		return true
	}
	n := c.hi.cmp(x)
	return n < 0 || n == 0 && !c.strictHi
}

// CompiledFilter is a Filter checked once, to test many documents.
type CompiledFilter struct{ f *docFilter }

// Compile checks f (an invalid filter is an error naming the field and
// wrapping ErrInvalid) and returns it ready to test many documents.
func (f Filter) Compile() (CompiledFilter, error) {
	df, err := compileFilter(f)
	return CompiledFilter{df}, err
}

// Allows reports whether a document with this access list and metadata
// passes the filter's access, Metadata and Where parts (not Docs).
func (c CompiledFilter) Allows(access []string, metadata map[string]string) bool {
	return c.f.allows(access, metadata)
}
