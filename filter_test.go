package situate_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// The filter property test: for random documents (access lists, metadata)
// and random filters, the BM25 arms and the dense arm admit exactly the
// same documents, and those are the documents a filter written from the
// documentation admits (refAllows, independent of the Engine's code).

var (
	filterPrincipals = []string{"alice", "bob", "carol", "dave", ""}
	filterTeams      = []string{"red", "green", "blue", ""}
	filterWords      = strings.Fields("river stone ferry bread oven lamp winter harbour clock field")
)

type filterDoc struct {
	id     string
	access []string
	meta   map[string]string
}

func randomFilterDocs(rng *rand.Rand, n int) []filterDoc {
	docs := make([]filterDoc, n)
	for i := range docs {
		d := filterDoc{id: fmt.Sprintf("doc-%03d", i), meta: map[string]string{}}
		if rng.IntN(3) > 0 {
			for _, p := range filterPrincipals {
				if rng.IntN(3) == 0 {
					d.access = append(d.access, p)
				}
			}
		}
		if rng.IntN(4) > 0 {
			d.meta["team"] = filterTeams[rng.IntN(len(filterTeams))]
		}
		switch rng.IntN(5) {
		case 0: // no year
		case 1:
			d.meta["year"] = "unknown"
		default:
			d.meta["year"] = strconv.Itoa(1995 + rng.IntN(30))
		}
		if rng.IntN(4) > 0 {
			day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(1500))
			if rng.IntN(2) == 0 {
				d.meta["date"] = day.Format(time.DateOnly)
			} else {
				d.meta["date"] = day.Add(time.Duration(rng.IntN(86400)) * time.Second).Format(time.RFC3339)
			}
		}
		docs[i] = d
	}
	return docs
}

func randomFilter(rng *rand.Rand, docs []filterDoc) situate.Filter {
	var f situate.Filter
	if rng.IntN(3) == 0 {
		f.Docs = []string{}
		for _, d := range docs {
			if rng.IntN(2) == 0 {
				f.Docs = append(f.Docs, d.id)
			}
		}
		if rng.IntN(4) == 0 {
			f.Docs = append(f.Docs, "no-such-doc")
		}
	}
	if rng.IntN(2) == 0 {
		f.Principals = []string{}
		for _, p := range filterPrincipals {
			if rng.IntN(3) == 0 {
				f.Principals = append(f.Principals, p)
			}
		}
	}
	if rng.IntN(3) == 0 {
		f.Metadata = map[string]string{"team": filterTeams[rng.IntN(len(filterTeams))]}
	}
	for range rng.IntN(3) {
		c := situate.Condition{Not: rng.IntN(3) == 0}
		switch rng.IntN(7) {
		case 5:
			ops := []situate.Op{situate.OpLt, situate.OpLte, situate.OpGt, situate.OpGte}
			c.Key, c.Op, c.Values = "year", ops[rng.IntN(4)], []string{strconv.Itoa(1995 + rng.IntN(30))}
		case 6:
			ops := []situate.Op{situate.OpLt, situate.OpLte, situate.OpGt, situate.OpGte}
			day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(1500))
			c.Key, c.Op, c.Values = "date", ops[rng.IntN(4)], []string{day.Format(time.DateOnly)}
		case 0:
			c.Key, c.Op, c.Values = "team", situate.OpEq, []string{filterTeams[rng.IntN(len(filterTeams))]}
		case 1:
			c.Key, c.Op = "team", situate.OpIn
			for _, t := range filterTeams {
				if rng.IntN(2) == 0 || len(c.Values) == 0 {
					c.Values = append(c.Values, t)
				}
			}
		case 2:
			c.Key, c.Op = "year", situate.OpRange
			lo := 1995 + rng.IntN(30)
			if rng.IntN(4) > 0 {
				c.Min = strconv.Itoa(lo)
			}
			if rng.IntN(4) > 0 || c.Min == "" {
				c.Max = strconv.Itoa(lo + rng.IntN(10))
			}
		case 3:
			c.Key, c.Op = "date", situate.OpRange
			lo := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(1500))
			c.Min = lo.Format(time.DateOnly)
			if rng.IntN(2) == 0 {
				c.Max = lo.AddDate(0, 0, rng.IntN(200)).Format(time.RFC3339)
			}
		default:
			c.Key, c.Op = []string{"team", "year", "date", "none"}[rng.IntN(4)], situate.OpExists
		}
		f.Where = append(f.Where, c)
	}
	return f
}

