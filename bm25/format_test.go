package bm25

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// format1Docs are the docs of testdata/format1, an index written by the
// format 1 encoder: 75 groups of 4 docs, then group d3 deleted.
func format1Docs() *Batch {
	var b Batch
	for g := 0; g < 75; g++ {
		var docs []Doc
		for j := 0; j < 4; j++ {
			i := 4*g + j
			a := map[string]string{}
			if i%3 == 0 {
				a["k"] = fmt.Sprint(i % 7)
			}
			docs = append(docs, Doc{ID: fmt.Sprintf("d%d#%d", g, j), Attrs: a,
				Fields: map[string]string{"text": fmt.Sprintf("alpha beta %d gamma word%d word%d delta", i, i%13, i%29)}})
		}
		b.Replace(fmt.Sprintf("d%d", g), docs)
	}
	return &b
}

func copyDir(t *testing.T, from string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFormat1StillRead opens an index written in format 1 and checks that
// it searches, filters and merges exactly like the same docs in the
// current format.
func TestFormat1StillRead(t *testing.T) { testOldFormat(t, "testdata/format1") }

// TestFormat2StillRead is TestFormat1StillRead for format 2 (fixed-size
// term entries), written by the format 2 encoder from the same docs.
func TestFormat2StillRead(t *testing.T) { testOldFormat(t, "testdata/format2") }

func testOldFormat(t *testing.T, dir string) {
	old := copyDir(t, dir)
	opts := Options{Analyzer: "english"}
	v1, err := OpenReadOnly(old, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer v1.Close()
	v2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := v2.Apply(format1Docs()); err != nil {
		t.Fatal(err)
	}
	if err := v2.Delete("d3"); err != nil {
		t.Fatal(err)
	}
	accept := func(id, g string, a map[string]string) bool { return a["k"] == "3" || strings.HasSuffix(g, "7") }
	for _, q := range []Query{{Text: "word5 delta", K: 20}, {Text: "alpha 12 word7"}, {Text: "gamma", K: 300, Filter: &Filter{Accept: accept}},
		{Text: "word5 word6", Filter: &Filter{Groups: map[string]bool{"d1": true, "d40": true}}}} {
		a, err := v1.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		b, err := v2.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%q: %s gives %v, the current format %v", q.Text, dir, a, b)
		}
	}
	if !reflect.DeepEqual(v1.Groups(), v2.Groups()) {
		t.Errorf("groups differ: %v vs %v", v1.Groups(), v2.Groups())
	}
	st, err := Verify(old)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Err != nil {
			t.Errorf("verify %s: %v", s.Path, s.Err)
		}
	}
	// A writer merges the old segment with new ones into the current format.
	w, err := Open(old, Options{Analyzer: "english", MergeFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 0; i < 4; i++ {
		if err := w.Replace(fmt.Sprintf("new%d", i), []Doc{{ID: fmt.Sprintf("new%d#0", i), Fields: map[string]string{"text": "alpha word5 fresh"}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Search(Query{Text: "word5 fresh", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || !strings.HasPrefix(res[0].ID, "new") {
		t.Errorf("after merge: %v", res)
	}
	current := 0
	for _, ss := range w.snap.Load().segs {
		if string(ss.seg.data[:len(segMagic)]) == segMagic {
			current++
		}
	}
	if current == 0 {
		t.Errorf("after the writes: no segment in the current format %q", segMagic)
	}
	if got := len(w.Groups()); got != 74+4 {
		t.Errorf("after merge: %d groups, want 78", got)
	}
}

// TestLazyChecksum damages the postings of one term: the index opens, a
// query that does not read them gives its results, and one that does fails
// with ErrCorrupt naming the file; Verify finds the damage too.
func TestLazyChecksum(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	for i := 0; i < 30000; i++ {
		// zzz, in every doc twice, puts postings between zebra's and
		// the per-document tables that open reads.
		text := fmt.Sprintf("common filler%d zzz zzz", i%50)
		if i%2 == 0 {
			text += " zebra"
		}
		docs = append(docs, Doc{ID: fmt.Sprint(i), Group: "g" + fmt.Sprint(i/10), Fields: map[string]string{"text": text}})
	}
	var b Batch
	for g := 0; g < 3000; g++ {
		b.Replace(fmt.Sprint("g", g), docs[10*g:10*g+10])
	}
	if err := w.Apply(&b); err != nil {
		t.Fatal(err)
	}
	seg := w.snap.Load().segs[0].seg
	sp := &seg.parts[0]
	i, err := seg.find(sp, "zebra")
	if err != nil || i < 0 {
		t.Fatalf("find zebra: %d %v", i, err)
	}
	e := seg.entry(sp, i)
	off := len(seg.data) - len(seg.data[cap(seg.data)-cap(e.post):])
	path := seg.path
	w.Close()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[off+len(e.post)/2] ^= 0x10
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(dir, Options{Analyzer: "standard"})
	if err != nil {
		t.Fatalf("open: %v (the damage is in postings only)", err)
	}
	defer r.Close()
	if res, err := r.Search(Query{Text: "filler7", K: 5}); err != nil || len(res) != 5 {
		t.Errorf("search away from the damage: %v %v", res, err)
	}
	_, err = r.Search(Query{Text: "zebra"})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
		t.Errorf("search of the damaged postings: %v, want ErrCorrupt naming %s", err, path)
	}
	st, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || !errors.Is(st[1].Err, ErrCorrupt) {
		t.Errorf("verify: %+v", st)
	}
}

// TestBlockSize16 reads a segment whose block table has 16 KiB blocks (as
// written before blocks became 4 KiB) and finds damage in it.
func TestBlockSize16(t *testing.T) {
	ix, err := New(Options{Analyzer: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	var docs []analyzedDoc
	var in []Doc
	for i := 0; i < 20000; i++ {
		in = append(in, Doc{ID: fmt.Sprint(i), Group: "g", Fields: map[string]string{"text": fmt.Sprintf("word%d common", i%300)}})
	}
	if docs, err = ix.analyzeDocs(in); err != nil {
		t.Fatal(err)
	}
	data, err := buildSegment([]string{"text"}, docs)
	if err != nil {
		t.Fatal(err)
	}
	tableOff := int(binary.LittleEndian.Uint64(data[len(data)-footerSize:]))
	if tableOff < 3*crcBlockSize16 {
		t.Fatalf("segment of %d bytes is too small for the test", tableOff)
	}
	old := reseal(data, tableOff, crcBlockSize16)
	seg, err := openSegment("old.seg", old)
	if err != nil {
		t.Fatal(err)
	}
	if seg.bsize != crcBlockSize16 {
		t.Fatalf("block size %d, want %d", seg.bsize, crcBlockSize16)
	}
	ix.snap.Store(newSnapshot(ix, []snapSeg{{seg: seg}}, 1))
	res, err := ix.Search(Query{Text: "word7", K: 1000})
	if err != nil || len(res) != 20000/300+1 {
		t.Fatalf("search: %d results, %v", len(res), err)
	}
	if err := seg.verifyAll(); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), old...)
	bad[crcBlockSize16+100] ^= 1
	seg, err = openSegment("bad.seg", bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := seg.check(crcBlockSize16+4096, 10); !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged 16 KiB block: %v", err)
	}
}
