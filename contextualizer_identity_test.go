package situate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/offline"
)

// settingsContextualizer is the offline contextualizer with settings to
// record, as an LLM contextualizer has.
type settingsContextualizer struct {
	driver.Contextualizer
	model string
}

func (s settingsContextualizer) RecordedSettings() (json.RawMessage, error) {
	return json.Marshal(map[string]string{"model": s.model})
}

// TestCommitRecordsContextualizer: the Engine records the contextualizer
// its documents were committed with at its first commit, whatever front
// end drives it, and not before it commits anything.
func TestCommitRecordsContextualizer(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	stored := func() (driver.ContextualizerIdentity, bool) {
		t.Helper()
		v, ok, err := ts.store.Meta(ctx, driver.MetaContextualizer)
		if err != nil {
			t.Fatal(err)
		}
		var id driver.ContextualizerIdentity
		if ok {
			if err := json.Unmarshal([]byte(v), &id); err != nil {
				t.Fatalf("meta %s: %v", driver.MetaContextualizer, err)
			}
		}
		return id, ok
	}

	opts := situate.DefaultOptions()
	opts.Contextualizer = offline.New(offline.DefaultOptions())
	eng := ts.open(opts)
	if _, ok := stored(); ok {
		t.Fatal("recorded before any commit")
	}
	if _, err := eng.Put(ctx, doc("a", "quarry stone a")); err != nil {
		t.Fatal(err)
	}
	id, ok := stored()
	if !ok || id.Name != opts.Contextualizer.Name() || id.Settings != nil {
		t.Fatalf("after the first commit: %+v (found %v), want %s without settings", id, ok, opts.Contextualizer.Name())
	}
	eng.Close()

	// Another contextualizer with settings: its identity replaces the
	// first at its first commit.
	opts.Contextualizer = settingsContextualizer{offline.New(offline.DefaultOptions()), "m-2"}
	eng = ts.open(opts)
	defer eng.Close()
	if _, err := eng.Put(ctx, doc("b", "quarry stone b")); err != nil {
		t.Fatal(err)
	}
	id, _ = stored()
	var settings map[string]string
	if err := json.Unmarshal(id.Settings, &settings); err != nil || settings["model"] != "m-2" {
		t.Fatalf("settings %s (%v), want model m-2", id.Settings, err)
	}
}