// refAllows is the filter's documented meaning, written independently of
// the Engine's implementation.
func refAllows(f situate.Filter, d filterDoc) bool {
	if f.Docs != nil && !slices.Contains(f.Docs, d.id) {
		return false
	}
	if f.Principals != nil && len(d.access) > 0 {
		shared := false
		for _, p := range f.Principals {
			shared = shared || slices.Contains(d.access, p)
		}
		if !shared {
			return false
		}
	}
	for k, v := range f.Metadata {
		if d.meta[k] != v {
			return false
		}
	}
	for _, c := range f.Where {
		v, ok := d.meta[c.Key]
		var r bool
		switch c.Op {
		case situate.OpEq, situate.OpIn:
			r = ok && slices.Contains(c.Values, v)
		case situate.OpExists:
			r = ok
		case situate.OpLt, situate.OpLte, situate.OpGt, situate.OpGte:
			var cmp int
			var valid bool
			if c.Key == "year" {
				y, err := strconv.Atoi(v)
				b, _ := strconv.Atoi(c.Values[0])
				cmp, valid = y-b, err == nil
			} else {
				t, err := time.Parse(time.RFC3339, v)
				if err != nil {
					t, err = time.Parse(time.DateOnly, v)
				}
				b, _ := time.Parse(time.DateOnly, c.Values[0])
				cmp, valid = t.Compare(b), err == nil
			}
			switch c.Op {
			case situate.OpLt:
				r = cmp < 0
			case situate.OpLte:
				r = cmp <= 0
			case situate.OpGt:
				r = cmp > 0
			default:
				r = cmp >= 0
			}
			r = r && ok && valid
		case situate.OpRange:
			if c.Key == "year" {
				y, err := strconv.Atoi(v)
				lo, _ := strconv.Atoi(c.Min)
				hi, _ := strconv.Atoi(c.Max)
				r = ok && err == nil && (c.Min == "" || y >= lo) && (c.Max == "" || y <= hi)
			} else {
				at := func(s string) (time.Time, bool) {
					if t, err := time.Parse(time.RFC3339, s); err == nil {
						return t, true
					}
					t, err := time.Parse(time.DateOnly, s)
					return t, err == nil
				}
				t, valid := at(v)
				lo, _ := at(c.Min)
				hi, _ := at(c.Max)
				r = ok && valid && !t.Before(lo) && (c.Max == "" || !t.After(hi))
			}
		}
		if r == c.Not {
			return false
		}
	}
	return true
}

func TestFilterArmsAdmitTheSameDocuments(t *testing.T) {
	ctx := context.Background()
	seeds, perSeed := 4, 750 // 3,000 filters, each searched by both arms
	if testing.Short() {
		seeds, perSeed = 2, 250
	}
	cases := 0
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		opts := situate.DefaultOptions()
		opts.ChunkSize, opts.ChunkOverlap = 24, 0
		opts.Embedder = &hashEmbedder{dim: 32}
		opts.VectorQuantizeAbove = -1
		eng := openMemEngine(t, opts)
		docs := randomFilterDocs(rng, 30+rng.IntN(30))
		var batch []*situate.Prepared
		for _, d := range docs {
			var text strings.Builder
			text.WriteString("common")
			for range 5 + rng.IntN(60) {
				text.WriteString(" " + filterWords[rng.IntN(len(filterWords))])
			}
			p, err := eng.Prepare(ctx, situate.Document{ID: d.id, Text: text.String(), Lang: "en",
				Access: d.access, Metadata: d.meta})
			if err != nil {
				t.Fatal(err)
			}
			batch = append(batch, p)
		}
		if _, err := eng.Commit(ctx, batch); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for range perSeed {
			f := randomFilter(rng, docs)
			want := map[string]bool{}
			for _, d := range docs {
				if refAllows(f, d) {
					want[d.id] = true
				}
			}
			matching, err := eng.DocumentsMatching(f)
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, rec := range matching {
				listed[rec.ID] = true
				if ok, err := f.Allows(rec); !ok || err != nil {
					t.Fatalf("seed %d, filter %+v: Allows(%s) = %v, %v; DocumentsMatching lists it", seed, f, rec.ID, ok, err)
				}
			}
			if !maps.Equal(listed, want) {
				t.Fatalf("seed %d, filter %+v: DocumentsMatching %v, want %v", seed, f, slices.Sorted(maps.Keys(listed)), slices.Sorted(maps.Keys(want)))
			}
			for _, mode := range []string{situate.ModeBM25, situate.ModeDense} {
				hits, err := eng.Search(ctx, situate.Query{Text: "common", K: 10000, Mode: mode, Filter: f})
				if err != nil {
					t.Fatalf("seed %d, filter %+v, %s: %v", seed, f, mode, err)
				}
				got := map[string]bool{}
				for _, h := range hits {
					got[h.DocID] = true
				}
				if !maps.Equal(got, want) {
					t.Fatalf("seed %d, filter %+v, %s arm: admitted %v, want %v", seed, f, mode,
						slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
				}
			}
			cases++
		}
		t.Logf("seed %d: %d filters in %v", seed, perSeed, time.Since(start))
	}
	t.Logf("%d random filters, each agreeing on both arms and with the reference", cases)
}

