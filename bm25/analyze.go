package bm25

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/situate/situate/analysis"
)

// detectSample bounds how much of a document language detection reads.
const detectSample = 8 << 10

// analyzer returns the named analyzer, creating it once.
func (ix *Index) analyzer(name string) (analysis.Analyzer, error) {
	ix.anMu.Lock()
	defer ix.anMu.Unlock()
	if a, ok := ix.analyzers[name]; ok {
		return a, nil
	}
	a, err := analysis.New(name)
	if err != nil {
		return nil, fmt.Errorf("bm25: analyzer %q: %w", name, err)
	}
	ix.analyzers[name] = a
	return a, nil
}

// langAnalyzer returns the analyzer for a language code, creating it once.
func (ix *Index) langAnalyzer(lang string) analysis.Analyzer {
	ix.anMu.Lock()
	defer ix.anMu.Unlock()
	key := "lang:" + lang
	if a, ok := ix.analyzers[key]; ok {
		return a
	}
	a := analysis.ForLanguage(lang)
	ix.analyzers[key] = a
	if _, ok := ix.analyzers[a.Name()]; !ok {
		ix.analyzers[a.Name()] = a
	}
	return a
}

// docAnalyzer picks the analyzer of a document: the fixed one, or the one of
// its language, detected from its text when Lang is empty.
func (ix *Index) docAnalyzer(d *Doc) (analysis.Analyzer, error) {
	if ix.opts.Analyzer != "" {
		return ix.analyzer(ix.opts.Analyzer)
	}
	lang := d.Lang
	if lang == "" {
		var sample []byte
		for _, f := range ix.opts.Fields {
			sample = append(sample, prefix(d.Fields[f.Name], detectSample)...)
			sample = append(sample, '\n')
			if len(sample) >= detectSample {
				break
			}
		}
		lang = analysis.Detect(string(sample))
	}
	return ix.langAnalyzer(lang), nil
}

// prefix returns at most n bytes of s, cut on a rune boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i]
		}
	}
	return s[:n] // not UTF-8 here: any cut will do
}

// pieceSize is the largest text handed to one Analyze call.
const pieceSize = 1 << 20

// cutPiece returns a prefix of s of at most n bytes ending after whitespace,
// or, when the window has none, on a rune boundary.
func cutPiece(s string, n int) string {
	w := s[:n]
	if i := strings.LastIndexAny(w, " \t\n\r\f\v"); i > n/2 {
		return s[:i+1]
	}
	return prefix(s, n)
}

// analyzedDoc is one document after analysis, ready to be inverted.
type analyzedDoc struct {
	meta     docMeta
	analyzer string
	fields   []fieldTerms // by index in Options.Fields
}

type fieldTerms struct {
	terms []string
	tfs   []uint32
	// tokens is the number of tokens indexed (the doc's contribution to
	// Lucene's sumTotalTermFreq); normLen excludes tokens at the same
	// position as the previous one (Lucene's discountOverlaps).
	tokens, normLen uint32
}

// analyzeDocs analyses documents on all CPUs.
func (ix *Index) analyzeDocs(docs []Doc) ([]analyzedDoc, error) {
	return ix.analyzeDocsPre(docs, nil)
}

