package situate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/situate/situate"
)

// TestOpenModeFallbacks: Open applies the lock fallbacks itself. Over a
// shared store whose index directory another process holds, OpenAuto
// writes the store only and OpenReader reads; when nobody holds it, both
// become its writer.
func TestOpenModeFallbacks(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t)
	opts := situate.DefaultOptions()
	opts.SharedStore = true
	holder := ts.open(opts) // holds the directory's lock
	if _, err := holder.Put(ctx, doc("a", "quarry stone a")); err != nil {
		t.Fatal(err)
	}

	auto := opts
	auto.OpenMode = situate.OpenAuto
	eng, err := situate.Open(ctx, ts.dir, ts.store, auto)
	if err != nil {
		t.Fatalf("OpenAuto beside the holder: %v", err)
	}
	if got := eng.Options().OpenMode; got != situate.OpenStoreOnly {
		t.Errorf("OpenAuto beside the holder opened %v, want store-only", got)
	}
	if _, err := eng.Put(ctx, doc("b", "quarry stone b")); err != nil {
		t.Errorf("store-only Put: %v", err)
	}
	if _, err := eng.Search(ctx, situate.Query{Text: "quarry"}); err == nil {
		t.Error("a store-only engine searched")
	}
	eng.Close()

	reader := opts
	reader.OpenMode = situate.OpenReader
	eng, err = situate.Open(ctx, ts.dir, ts.store, reader)
	if err != nil {
		t.Fatalf("OpenReader beside the holder: %v", err)
	}
	if _, err := eng.Put(ctx, doc("c", "quarry stone c")); !errors.Is(err, situate.ErrReadOnly) {
		t.Errorf("reader Put: %v, want ErrReadOnly", err)
	}
	if hits, err := eng.Search(ctx, situate.Query{Text: "quarry", K: 10}); err != nil || len(hits) != 2 {
		t.Errorf("reader search: %d hits, %v; want the 2 stored documents", len(hits), err)
	}
	eng.Close()

	// A writer without a fallback fails at once with ErrLocked.
	writer := opts
	writer.LockWait = -1
	if eng, err := situate.Open(ctx, ts.dir, ts.store, writer); !errors.Is(err, situate.ErrLocked) {
		if eng != nil {
			eng.Close()
		}
		t.Errorf("writer beside the holder: %v, want ErrLocked", err)
	}

	holder.Close()
	for _, mode := range []situate.OpenMode{situate.OpenAuto, situate.OpenReader} {
		o := opts
		o.OpenMode = mode
		eng, err := situate.Open(ctx, ts.dir, ts.store, o)
		if err != nil {
			t.Fatalf("%v with the lock free: %v", mode, err)
		}
		if got := eng.Options().OpenMode; got != situate.OpenWriter {
			t.Errorf("%v with the lock free opened %v, want the writer", mode, got)
		}
		eng.Close()
	}

	bad := situate.DefaultOptions()
	bad.OpenMode = situate.OpenStoreOnly
	if err := bad.Validate(); !errors.Is(err, situate.ErrInvalid) {
		t.Errorf("store-only without SharedStore: %v, want ErrInvalid", err)
	}
}