// openMemEngine opens an engine with its indexes in memory over a SQLite
// store in a temporary directory.
func openMemEngine(t testing.TB, opts situate.Options) *situate.Engine {
	t.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "situate.db"))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := situate.Open(context.Background(), "", store, opts)
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(); store.Close() })
	return eng
}

func TestFilterInvalidNamesTheField(t *testing.T) {
	ctx := context.Background()
	eng, _ := openTestEngine(t, t.TempDir(), situate.DefaultOptions())
	if _, err := eng.Put(ctx, situate.Document{ID: "a", Text: "river stone"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    situate.Filter
		want string
	}{
		{"empty key", situate.Filter{Where: []situate.Condition{{Op: situate.OpExists}}}, "Where[0]"},
		{"unknown op", situate.Filter{Where: []situate.Condition{{Key: "k", Op: "like"}}}, `Op: "like"`},
		{"lt without bound", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpLt}}}, "lt: want 1 value"},
		{"gte bad bound", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpGte, Values: []string{"tomorrow"}}}}, `gte: "tomorrow"`},
		{"eq two values", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpEq, Values: []string{"a", "b"}}}}, "eq: want 1 value"},
		{"in no values", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpIn}}}, "in: want at least 1"},
		{"range no bounds", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpRange}}}, "at least one bound"},
		{"range bad bound", situate.Filter{Where: []situate.Condition{{Key: "year", Op: situate.OpRange, Min: "soon"}}}, `Min "soon"`},
		{"range mixed kinds", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpRange, Min: "3", Max: "2024-01-01"}}}, "both numbers or both dates"},
		{"range inverted", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpRange, Min: "5", Max: "3"}}}, "above Max"},
		{"range with values", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpRange, Min: "1", Values: []string{"x"}}}}, "not Values"},
		{"exists with values", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpExists, Values: []string{"x"}}}}, "exists: takes no"},
		{"second condition", situate.Filter{Where: []situate.Condition{{Key: "k", Op: situate.OpExists}, {Key: "team", Op: "eq"}}}, `Where[1] (key "team")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := eng.Search(ctx, situate.Query{Text: "river", Filter: tc.f})
			if !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v: want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
}

// TestFilterDates: dates compare as instants, whatever the layout.
func TestFilterDates(t *testing.T) {
	ctx := context.Background()
	eng, _ := openTestEngine(t, t.TempDir(), situate.DefaultOptions())
	for id, date := range map[string]string{
		"new-year":  "2024-01-01",
		"noon-utc":  "2024-01-01T12:00:00Z",
		"noon-cest": "2024-01-01T12:00:00+02:00", // 10:00 UTC
		"february":  "2024-02-01T00:00:00Z",
		"garbage":   "first of May",
	} {
		if _, err := eng.Put(ctx, situate.Document{ID: id, Text: "river", Metadata: map[string]string{"date": date}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		min, max string
		not      bool
		want     []string
	}{
		{"2024-01-01T11:00:00Z", "2024-01-31", false, []string{"noon-utc"}},
		{"2024-01-01T10:00:00Z", "2024-01-01T12:00:00Z", false, []string{"noon-cest", "noon-utc"}},
		{"", "2024-01-01", false, []string{"new-year"}},
		{"2024-01-02", "", false, []string{"february"}},
		{"2024-01-02", "", true, []string{"garbage", "new-year", "noon-cest", "noon-utc"}},
	} {
		hits, err := eng.Search(ctx, situate.Query{Text: "river", K: 100, Filter: situate.Filter{
			Where: []situate.Condition{{Key: "date", Op: situate.OpRange, Min: tc.min, Max: tc.max, Not: tc.not}}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.DocID)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("range [%s, %s] not=%v: got %v, want %v", tc.min, tc.max, tc.not, got, tc.want)
		}
	}
}

// TestFilterFollowsCommits: a filter's document set (cached between
// searches) follows every Put and Delete.
func TestFilterFollowsCommits(t *testing.T) {
	ctx := context.Background()
	eng := openMemEngine(t, situate.DefaultOptions())
	staff := situate.Filter{Principals: []string{"staff"}}
	put := func(id string, access ...string) {
		t.Helper()
		if _, err := eng.Put(ctx, situate.Document{ID: id, Text: "weir sluice " + id, Access: access}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(want ...string) {
		t.Helper()
		for range 2 { // the second search reads the cached set
			got := searchIDs(t, eng, situate.Query{Text: "weir", K: 10, Filter: staff})
			if !slices.Equal(got, want) {
				t.Fatalf("staff sees %v, want %v", got, want)
			}
		}
	}
	put("a", "staff")
	put("b", "board")
	check("a")
	put("c")
	check("a", "c")
	put("b", "staff", "board")
	check("a", "b", "c")
	put("a", "board")
	check("b", "c")
	if err := eng.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	check("b")
}
