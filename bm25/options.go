package bm25

import (
	"fmt"
	"math"
	"time"

	"github.com/situate/situate/internal/lockfile"
)

// Defaults. DefaultK1 and DefaultB are Lucene's BM25Similarity defaults.
const (
	DefaultK1    = 1.2
	DefaultB     = 0.75
	DefaultField = "text"
	DefaultK     = 10
	// DefaultMergeFactor is how many segments of about the same size are
	// merged into one.
	DefaultMergeFactor = 10
	// MaxQueryTerms bounds the unique terms of one analysed query per
	// language partition; longer queries are rejected with an error.
	MaxQueryTerms = 1 << 16
	// DefaultLockWait is how long Open waits for another writer to release
	// an index directory before failing with ErrLocked.
	DefaultLockWait = 5 * time.Second
)

// Options configure an Index. The zero value is usable: one field "text" of
// weight 1, BM25 k1 = 1.2 and b = 0.75, each document analysed by the
// analyzer of its language.
type Options struct {
	// K1 and B are BM25's parameters; zero means DefaultK1 / DefaultB. Both
	// are used as float32, as Lucene does, so a value that rounds to float32
	// zero, such as math.SmallestNonzeroFloat64, gives exactly b = 0 (no
	// length normalisation) or k1 = 0.
	K1, B float64
	// Fields are the indexed text fields with their default weights; nil
	// means one field "text" of weight 1. A document's Fields map may only
	// use these names.
	Fields []Field
	// Analyzer, when set, names one analyzer (see analysis.New) used for
	// every document and query. Empty means per-document language: a
	// document is analysed by analysis.ForLanguage(Doc.Lang), or of the
	// language analysis.Detect finds when Doc.Lang is empty.
	Analyzer string
	// MergeFactor is how many segments of about the same size trigger a
	// merge; zero means DefaultMergeFactor.
	MergeFactor int
	// CompoundWeight, when > 0, lets queries analysed by an analyzer that
	// implements analysis.Compounder (German) match compounds with their
	// parts: a query term no document holds is replaced by its two known
	// parts, and a known compound of two neighbouring query words joins
	// the query; each such term counts CompoundWeight times. 0 means off:
	// scoring is then exactly Lucene's.
	CompoundWeight float64
	// LockWait is how long Open waits for the write lock another process
	// holds: 0 means DefaultLockWait, negative means fail at once.
	// OpenReadOnly takes no lock.
	LockWait time.Duration
	// DenseBytes bounds the memory the index keeps, beside its files, for
	// the frequencies of frequent terms as one byte per document: a term
	// that searches ask for again and again in a large segment is read
	// that way instead of decoding its long postings (see dense.go). Zero
	// means DefaultDenseBytes; negative means none.
	DenseBytes int64
}

func (o Options) lockWait() time.Duration { return lockfile.Wait(o.LockWait, DefaultLockWait) }

// Field is an indexed text field and its default weight in scoring.
type Field struct {
	Name   string
	Weight float64
}

// withDefaults returns the options with defaults filled in, or an error
// naming the bad field.
func (o Options) withDefaults() (Options, error) {
	if o.K1 == 0 {
		o.K1 = DefaultK1
	}
	if o.B == 0 {
		o.B = DefaultB
	}
	if o.MergeFactor == 0 {
		o.MergeFactor = DefaultMergeFactor
	}
	if o.DenseBytes == 0 {
		o.DenseBytes = DefaultDenseBytes
	}
	if math.IsNaN(o.K1) || math.IsInf(o.K1, 0) || o.K1 < 0 {
		return o, fmt.Errorf("bm25 options: K1: must be a finite number >= 0, got %v", o.K1)
	}
	if math.IsNaN(o.B) || o.B < 0 || o.B > 1 {
		return o, fmt.Errorf("bm25 options: B: must be in [0, 1], got %v", o.B)
	}
	if math.IsNaN(o.CompoundWeight) || math.IsInf(o.CompoundWeight, 0) || o.CompoundWeight < 0 {
		return o, fmt.Errorf("bm25 options: CompoundWeight: must be a finite number >= 0, got %v", o.CompoundWeight)
	}
	if o.MergeFactor < 2 {
		return o, fmt.Errorf("bm25 options: MergeFactor: must be >= 2, got %d", o.MergeFactor)
	}
	if len(o.Fields) == 0 {
		o.Fields = []Field{{Name: DefaultField, Weight: 1}}
	} else {
		o.Fields = append([]Field(nil), o.Fields...)
	}
	seen := map[string]bool{}
	for i, f := range o.Fields {
		if f.Name == "" {
			return o, fmt.Errorf("bm25 options: Fields[%d]: empty name", i)
		}
		if seen[f.Name] {
			return o, fmt.Errorf("bm25 options: Fields[%d]: duplicate name %q", i, f.Name)
		}
		seen[f.Name] = true
		if err := checkWeight(f.Weight); err != nil {
			return o, fmt.Errorf("bm25 options: Fields[%d] %q: Weight: %w", i, f.Name, err)
		}
	}
	return o, nil
}

func checkWeight(w float64) error {
	if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 || w > math.MaxFloat32 {
		return fmt.Errorf("must be a finite number >= 0, got %v", w)
	}
	return nil
}
