package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/situate/situate/driver"
)

// TestFilterAllows: each part of a Filter, as Allows and a compiled filter
// test a record; an invalid filter names its field and wraps ErrInvalid.
func TestFilterAllows(t *testing.T) {
	rec := driver.DocumentRecord{ID: "a.md", Access: []string{"hr", "ops"},
		Metadata: map[string]string{"team": "ops", "year": "2021", "published": "2021-03-04"}}
	for _, c := range []struct {
		name string
		f    driver.Filter
		want bool
	}{
		{"zero", driver.Filter{}, true},
		{"principal in access", driver.Filter{Principals: []string{"ops"}}, true},
		{"principal not in access", driver.Filter{Principals: []string{"alice"}}, false},
		{"no principals reads only public documents", driver.Filter{Principals: []string{}}, false},
		{"docs", driver.Filter{Docs: []string{"b.md", "a.md"}}, true},
		{"docs without it", driver.Filter{Docs: []string{"b.md"}}, false},
		{"metadata equal", driver.Filter{Metadata: map[string]string{"team": "ops"}}, true},
		{"metadata missing key reads as empty", driver.Filter{Metadata: map[string]string{"site": ""}}, true},
		{"in", driver.Filter{Where: []driver.Condition{{Key: "team", Op: driver.OpIn, Values: []string{"hr", "ops"}}}}, true},
		{"not eq", driver.Filter{Where: []driver.Condition{{Key: "team", Op: driver.OpEq, Values: []string{"ops"}, Not: true}}}, false},
		{"number gte", driver.Filter{Where: []driver.Condition{{Key: "year", Op: driver.OpGte, Values: []string{"2021"}}}}, true},
		{"number lt", driver.Filter{Where: []driver.Condition{{Key: "year", Op: driver.OpLt, Values: []string{"2021"}}}}, false},
		{"date range", driver.Filter{Where: []driver.Condition{{Key: "published", Op: driver.OpRange, Min: "2021-01-01", Max: "2021-12-31T23:59:59Z"}}}, true},
		{"open range", driver.Filter{Where: []driver.Condition{{Key: "year", Op: driver.OpRange, Min: "2022"}}}, false},
		{"exists", driver.Filter{Where: []driver.Condition{{Key: "team", Op: driver.OpExists}}}, true},
		{"not exists", driver.Filter{Where: []driver.Condition{{Key: "site", Op: driver.OpExists, Not: true}}}, true},
		{"number bound, text value", driver.Filter{Where: []driver.Condition{{Key: "team", Op: driver.OpGt, Values: []string{"1"}}}}, false},
	} {
		got, err := c.f.Allows(rec)
		if err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
		if c.f.Docs == nil {
			cf, err := c.f.Compile()
			if err != nil || cf.Allows(rec.Access, rec.Metadata) != c.want {
				t.Errorf("%s compiled: %v, want %v", c.name, err, c.want)
			}
		}
	}
	for _, bad := range []driver.Filter{
		{Where: []driver.Condition{{Key: "year", Op: "between"}}},
		{Where: []driver.Condition{{Key: "year", Op: driver.OpRange}}},
		{Where: []driver.Condition{{Key: "year", Op: driver.OpGt, Values: []string{"soon"}}}},
		{Where: []driver.Condition{{Key: "year", Op: driver.OpEq}}},
	} {
		if _, err := bad.Allows(rec); !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", bad.Where, err)
		}
	}
}

// TestMetadataValues: numbers are finite decimals; instants are RFC 3339,
// the same without a zone, or a date.
func TestMetadataValues(t *testing.T) {
	for s, ok := range map[string]bool{"12": true, "-1.5e3": true, "": false, "NaN": false, "Inf": false, "12a": false} {
		if _, got := driver.MetadataNumber(s); got != ok {
			t.Errorf("MetadataNumber(%q) = %v, want %v", s, got, ok)
		}
	}
	for s, want := range map[string]time.Time{
		"2021-03-04":                time.Date(2021, 3, 4, 0, 0, 0, 0, time.UTC),
		"2021-03-04T05:06:07":       time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC),
		"2021-03-04T05:06:07+01:00": time.Date(2021, 3, 4, 4, 6, 7, 0, time.UTC),
	} {
		if got, ok := driver.MetadataTime(s); !ok || !got.Equal(want) {
			t.Errorf("MetadataTime(%q) = %v %v, want %v", s, got, ok, want)
		}
	}
	if _, ok := driver.MetadataTime("March"); ok {
		t.Error("MetadataTime(March) took it")
	}
}

