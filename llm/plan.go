package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/situate/situate/driver"
)

// headShare is the share of a document excerpt's budget given to the
// document's beginning; the rest goes to the passage leading up to the chunk.
const headShare = 0.25

// group is a set of chunks sharing one prompt prefix.
type group struct {
	prefix       string
	desc         string // window descriptor, part of the cache key
	chunks       []int
	prefixTokens int // estimated
}

// plan says how every chunk of a document is prompted.
type plan struct {
	groups       []group
	tooLarge     []int // chunks that do not fit even alone
	suffixTokens []int // estimated, per chunk
}

// planInput is what planning a document needs.
type planInput struct {
	doc       driver.Document
	chunks    []driver.Chunk
	tmpl      Template
	lang      string
	glossary  string // rendered glossary block
	window    int    // context window in tokens; 0 = unlimited
	maxTokens int    // output budget
	factor    float64
	// rawDoc, if > 0, is the document's raw o200k count (saves a count).
	rawDoc int
}

// fullPrefix is the prefix with the whole document.
func (in *planInput) fullPrefix() string { return in.tmpl.Prefix(in.doc.Text, in.glossary) }

func glossaryTag(glossary string) string {
	if glossary == "" {
		return ""
	}
	s := sha256.Sum256([]byte(glossary))
	return ":g" + hex.EncodeToString(s[:8])
}

// makePlan splits the chunks into prefix groups that fit the window.
func makePlan(in planInput) plan {
	n := len(in.chunks)
	sc := func(raw int) int { return scaled(raw, in.factor) }
	rawA, rawB := rawTokens(in.tmpl.suffixA), rawTokens(in.tmpl.suffixB)
	rawChunk := make([]int, n)
	p := plan{suffixTokens: make([]int, n)}
	for i, c := range in.chunks {
		rawChunk[i] = rawTokens(c.Text)
		p.suffixTokens[i] = sc(rawA + rawChunk[i] + rawB)
	}
	gtag := glossaryTag(in.glossary)
	full := in.fullPrefix()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	rawGloss := rawTokens(in.glossary)
	rawDoc := in.rawDoc
	if rawDoc <= 0 {
		rawDoc = rawTokens(in.doc.Text)
	}
	fullTok := sc(rawTokens(in.tmpl.before) + rawDoc + rawTokens(in.tmpl.after) + rawGloss)
	if in.window <= 0 {
		p.groups = []group{{prefix: full, desc: "full" + gtag, chunks: all, prefixTokens: fullTok}}
		return p
	}
	budget := in.window - in.maxTokens
	var fullG group
	var rest []int
	for i := range n {
		if fullTok+p.suffixTokens[i] <= budget {
			fullG.chunks = append(fullG.chunks, i)
		} else {
			rest = append(rest, i)
		}
	}
	if len(fullG.chunks) > 0 {
		fullG.prefix, fullG.desc, fullG.prefixTokens = full, "full"+gtag, fullTok
		p.groups = append(p.groups, fullG)
	}
	if len(rest) == 0 {
		return p
	}

	// Excerpts. Budgets are computed from the largest fitting chunk, not the
	// target's, so that consecutive chunks share a prefix.
	note := excerptNote(in.lang)
	rawSep := rawTokens("\n" + Omission + "\n")
	overhead := sc(rawTokens(in.tmpl.staticText()) + rawGloss + rawTokens(note+"\n") + 2*rawSep)
	var fit []int
	cmax := 0
	for _, i := range rest {
		if overhead+sc(rawChunk[i]) > budget {
			p.tooLarge = append(p.tooLarge, i)
			continue
		}
		fit = append(fit, i)
		cmax = max(cmax, sc(rawChunk[i]))
	}
	if len(fit) == 0 {
		return p
	}
	avail := budget - overhead - cmax
	tok := func(i int) int { return sc(rawChunk[i]) }
	// Head: the document's first chunks.
	h, headTok := 0, 0
	for h < n && headTok+tok(h) <= int(float64(avail)*headShare) {
		headTok += tok(h)
		h++
	}
	recent := avail - headTok
	// Blocks of chunks after the head, each at most half the recent budget:
	// every chunk of a block gets the same window (the block and the chunks
	// before it), so the window advances in steps.
	type block struct{ start, end int }
	var blocks []block
	for s := h; s < n; {
		e, t := s, 0
		for e < n && (e == s || t+tok(e) <= recent/2) {
			t += tok(e)
			e++
		}
		blocks = append(blocks, block{s, e})
		s = e
	}
	blockOf := func(i int) int {
		for k, b := range blocks {
			if i < b.end {
				return k
			}
		}
		return len(blocks) - 1
	}
	byBlock := map[int][]int{}
	var order []int
	for _, i := range fit {
		k := 0
		if len(blocks) > 0 {
			k = blockOf(i)
		}
		if _, ok := byBlock[k]; !ok {
			order = append(order, k)
		}
		byBlock[k] = append(byBlock[k], i)
	}
	for _, k := range order {
		targets := byBlock[k]
		hh, ws, we := h, h, h
		if len(blocks) > 0 {
			b := blocks[k]
			ws, we = b.start, b.end
			t := 0
			for j := ws; j < we; j++ {
				t += tok(j)
			}
			if t > recent { // one chunk larger than the recent budget
				ws, we = b.start, b.start
			} else {
				for ws > h && t+tok(ws-1) <= recent {
					ws--
					t += tok(ws)
				}
			}
		}
		// Verify the rendered prefix; shrink until every target fits.
		for {
			prefix := in.tmpl.Prefix(excerpt(in.doc, in.chunks, note, hh, ws, we), in.glossary)
			pt := sc(rawTokens(prefix))
			ok := true
			for _, t := range targets {
				if pt+p.suffixTokens[t] > budget {
					ok = false
					break
				}
			}
			if ok {
				p.groups = append(p.groups, group{
					prefix:       prefix,
					desc:         fmt.Sprintf("excerpt:h%d:w%d-%d:n%d%s", hh, ws, we, n, gtag),
					chunks:       targets,
					prefixTokens: pt,
				})
				break
			}
			if ws < we {
				ws++
				continue
			}
			if hh > 0 {
				hh--
				continue
			}
			p.tooLarge = append(p.tooLarge, targets...)
			break
		}
	}
	return p
}