// analyzeDocsPre is analyzeDocs taking pre[i], when pre is not nil and
// pre[i] not nil, as docs[i] analysed ahead (Index.Analyze).
func (ix *Index) analyzeDocsPre(docs []Doc, pre []*analyzedDoc) ([]analyzedDoc, error) {
	out := make([]analyzedDoc, len(docs))
	errs := make([]error, len(docs))
	var todo []int
	for i := range docs {
		if pre != nil && pre[i] != nil {
			out[i] = *pre[i]
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	var wg sync.WaitGroup
	next := make(chan int, len(todo))
	for _, i := range todo {
		next <- i
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts := map[string]uint32{}
			for i := range next {
				out[i], errs[i] = ix.analyzeDoc(&docs[i], counts, nil)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// tokenPool holds token slices for analyzeDoc to reuse.
var tokenPool = sync.Pool{New: func() any { return new([]analysis.Token) }}

// termObserver, when not nil, is handed the terms of the observed field
// (analyzeDoc's caller says which) in the analyzer's order, empty terms
// included, when the field's text was analysed in one piece.
type termObserver struct {
	field string
	seen  func(analyzer string, terms []string)
}

func (ix *Index) analyzeDoc(d *Doc, counts map[string]uint32, obs *termObserver) (analyzedDoc, error) {
	a, err := ix.docAnalyzer(d)
	if err != nil {
		return analyzedDoc{}, fmt.Errorf("doc %q: %w", d.ID, err)
	}
	// The token slices are reused; only the terms (in their own memory)
	// are kept.
	tokBuf := tokenPool.Get().(*[]analysis.Token)
	defer func() {
		if cap(*tokBuf) <= 1<<16 {
			tokenPool.Put(tokBuf)
		}
	}()
	ad := analyzedDoc{
		meta:     docMeta{id: d.ID, group: d.Group, attrs: d.Attrs},
		analyzer: a.Name(),
		fields:   make([]fieldTerms, len(ix.opts.Fields)),
	}
	for fi, f := range ix.opts.Fields {
		text := d.Fields[f.Name]
		if text == "" {
			continue
		}
		ft := &ad.fields[fi]
		clear(counts)
		observe := obs != nil && f.Name == obs.field && len(text) <= pieceSize
		for len(text) > 0 {
			// Very long texts are analysed in pieces cut at whitespace, so
			// the token slice of one Analyze call stays small.
			piece := text
			if len(piece) > pieceSize {
				piece = cutPiece(text, pieceSize)
			}
			text = text[len(piece):]
			toks := analysis.AnalyzeInto(a, (*tokBuf)[:0], piece)
			*tokBuf = toks[:0]
			if observe {
				terms := make([]string, len(toks))
				for i, t := range toks {
					terms[i] = t.Term
				}
				obs.seen(ad.analyzer, terms)
			}
			for i, t := range toks {
				if t.Term == "" {
					continue
				}
				if _, ok := counts[t.Term]; !ok && len(toks) > 1024 {
					// The term shares its backing array with all the
					// piece's terms; keep only its own bytes.
					t.Term = strings.Clone(t.Term)
				}
				counts[t.Term]++
				ft.tokens++
				if i == 0 || t.Position != toks[i-1].Position {
					ft.normLen++
				}
			}
		}
		ft.terms = make([]string, 0, len(counts))
		for t := range counts {
			ft.terms = append(ft.terms, t)
		}
		ft.tfs = make([]uint32, len(ft.terms))
		for i, t := range ft.terms {
			ft.tfs[i] = counts[t]
		}
	}
	return ad, nil
}

// analyzeQuery returns the unique terms of text with their counts, in
// first-occurrence order.
func analyzeQuery(a analysis.Analyzer, text string) (terms []string, counts []int) {
	idx := map[string]int{}
	for _, t := range a.Analyze(text) {
		if t.Term == "" {
			continue
		}
		if i, ok := idx[t.Term]; ok {
			counts[i]++
			continue
		}
		idx[t.Term] = len(terms)
		terms = append(terms, t.Term)
		counts = append(counts, 1)
	}
	return terms, counts
}

// buildSegment inverts analysed documents into segment bytes.
func buildSegment(fields []string, docs []analyzedDoc) ([]byte, error) {
	var analyzers []string
	anIdx := map[string]int{}
	lengths := make([][]uint32, len(fields))
	norms := make([][]byte, len(fields))
	for f := range fields {
		lengths[f] = make([]uint32, len(docs))
		norms[f] = make([]byte, len(docs))
	}
	// plist is a term's postings, doc<<32 | tf.
	type plist struct {
		posts []uint64
	}
	type bpart struct {
		field, an        int
		docCount, sumTTF int64
		terms            map[string]*plist
	}
	parts := map[[2]int]*bpart{}
	metas := make([]docMeta, len(docs))
	for d := range docs {
		ad := &docs[d]
		ai, ok := anIdx[ad.analyzer]
		if !ok {
			ai = len(analyzers)
			anIdx[ad.analyzer] = ai
			analyzers = append(analyzers, ad.analyzer)
		}
		metas[d] = ad.meta
		metas[d].analyzer = ai
		for f := range ad.fields {
			ft := &ad.fields[f]
			if ft.tokens == 0 {
				continue
			}
			lengths[f][d] = ft.tokens
			norms[f][d] = intToByte4(ft.normLen)
			key := [2]int{f, ai}
			p := parts[key]
			if p == nil {
				p = &bpart{field: f, an: ai, terms: map[string]*plist{}}
				parts[key] = p
			}
			p.docCount++
			p.sumTTF += int64(ft.tokens)
			for i, t := range ft.terms {
				pl := p.terms[t]
				if pl == nil {
					pl = &plist{}
					p.terms[t] = pl
				}
				pl.posts = append(pl.posts, uint64(d)<<32|uint64(ft.tfs[i]))
			}
		}
	}
	keys := make([][2]int, 0, len(parts))
	for k := range parts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return analyzers[keys[i][1]] < analyzers[keys[j][1]]
	})
	enc := newSegEncoder()
	for _, k := range keys {
		p := parts[k]
		enc.beginPart(p.field, analyzers[p.an], p.docCount, p.sumTTF)
		// Sorted as (term, list) values: comparing through the list
		// pointers read a scattered object per comparison (27% of this
		// function's time indexing GOROOT/src).
		type entry struct {
			term string
			pl   *plist
		}
		terms := make([]entry, 0, len(p.terms))
		for t, pl := range p.terms {
			terms = append(terms, entry{t, pl})
		}
		slices.SortFunc(terms, func(a, b entry) int { return strings.Compare(a.term, b.term) })
		for _, e := range terms {
			if err := enc.addTerm(e.term, e.pl.posts, norms[p.field]); err != nil {
				return nil, err
			}
		}
	}
	return enc.finish(analyzers, fields, lengths, norms, metas), nil
}

func sortedKeys(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