// TestDocumentHash: the hash covers content and attributes, not the order
// of the access list.
func TestDocumentHash(t *testing.T) {
	d := driver.Document{ID: "a", Title: "T", Text: "x", Format: driver.FormatText, Access: []string{"a", "b"}, Metadata: map[string]string{"k": "v"}}
	same := d
	same.Access = []string{"b", "a"}
	if d.Hash() != same.Hash() {
		t.Error("the access list's order changed the hash")
	}
	for name, change := range map[string]func(*driver.Document){
		"text": func(d *driver.Document) { d.Text = "y" }, "title": func(d *driver.Document) { d.Title = "U" },
		"access": func(d *driver.Document) { d.Access = []string{"a"} }, "metadata": func(d *driver.Document) { d.Metadata = map[string]string{"k": "w"} },
		// Length prefixes: "ab"+"c" is not "a"+"bc".
		"field boundary": func(d *driver.Document) { d.ID, d.Title = "aT", "" },
	} {
		c := d
		change(&c)
		if c.Hash() == d.Hash() {
			t.Errorf("a change of %s kept the hash", name)
		}
	}
}

type httpErr struct{ code int }

func (e httpErr) Error() string   { return fmt.Sprintf("status %d", e.code) }
func (e httpErr) HTTPStatus() int { return e.code }

// TestErrorKind: the kinds a run's error summary counts.
func TestErrorKind(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("call: %w", driver.ErrUnauthorized):   "unauthorized",
		fmt.Errorf("call: %w", driver.ErrModelNotFound):  "model not found",
		fmt.Errorf("x: %w", driver.ErrProviderFailing):   "provider failing",
		fmt.Errorf("x: %w", driver.ErrPromptTooLarge):    "prompt too large",
		fmt.Errorf("x: %w", context.DeadlineExceeded):    "timeout",
		fmt.Errorf("x: %w", httpErr{529}):                "HTTP 529",
		errors.New("something else entirely went wrong"): "something else entirely went wrong",
	} {
		if got := driver.ErrorKind(err); got != want {
			t.Errorf("ErrorKind(%v) = %q, want %q", err, got, want)
		}
	}
}

type named struct{ driver.Contextualizer }

func (named) Name() string        { return "fake" }
func (named) Fingerprint() string { return "fp1" }
func (named) RecordedSettings() (json.RawMessage, error) {
	return json.RawMessage(`{"model":"m"}`), nil
}

// TestIdentifyContextualizer: name, fingerprint and recorded settings;
// "none" without a contextualizer.
func TestIdentifyContextualizer(t *testing.T) {
	id, err := driver.IdentifyContextualizer(nil)
	if err != nil || id.Name != "none" {
		t.Errorf("nil: %+v %v", id, err)
	}
	id, err = driver.IdentifyContextualizer(named{})
	if err != nil || id.Name != "fake" || id.Fingerprint != "fp1" || string(id.Settings) != `{"model":"m"}` {
		t.Errorf("fake: %+v %v", id, err)
	}
}

// TestResolveLanguage: a declared language wins (lower-cased), else it is
// detected from the text.
func TestResolveLanguage(t *testing.T) {
	if got := driver.ResolveLanguage(driver.Document{Lang: "DE", Text: "the harbour"}); got != "de" {
		t.Errorf("declared DE: %q", got)
	}
	if got := driver.ResolveLanguage(driver.Document{Text: "Der Hafen von Hamburg ist der größte Hafen Deutschlands und liegt an der Elbe."}); got != "de" {
		t.Errorf("detected: %q, want de", got)
	}
	if got := driver.Contextualize("", "chunk"); got != "chunk" {
		t.Errorf("Contextualize without a context: %q", got)
	}
	var events []driver.CallEvent
	ctx := driver.WithCallObserver(context.Background(), func(ev driver.CallEvent) { events = append(events, ev) })
	driver.ObserveCall(ctx, driver.CallEvent{DocID: "a", Kind: driver.CallStart})
	driver.ObserveCall(context.Background(), driver.CallEvent{DocID: "b", Kind: driver.CallStart})
	if len(events) != 1 || events[0].DocID != "a" {
		t.Errorf("observed %+v, want a's event only", events)
	}
}
