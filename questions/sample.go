package questions

import (
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/driver"
)

// Source is one document with its chunks, as the engine splits it.
type Source struct {
	Doc    driver.Document
	Chunks []driver.Chunk
	// Lang is the document's language; empty means situate.ResolveLanguage.
	Lang string
}

// Pick is one sampled chunk.
type Pick struct {
	Source int // index into the sources
	Chunk  int // index into Source.Chunks
	Lang   string
}

// Skip reasons: why a chunk cannot carry a question.
const (
	SkipTooShort = "too-short" // fewer than Options.MinChunkTerms analysed terms
	SkipLicense  = "license"   // a licence or copyright notice
	SkipImports  = "imports"   // mostly import/include/package lines
	SkipTOC      = "toc"       // mostly a table of contents
)

// licenseRe recognises licence headers by their stock phrases.
var licenseRe = regexp.MustCompile(`(?i)(SPDX-License-Identifier|Licensed under the|Permission is hereby granted|All rights reserved|THE SOFTWARE IS PROVIDED|GNU (Lesser |Affero )?General Public License|Copyright \(c\)|Copyright ©|Apache License,? Version)`)

// importRe matches one line of an import block in the languages the chunker
// knows: Go/Java/Python/JS/TS imports, C #include, Rust use/extern crate,
// C# using, package clauses, require(...) lines, and the bare quoted paths
// and parentheses inside a Go import ( ... ) block.
var importRe = regexp.MustCompile(`^\s*(import\b|from\s+\S+\s+import\b|#\s*include\b|use\s+[\w:{}]+|extern crate\b|using\s+[\w.]+\s*;|package\s+[\w.]+\s*;?\s*$|(const|let|var)\s+.*=\s*require\(|"[^"]*"\s*$|[\w.]+\s+"[^"]*"\s*$|\)\s*$|\(\s*$)`)

// tocRe matches one line of a table of contents: a list item that is only a
// link ("- [Install](#install)"), a line ending in dot leaders and a page
// number ("Introduction ........ 3"), or a numbered heading list entry with a
// trailing page number ("2.1 Setup 14").
var tocRe = regexp.MustCompile(`^\s*(([-*+]|\d+[.)])\s*\[[^\]]+\]\([^)]*\)\s*$|.*(\.{3,}|…{2,}|\s·\s)\s*\d+\s*$|\d+(\.\d+)*\.?\s+\S.{0,60}\s\d{1,4}\s*$)`)

// tocHeadRe matches a contents heading in the five languages.
var tocHeadRe = regexp.MustCompile(`(?im)^\s*#*\s*(table of contents|contents|inhaltsverzeichnis|inhalt|índice|contenido|содержание|оглавление|目录|目錄)\s*:?\s*$`)

// Skip says why a chunk cannot carry a question, or "" when it can. How
// each kind is recognised:
//   - too-short: the chunk has fewer than minTerms terms after the
//     language's analyzer (stop words removed);
//   - license: a stock licence phrase occurs (SPDX-License-Identifier,
//     "Licensed under the", "Permission is hereby granted", "All rights
//     reserved", "Copyright (c)", GPL/Apache names...);
//   - imports: at least 60% of the non-blank lines are import, include,
//     use, using, package or require lines (or the quoted paths of a Go
//     import block);
//   - toc: at least 60% of the non-blank lines are link-only list items or
//     end in dot leaders and a page number, or a "Contents" heading (in
//     en/de/es/ru/zh) opens a chunk whose lines are mostly list items.
func Skip(text, lang string, minTerms int) string {
	if licenseRe.MatchString(text) {
		return SkipLicense
	}
	var lines, imports, toc, items int
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines++
		if importRe.MatchString(l) {
			imports++
		}
		if tocRe.MatchString(l) {
			toc++
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || (len(t) > 2 && t[0] >= '0' && t[0] <= '9' && strings.ContainsAny(t[:3], ".)")) {
			items++
		}
	}
	if lines > 0 && imports*10 >= lines*6 {
		return SkipImports
	}
	if lines > 0 && (toc*10 >= lines*6 || (tocHeadRe.MatchString(text) && items*10 >= (lines-1)*6)) {
		return SkipTOC
	}
	if len(analysis.ForLanguage(lang).Analyze(text)) < minTerms {
		return SkipTooShort
	}
	return ""
}

// Sample draws up to n chunks, reproducibly for a seed: the usable chunks
// (Skip == "") are grouped into strata by (language, format); each stratum
// gets a share of n proportional to its usable chunks (largest remainders,
// and at least one while n allows), and within a stratum documents are
// visited round-robin in a seeded order, each visit taking a seeded random
// chunk not taken yet. The picks come back in a stable order (stratum, then
// draw order). skipped counts the unusable chunks by reason.
func Sample(srcs []Source, n int, seed uint64, minTerms int) (picks []Pick, skipped map[string]int) {
	skipped = map[string]int{}
	type docPool struct {
		src    int
		chunks []int
	}
	strata := map[string][]*docPool{}
	for i, s := range srcs {
		lang := s.Lang
		if lang == "" {
			lang = driver.ResolveLanguage(s.Doc)
		}
		var ok []int
		for j, c := range s.Chunks {
			if why := Skip(c.Text, lang, minTerms); why != "" {
				skipped[why]++
				continue
			}
			ok = append(ok, j)
		}
		if len(ok) > 0 {
			key := lang + "/" + s.Doc.Format
			strata[key] = append(strata[key], &docPool{src: i, chunks: ok})
		}
	}
	keys := make([]string, 0, len(strata))
	total := 0
	size := map[string]int{}
	for k, ds := range strata {
		keys = append(keys, k)
		for _, d := range ds {
			size[k] += len(d.chunks)
		}
		total += size[k]
	}
	sort.Strings(keys)
	if n > total {
		n = total
	}
	if n <= 0 {
		return nil, skipped
	}
	// Proportional allocation, at least one per stratum while n allows,
	// the rest by largest remainder (ties by key order).
	alloc := map[string]int{}
	left := n
	if n >= len(keys) {
		for _, k := range keys {
			alloc[k] = 1
			left--
		}
	}
	type rem struct {
		k string
		r float64
	}
	var rems []rem
	for _, k := range keys {
		exact := float64(left) * float64(size[k]) / float64(total)
		room := size[k] - alloc[k]
		a := min(int(exact), room)
		alloc[k] += a
		rems = append(rems, rem{k, exact - float64(int(exact))})
	}
	used := 0
	for _, k := range keys {
		used += alloc[k]
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].r > rems[j].r })
	for used < n {
		progress := false
		for _, r := range rems {
			if used < n && alloc[r.k] < size[r.k] {
				alloc[r.k]++
				used++
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x5e17a7e))
	for _, k := range keys {
		ds := strata[k]
		order := rng.Perm(len(ds))
		want := alloc[k]
		for want > 0 {
			took := false
			for _, di := range order {
				d := ds[di]
				if want == 0 || len(d.chunks) == 0 {
					continue
				}
				j := rng.IntN(len(d.chunks))
				ci := d.chunks[j]
				d.chunks = append(d.chunks[:j], d.chunks[j+1:]...)
				lang, _, _ := strings.Cut(k, "/")
				picks = append(picks, Pick{Source: d.src, Chunk: ci, Lang: lang})
				want--
				took = true
			}
			if !took {
				break
			}
		}
	}
	return picks, skipped
}