// span returns the document text of chunks [i, j).
func span(doc driver.Document, chunks []driver.Chunk, i, j int) string {
	if i >= j {
		return ""
	}
	valid := true
	for k := i; k < j; k++ {
		c := chunks[k]
		if c.Start < 0 || c.End < c.Start || c.End > len(doc.Text) || (k > i && c.Start < chunks[k-1].Start) || doc.Text[c.Start:c.End] != c.Text {
			valid = false
			break
		}
	}
	if valid {
		return doc.Text[chunks[i].Start:chunks[j-1].End]
	}
	parts := make([]string, 0, j-i)
	for k := i; k < j; k++ {
		parts = append(parts, chunks[k].Text)
	}
	return strings.Join(parts, "\n")
}

// excerpt renders the document part of an excerpt prompt: the note, the
// first h chunks, and chunks [ws, we), with omissions marked.
func excerpt(doc driver.Document, chunks []driver.Chunk, note string, h, ws, we int) string {
	var b strings.Builder
	b.WriteString(note)
	b.WriteByte('\n')
	switch {
	case ws <= h && we > h:
		b.WriteString(span(doc, chunks, 0, we))
	case we > ws:
		if h > 0 {
			b.WriteString(span(doc, chunks, 0, h))
			b.WriteByte('\n')
		}
		b.WriteString(Omission)
		b.WriteByte('\n')
		b.WriteString(span(doc, chunks, ws, we))
	default:
		b.WriteString(span(doc, chunks, 0, h))
		we = h
	}
	if we < len(chunks) {
		b.WriteByte('\n')
		b.WriteString(Omission)
	}
	return b.String()
}
