package httpapi

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// TestFilterConditionsAsTheEngineApplies: every metadata condition of the
// API, handed to the engine's Filter, admits exactly the documents the
// API's own semantics admit (refHolds), over thousands of random cases.
func TestFilterConditionsAsTheEngineApplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	values := []string{"", "red", "blue", "7", "12.5", "-3", "2024-03-01", "2024-03-01T10:00:00Z", "2023-12-31T23:00:00-02:00", "soon"}
	str := func() *string { s := values[rng.IntN(len(values))]; return &s }
	list := func() []string {
		var l []string
		for range rng.IntN(3) {
			l = append(l, *str())
		}
		return l
	}
	bound := func(dates bool) *Bound {
		if dates {
			d := time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(120*24)) * time.Hour)
			return &Bound{Date: &d}
		}
		f := float64(rng.IntN(30)-10) / 2
		return &Bound{Number: &f}
	}
	for i := range 5000 {
		var c Condition
		dates := rng.IntN(2) == 0
		for range 1 + rng.IntN(3) {
			switch rng.IntN(9) {
			case 0:
				c.Eq = str()
			case 1:
				c.Ne = str()
			case 2:
				if c.In = list(); c.In == nil {
					c.In = []string{}
				}
			case 3:
				c.NotIn = list()
			case 4:
				c.Gt = bound(dates)
			case 5:
				c.Gte = bound(dates)
			case 6:
				c.Lt = bound(dates)
			case 7:
				c.Lte = bound(dates)
			default:
				e := rng.IntN(2) == 0
				c.Exists = &e
			}
		}
		f := &Filter{Metadata: map[string]Condition{"k": c}}
		if e := f.validate("filter"); e != nil {
			continue
		}
		ef := situate.Filter{Where: f.where()}
		for _, v := range append(values, "\x00missing") {
			meta := map[string]string{"k": v}
			if v == "\x00missing" {
				meta = nil
			}
			got, err := ef.Allows(situate.DocumentRecord{ID: "d", Metadata: meta})
			if err != nil {
				t.Fatalf("case %d: condition %s: %v", i, describe(c), err)
			}
			_, present := meta["k"]
			if want := refHolds(c, meta["k"], present); got != want {
				t.Fatalf("case %d: condition %s on %q (present %v): engine %v, API semantics %v", i, describe(c), v, present, got, want)
			}
		}
	}
}

func describe(c Condition) string {
	b, _ := c.MarshalJSON()
	return string(b)
}

// refHolds is the filter semantics httpapi had before it handed its
// conditions to the engine (kept here as the reference).
func refHolds(c Condition, v string, ok bool) bool {
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
		n, ok := refCompare(*t.b, v)
		if !ok || !t.want(n) {
			return false
		}
	}
	return true
}

// compare compares a metadata value with the bound: -1, 0 or 1, and false
// when the value is not a number (or date) at all.
func refCompare(b Bound, v string) (int, bool) {
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
		t, ok := driver.MetadataTime(v)
		if !ok {
			return 0, false
		}
		return t.Compare(*b.Date), true
	}
	return 0, false
}
