package rank_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/situate/situate/analysis"
	"github.com/situate/situate/bm25"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/rank"
)

// Round 3 (EVAL.md "Round 3: within-document levers"): levers that reorder
// the chunks of one document after recipe v2. This harness runs recipe v2
// with the real bm25 indexes once, keeps every query's whole blended
// candidate list, then applies each lever in float64 and prints tune,
// report and all Pass@5/10/20. It is slow-ish and prints a grid, so it only
// runs with SITUATE_ROUND3=1.

// sparse is an L2-normalised tf-idf vector, terms sorted by id.
type sparse struct {
	ids []int
	ws  []float64
}

func (a sparse) dot(b sparse) float64 {
	s, i, j := 0.0, 0, 0
	for i < len(a.ids) && j < len(b.ids) {
		switch {
		case a.ids[i] == b.ids[j]:
			s += a.ws[i] * b.ws[j]
			i++
			j++
		case a.ids[i] < b.ids[j]:
			i++
		default:
			j++
		}
	}
	return s
}

// vocab maps terms to ids and keeps document frequencies over the chunks.
type vocab struct {
	id map[string]int
	df []int
	n  int
}

func terms(a analysis.Analyzer, text string) []string {
	toks := a.Analyze(text)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Term
	}
	return out
}

func newVocab(docs [][]string) *vocab {
	v := &vocab{id: map[string]int{}, n: len(docs)}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, t := range d {
			if seen[t] {
				continue
			}
			seen[t] = true
			i, ok := v.id[t]
			if !ok {
				i = len(v.df)
				v.id[t] = i
				v.df = append(v.df, 0)
			}
			v.df[i]++
		}
	}
	return v
}

// vector is the (1+ln tf)·ln(N/df) vector of ts, L2-normalised; unknown
// terms are dropped.
func (v *vocab) vector(ts []string) sparse {
	tf := map[int]int{}
	for _, t := range ts {
		if i, ok := v.id[t]; ok {
			tf[i]++
		}
	}
	var s sparse
	for i := range tf {
		s.ids = append(s.ids, i)
	}
	sort.Ints(s.ids)
	norm := 0.0
	for _, i := range s.ids {
		w := (1 + math.Log(float64(tf[i]))) * math.Log(float64(v.n)/float64(v.df[i]))
		s.ws = append(s.ws, w)
		norm += w * w
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for k := range s.ws {
			s.ws[k] /= norm
		}
	}
	return s
}

// r3Query is one query's recipe v2 result with what the levers need.
type r3Query struct {
	q        eval.Query
	hits     []rank.Hit         // recipe v2, whole candidate list, blended
	combined map[string]float64 // Combine(lang, code) score per chunk
	vec      map[string]sparse  // query vector per analyzer
	context  map[string]float64 // BM25 (english) of the chunk's context alone
}

// r3 holds the corpus side.
type r3 struct {
	ds        *eval.Dataset
	ref       map[string]eval.Ranked
	docChunks map[string][]string          // document -> chunk ids in order
	vec       map[string]map[string]sparse // analyzer -> chunk id -> vector
	lsa       map[string]map[string][]float64
	lsaTerm   map[string][][]float64 // analyzer -> term id -> k-vector
	vocabs    map[string]*vocab
	queries   []r3Query
	tune, rep []eval.Query
}

func r3Setup(t *testing.T) *r3 {
	if os.Getenv("SITUATE_ROUND3") == "" {
		t.Skip("set SITUATE_ROUND3=1 to run the round-3 lever grid")
	}
	return r3Build(t, loadCodebase(t), "en", true)
}

// langAnalyzer is the "english" vector space's analyzer: the language's.
func langAnalyzer(name, lang string) analysis.Analyzer {
	if name == "english" {
		return analysis.ForLanguage(lang)
	}
	a, err := analysis.New(name)
	if err != nil {
		panic(err)
	}
	return a
}

// r3Build runs recipe v2 (the language arm analysing by lang) over ds,
// indexing "chunk\n\ncontext" when withContext, the raw chunk otherwise.
func r3Build(t *testing.T, ds *eval.Dataset, lang string, withContext bool) *r3 {
	r := &r3{ds: ds, ref: map[string]eval.Ranked{}, docChunks: map[string][]string{}, vec: map[string]map[string]sparse{}, vocabs: map[string]*vocab{}}
	r.tune, r.rep = eval.Split(ds.Queries, splitSeed)
	var chunks []chunkText
	var ids []string
	for _, d := range ds.Docs {
		for _, c := range d.Chunks {
			text := c.Text
			if withContext {
				text += "\n\n" + c.Context
			}
			chunks = append(chunks, chunkText{doc: d.ID, index: c.Index, lang: lang, text: text})
			id := chunkID(d.ID, c.Index)
			ids = append(ids, id)
			r.ref[id] = eval.Ranked{DocID: d.ID, Chunk: c.Index}
			r.docChunks[d.ID] = append(r.docChunks[d.ID], id)
		}
	}
	for _, name := range []string{"english", "code"} {
		a := langAnalyzer(name, lang)
		var docs [][]string
		for _, c := range chunks {
			docs = append(docs, terms(a, c.text))
		}
		v := newVocab(docs)
		r.vocabs[name] = v
		r.vec[name] = map[string]sparse{}
		for i, id := range ids {
			r.vec[name][id] = v.vector(docs[i])
		}
	}
	p := recipe
	if lang != "en" {
		p = forLanguage(recipe)
	}
	s := newSearcher(t, p, chunks, indexes{})
	var ctxIx *searcher
	if withContext {
		var ctx []chunkText
		for _, d := range ds.Docs {
			for _, c := range d.Chunks {
				ctx = append(ctx, chunkText{doc: d.ID, index: c.Index, lang: lang, text: c.Context})
			}
		}
		ctxIx = newSearcher(t, pipeline{arms: []arm{{analyzer: "english", weight: 1, k1: rank.DefaultK1, b: rank.DefaultB}}}, ctx, indexes{})
	}
	for _, q := range ds.Queries {
		qr := r3Query{q: q, vec: map[string]sparse{}, combined: map[string]float64{}, context: map[string]float64{}}
		if ctxIx != nil {
			res, err := ctxIx.ixs[0].Search(bm25.Query{Text: q.Text, K: len(ids)})
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range res {
				qr.context[x.ID] = x.Score
			}
		}
		var lists [][]rank.Hit
		for i, ix := range s.ixs {
			text := q.Text
			if a := s.p.arms[i]; a.pairs {
				text = pairText(a.analyzer, lang, q.Text)
			}
			res, err := ix.Search(bm25.Query{Text: text, K: rank.DefaultCandidates})
			if err != nil {
				t.Fatal(err)
			}
			hits := make([]rank.Hit, len(res))
			for i, x := range res {
				hits[i] = rank.Hit{ID: x.ID, Doc: x.Group, Score: x.Score}
			}
			lists = append(lists, hits)
		}
		comb, err := rank.Combine(lists[:2], []float64{1, rank.DefaultCodeWeight})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range comb {
			qr.combined[h.ID] = h.Score
		}
		hits, err := rank.DocumentEvidence(comb, lists[2], rank.DefaultPairWeight)
		if err != nil {
			t.Fatal(err)
		}
		if hits, err = rank.DocumentBlend(hits, rank.DefaultDocumentWeight); err != nil {
			t.Fatal(err)
		}
		qr.hits = hits
		for _, name := range []string{"english", "code"} {
			qr.vec[name] = r.vocabs[name].vector(terms(langAnalyzer(name, lang), q.Text))
		}
		r.queries = append(r.queries, qr)
	}
	return r
}

// eval scores a lever (a function from one query's recipe list to a new
// list) on tune, report and all.
func (r *r3) eval(lever func(q *r3Query) []rank.Hit) (tune, rep, all [3]float64) {
	run := eval.Run{}
	for i := range r.queries {
		q := &r.queries[i]
		hits := lever(q)
		var out []eval.Ranked
		for _, h := range hits[:min(20, len(hits))] {
			out = append(out, r.ref[h.ID])
		}
		run[q.q.ID] = out
	}
	return passAt(r.ds, run, r.tune), passAt(r.ds, run, r.rep), passAt(r.ds, run, r.ds.Queries)
}

func (r *r3) row(t *testing.T, name string, lever func(q *r3Query) []rank.Hit) [3]float64 {
	tr, rp, all := r.eval(lever)
	t.Logf("%-72s | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f", name, tr[0], tr[1], tr[2], rp[0], rp[1], rp[2], all[0], all[1], all[2])
	return tr
}

// withMissing returns hits plus, for the first topDocs documents, their
// chunks that no arm returned, scored with the document's bonus only (what
// DocumentEvidence and DocumentBlend gave the document's other chunks).
func (r *r3) withMissing(q *r3Query, topDocs int) []rank.Hit {
	out := append([]rank.Hit(nil), q.hits...)
	in := map[string]bool{}
	for _, h := range q.hits {
		in[h.ID] = true
	}
	done := map[string]bool{}
	for _, h := range q.hits {
		if done[h.Doc] {
			continue
		}
		if len(done) == topDocs {
			break
		}
		done[h.Doc] = true
		bonus := h.Score - q.combined[h.ID]
		for _, id := range r.docChunks[h.Doc] {
			if !in[id] {
				out = append(out, rank.Hit{ID: id, Doc: h.Doc, Score: bonus})
			}
		}
	}
	rank.Sort(out)
	return out
}

// feedback: within each of the first topDocs documents (0 = all), every
// chunk gains w × (the document's best score) × cos(chunk, centroid of the
// document's m best chunks); exclude drops the query's own terms from the
// centroid (pure feedback terms).
func (r *r3) feedback(q *r3Query, hits []rank.Hit, an string, topDocs, m int, w float64, exclude bool) []rank.Hit {
	out := append([]rank.Hit(nil), hits...)
	type piv struct {
		best float64
		cen  map[int]float64
		n    int
	}
	docs := map[string]*piv{}
	var order []string
	qterms := map[int]bool{}
	if exclude {
		for _, i := range q.vec[an].ids {
			qterms[i] = true
		}
	}
	for _, h := range hits {
		p, ok := docs[h.Doc]
		if !ok {
			if topDocs > 0 && len(order) == topDocs {
				continue
			}
			p = &piv{best: h.Score, cen: map[int]float64{}}
			docs[h.Doc] = p
			order = append(order, h.Doc)
		}
		if p.n < m {
			p.n++
			v := r.vec[an][h.ID]
			for k, i := range v.ids {
				if !qterms[i] {
					p.cen[i] += v.ws[k]
				}
			}
		}
	}
	cens := map[string]sparse{}
	for d, p := range docs {
		var s sparse
		for i := range p.cen {
			s.ids = append(s.ids, i)
		}
		sort.Ints(s.ids)
		norm := 0.0
		for _, i := range s.ids {
			s.ws = append(s.ws, p.cen[i])
			norm += p.cen[i] * p.cen[i]
		}
		if norm > 0 {
			for k := range s.ws {
				s.ws[k] /= math.Sqrt(norm)
			}
		}
		cens[d] = s
	}
	for i, h := range out {
		p, ok := docs[h.Doc]
		if !ok {
			continue
		}
		out[i].Score += w * p.best * r.vec[an][h.ID].dot(cens[h.Doc])
	}
	rank.Sort(out)
	return out
}

// queryCos: every candidate of the first topDocs documents (0 = all) gains
// w × (its document's best score) × cos(query, chunk) in the tf-idf or LSA
// space.
func (r *r3) queryCos(q *r3Query, hits []rank.Hit, an string, useLSA bool, topDocs int, w float64) []rank.Hit {
	out := append([]rank.Hit(nil), hits...)
	best := map[string]float64{}
	var qv []float64
	if useLSA {
		qv = r.lsaQuery(an, q.vec[an])
	}
	for _, h := range hits {
		if _, ok := best[h.Doc]; !ok && (topDocs == 0 || len(best) < topDocs) {
			best[h.Doc] = h.Score
		}
	}
	for i, h := range out {
		b, ok := best[h.Doc]
		if !ok {
			continue
		}
		var c float64
		if useLSA {
			c = cosine(qv, r.lsa[an][h.ID])
		} else {
			c = q.vec[an].dot(r.vec[an][h.ID])
		}
		out[i].Score += w * b * c
	}
	rank.Sort(out)
	return out
}

// neighbours: within each of the first topDocs documents (0 = all), a
// chunk adjacent (index ± 1) to one of the document's m best chunks gains
// w × the document's best score; missing adds the top document's chunks
// that no arm returned first (r.withMissing with topDocs).
func (r *r3) neighbours(q *r3Query, hits []rank.Hit, topDocs, m int, w float64) []rank.Hit {
	out := append([]rank.Hit(nil), hits...)
	type piv struct {
		best float64
		idx  map[int]bool
		n    int
	}
	docs := map[string]*piv{}
	n := 0
	for _, h := range hits {
		p, ok := docs[h.Doc]
		if !ok {
			if topDocs > 0 && n == topDocs {
				continue
			}
			n++
			p = &piv{best: h.Score, idx: map[int]bool{}}
			docs[h.Doc] = p
		}
		if p.n < m {
			p.n++
			p.idx[r.ref[h.ID].Chunk] = true
		}
	}
	for i, h := range out {
		p, ok := docs[h.Doc]
		if !ok {
			continue
		}
		c := r.ref[h.ID].Chunk
		if !p.idx[c] && (p.idx[c-1] || p.idx[c+1]) {
			out[i].Score += w * p.best
		}
	}
	rank.Sort(out)
	return out
}

// position: within each of the first topDocs documents (0 = all), every
// chunk gains w × the document's best score / (1 + its index).
func (r *r3) position(q *r3Query, hits []rank.Hit, topDocs int, w float64) []rank.Hit {
	return r.positionShape(q, hits, topDocs, w, "inv")
}

// positionShape is position with the prior's shape: "inv" 1/(1+i),
// "sqrt" 1/sqrt(1+i), "first" [i == 0], "first2" [i <= 1], "exp" 2^-i.
func (r *r3) positionShape(q *r3Query, hits []rank.Hit, topDocs int, w float64, shape string) []rank.Hit {
	out := append([]rank.Hit(nil), hits...)
	best := map[string]float64{}
	for _, h := range hits {
		if _, ok := best[h.Doc]; !ok && (topDocs == 0 || len(best) < topDocs) {
			best[h.Doc] = h.Score
		}
	}
	for i, h := range out {
		if b, ok := best[h.Doc]; ok {
			out[i].Score += w * b * prior(shape, r.ref[h.ID].Chunk)
		}
	}
	rank.Sort(out)
	return out
}

// topDoc: the chunks of the first topDocs documents gain extra × the best
// score of the first document, when the first document's best score is at
// least ratio × the next document's best.
func (r *r3) topDoc(q *r3Query, hits []rank.Hit, topDocs int, extra, ratio float64) []rank.Hit {
	out := append([]rank.Hit(nil), hits...)
	var bests []float64
	docs := map[string]bool{}
	for _, h := range hits {
		if !docs[h.Doc] {
			docs[h.Doc] = true
			bests = append(bests, h.Score)
		}
		if len(bests) > topDocs {
			break
		}
	}
	if len(bests) > topDocs && bests[0] < ratio*bests[topDocs] {
		return out
	}
	top := map[string]bool{}
	for _, h := range hits {
		if len(top) == topDocs && !top[h.Doc] {
			continue
		}
		top[h.Doc] = true
	}
	for i, h := range out {
		if top[h.Doc] {
			out[i].Score += extra * bests[0]
		}
	}
	rank.Sort(out)
	return out
}

// contextReorder: within each of the first topDocs documents (0 = all),
// every chunk gains w × the document's best score × (its context-only BM25
// score / the document's best context-only score).
func (r *r3) contextReorder(q *r3Query, hits []rank.Hit, topDocs int, w float64) []rank.Hit {
	out := append([]rank.Hit(nil), hits...)
	best := map[string]float64{}
	for _, h := range hits {
		if _, ok := best[h.Doc]; !ok && (topDocs == 0 || len(best) < topDocs) {
			best[h.Doc] = h.Score
		}
	}
	cbest := map[string]float64{}
	for id, sc := range q.context {
		d := r.ref[id].DocID
		if sc > cbest[d] {
			cbest[d] = sc
		}
	}
	for i, h := range out {
		b, ok := best[h.Doc]
		if !ok || cbest[h.Doc] == 0 {
			continue
		}
		out[i].Score += w * b * q.context[h.ID] / cbest[h.Doc]
	}
	rank.Sort(out)
	return out
}

func prior(shape string, i int) float64 {
	switch shape {
	case "inv":
		return 1 / float64(1+i)
	case "sqrt":
		return 1 / math.Sqrt(float64(1+i))
	case "first":
		if i == 0 {
			return 1
		}
	case "first2":
		if i <= 1 {
			return 1
		}
	case "exp":
		return math.Pow(2, -float64(i))
	}
	return 0
}

func cosine(a, b []float64) float64 {
	var d, na, nb float64
	for i := range a {
		d += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

func (r *r3) lsaQuery(an string, v sparse) []float64 {
	tv := r.lsaTerm[an]
	out := make([]float64, len(tv[0]))
	for k, i := range v.ids {
		for j, x := range tv[i] {
			out[j] += v.ws[k] * x
		}
	}
	return out
}

// buildLSA computes a rank-k truncated SVD of the chunk × term tf-idf
// matrix (randomised range finder with power iterations, Halko et al.
// 2011) and keeps chunk vectors (rows of A·V_k) and term vectors (rows of
// V_k).
func (r *r3) buildLSA(an string, k int) {
	if r.lsa == nil {
		r.lsa = map[string]map[string][]float64{}
		r.lsaTerm = map[string][][]float64{}
	}
	var ids []string
	for _, d := range r.ds.Docs {
		for _, c := range d.Chunks {
			ids = append(ids, chunkID(d.ID, c.Index))
		}
	}
	rows := make([]sparse, len(ids))
	for i, id := range ids {
		rows[i] = r.vec[an][id]
	}
	nt := len(r.vocabs[an].df)
	vk := truncatedSVD(rows, nt, k, 10, 4)
	r.lsaTerm[an] = vk
	r.lsa[an] = map[string][]float64{}
	for i, id := range ids {
		out := make([]float64, k)
		for kk, t := range rows[i].ids {
			for j := range k {
				out[j] += rows[i].ws[kk] * vk[t][j]
			}
		}
		r.lsa[an][id] = out
	}
}

// truncatedSVD returns V_k (nt × k) of the sparse matrix rows (n × nt).
func truncatedSVD(rows []sparse, nt, k, over, iters int) [][]float64 {
	l := k + over
	rng := rand.New(rand.NewPCG(1, 2))
	// Work on A^T (nt × n) range: Z = A^T Ω, Ω n × l; then power iterations
	// Z = A^T A Z; orthonormalise; B = A Z (n × l); SVD of B^T B (l × l).
	n := len(rows)
	mulA := func(z [][]float64) [][]float64 { // (n × l) = A (nt × l)
		out := make([][]float64, n)
		for i, r := range rows {
			o := make([]float64, l)
			for kk, t := range r.ids {
				w := r.ws[kk]
				for j := range l {
					o[j] += w * z[t][j]
				}
			}
			out[i] = o
		}
		return out
	}
	mulAT := func(y [][]float64) [][]float64 { // (nt × l) = A^T (n × l)
		out := make([][]float64, nt)
		for t := range out {
			out[t] = make([]float64, l)
		}
		for i, r := range rows {
			for kk, t := range r.ids {
				w := r.ws[kk]
				for j := range l {
					out[t][j] += w * y[i][j]
				}
			}
		}
		return out
	}
	omega := make([][]float64, n)
	for i := range omega {
		omega[i] = make([]float64, l)
		for j := range l {
			omega[i][j] = rng.NormFloat64()
		}
	}
	z := mulAT(omega)
	orthonormalise(z)
	for range iters {
		z = mulAT(mulA(z))
		orthonormalise(z)
	}
	b := mulA(z) // n × l; A ≈ B Z^T
	// B^T B = W Λ W^T; right singular vectors of A ≈ Z W.
	g := make([][]float64, l)
	for i := range g {
		g[i] = make([]float64, l)
	}
	for _, row := range b {
		for i := range l {
			for j := range l {
				g[i][j] += row[i] * row[j]
			}
		}
	}
	vals, vecs := jacobiEigen(g)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, c int) bool { return vals[order[a]] > vals[order[c]] })
	vk := make([][]float64, nt)
	for t := range vk {
		vk[t] = make([]float64, k)
		for j := range k {
			col := order[j]
			s := 0.0
			for i := range l {
				s += z[t][i] * vecs[i][col]
			}
			vk[t][j] = s
		}
	}
	return vk
}

// orthonormalise orthonormalises the columns of z (rows × l) by modified
// Gram-Schmidt, twice for stability.
func orthonormalise(z [][]float64) {
	l := len(z[0])
	for range 2 {
		for j := range l {
			for p := range j {
				d := 0.0
				for _, r := range z {
					d += r[j] * r[p]
				}
				for _, r := range z {
					r[j] -= d * r[p]
				}
			}
			nrm := 0.0
			for _, r := range z {
				nrm += r[j] * r[j]
			}
			nrm = math.Sqrt(nrm)
			if nrm > 0 {
				for _, r := range z {
					r[j] /= nrm
				}
			}
		}
	}
}

// jacobiEigen diagonalises a symmetric matrix: eigenvalues and eigenvectors
// (columns).
func jacobiEigen(a [][]float64) ([]float64, [][]float64) {
	n := len(a)
	m := make([][]float64, n)
	v := make([][]float64, n)
	for i := range n {
		m[i] = append([]float64(nil), a[i]...)
		v[i] = make([]float64, n)
		v[i][i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for i := range n {
			for j := i + 1; j < n; j++ {
				off += m[i][j] * m[i][j]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				if math.Abs(m[p][q]) < 1e-300 {
					continue
				}
				theta := (m[q][q] - m[p][p]) / (2 * m[p][q])
				tt := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					tt = -tt
				}
				c := 1 / math.Sqrt(tt*tt+1)
				s := tt * c
				for k := range n {
					mkp, mkq := m[k][p], m[k][q]
					m[k][p] = c*mkp - s*mkq
					m[k][q] = s*mkp + c*mkq
				}
				for k := range n {
					mpk, mqk := m[p][k], m[q][k]
					m[p][k] = c*mpk - s*mqk
					m[q][k] = s*mpk + c*mqk
				}
				for k := range n {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p] = c*vkp - s*vkq
					v[k][q] = s*vkp + c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range n {
		vals[i] = m[i][i]
	}
	return vals, v
}

// diagnose prints, for queries that lose golden chunks at @10 while their
// document ranks first, where the golden chunks sit.
func (r *r3) diagnose(t *testing.T) {
	for _, q := range r.queries {
		pos := map[string]int{}
		for i, h := range q.hits {
			pos[h.ID] = i + 1
		}
		var parts []string
		late := false
		for _, g := range q.q.Golden {
			p := pos[chunkID(g.DocID, g.Index)]
			if p == 0 || p > 10 {
				late = true
			}
			parts = append(parts, fmt.Sprint(p))
		}
		if late {
			half := "report"
			for _, x := range r.tune {
				if x.ID == q.q.ID {
					half = "tune"
				}
			}
			t.Logf("%s %s top doc ok=%v golden ranks %s (doc has %d chunks): %s", q.q.ID, half, q.hits[0].Doc == q.q.Golden[0].DocID, strings.Join(parts, ","), len(r.docChunks[q.q.Golden[0].DocID]), q.q.Text)
		}
	}
}

func TestRound3Levers(t *testing.T) {
	r := r3Setup(t)
	if os.Getenv("SITUATE_ROUND3_DIAG") != "" {
		r.diagnose(t)
	}
	t.Logf("%-72s | %-20s | %-20s | %-20s", "lever (Pass@5 @10 @20)", "tune (124)", "report (124)", "all (248)")
	base := func(q *r3Query) []rank.Hit { return q.hits }
	r.row(t, "recipe v2", base)
	r.row(t, "recipe v2 + missing chunks of top 1 doc", func(q *r3Query) []rank.Hit { return r.withMissing(q, 1) })
	if os.Getenv("SITUATE_ROUND3_A") != "" {
		for _, an := range []string{"code", "english"} {
			for _, top := range []int{1, 3, 0} {
				for _, m := range []int{1, 2, 3} {
					for _, ex := range []bool{false, true} {
						for _, w := range []float64{0.05, 0.1, 0.2, 0.4} {
							name := fmt.Sprintf("feedback %s top=%d m=%d excl=%v w=%.2f", an, top, m, ex, w)
							r.row(t, name, func(q *r3Query) []rank.Hit { return r.feedback(q, q.hits, an, top, m, w, ex) })
						}
					}
				}
			}
		}
		for _, an := range []string{"code", "english"} {
			for _, top := range []int{1, 3, 0} {
				for _, w := range []float64{0.05, 0.1, 0.2, 0.4} {
					name := fmt.Sprintf("tf-idf cosine %s top=%d w=%.2f", an, top, w)
					r.row(t, name, func(q *r3Query) []rank.Hit { return r.queryCos(q, q.hits, an, false, top, w) })
				}
			}
		}
	}
	for _, miss := range []int{0, 1} {
		for _, top := range []int{1, 3, 0} {
			for _, m := range []int{1, 2, 3} {
				for _, w := range []float64{0.02, 0.05, 0.1, 0.2} {
					name := fmt.Sprintf("neighbours missing=%d top=%d m=%d w=%.2f", miss, top, m, w)
					r.row(t, name, func(q *r3Query) []rank.Hit { return r.neighbours(q, r.withMissing(q, miss), top, m, w) })
				}
			}
		}
		for _, top := range []int{1, 3, 0} {
			for _, w := range []float64{0.02, 0.05, 0.1, 0.2} {
				name := fmt.Sprintf("position 1/(1+i) missing=%d top=%d w=%.2f", miss, top, w)
				r.row(t, name, func(q *r3Query) []rank.Hit { return r.position(q, r.withMissing(q, miss), top, w) })
			}
		}
	}
	if os.Getenv("SITUATE_ROUND3_LSA") != "" {
		for _, an := range []string{"code", "english"} {
			for _, k := range []int{64, 128, 256} {
				r.buildLSA(an, k)
				for _, top := range []int{1, 3, 0} {
					for _, w := range []float64{0.05, 0.1, 0.2, 0.4} {
						name := fmt.Sprintf("LSA cosine %s k=%d top=%d w=%.2f", an, k, top, w)
						r.row(t, name, func(q *r3Query) []rank.Hit { return r.queryCos(q, q.hits, an, true, top, w) })
					}
				}
			}
		}
	}
}

func TestRound3Show(t *testing.T) {
	r := r3Setup(t)
	want := map[string]bool{}
	for _, id := range strings.Split(os.Getenv("SITUATE_ROUND3_SHOW"), ",") {
		want[id] = true
	}
	text := map[string]string{}
	for _, d := range r.ds.Docs {
		for _, c := range d.Chunks {
			text[chunkID(d.ID, c.Index)] = c.Text + "\n   CTX: " + c.Context
		}
	}
	for _, q := range r.queries {
		if !want[q.q.ID] {
			continue
		}
		gold := map[string]bool{}
		for _, g := range q.q.Golden {
			gold[chunkID(g.DocID, g.Index)] = true
		}
		t.Logf("==== %s %s", q.q.ID, q.q.Text)
		for i, h := range q.hits[:min(35, len(q.hits))] {
			mark := " "
			if gold[h.ID] {
				mark = "*"
			}
			s := strings.ReplaceAll(text[h.ID], "\n", " | ")
			t.Logf("%s%2d %-12s %.2f comb %.2f %.300s", mark, i+1, h.ID, h.Score, q.combined[h.ID], s)
		}
	}
}

// xquadRow prints hit@1, hit@5, MRR@10 of a lever on all questions.
func (r *r3) xquadRow(t *testing.T, name string, lever func(q *r3Query) []rank.Hit) [2]float64 {
	run := eval.Run{}
	for i := range r.queries {
		q := &r.queries[i]
		hits := lever(q)
		var out []eval.Ranked
		for _, h := range hits[:min(20, len(hits))] {
			out = append(out, r.ref[h.ID])
		}
		run[q.q.ID] = out
	}
	res, _ := eval.Evaluate(r.ds, run)
	m := res.Metrics
	t.Logf("%-60s hit@1 %.2f hit@5 %.2f hit@20 %.2f MRR@10 %.4f", name, 100*m[eval.KeyHit1], 100*m[eval.KeyHit5], 100*m[eval.KeyHit20], m[eval.KeyMRR10])
	return [2]float64{100 * m[eval.KeyHit1], m[eval.KeyMRR10]}
}

func TestRound3XQuAD(t *testing.T) {
	if os.Getenv("SITUATE_ROUND3") == "" {
		t.Skip("set SITUATE_ROUND3=1 to run the round-3 lever grid")
	}
	for _, lang := range []string{"en", "de"} {
		ds, err := eval.LoadSQuAD(sharedData(t, "xquad/xquad."+lang+".json"), lang)
		if err != nil {
			t.Fatal(err)
		}
		r := r3Build(t, ds, lang, false)
		t.Logf("---- XQuAD %s", lang)
		r.xquadRow(t, "recipe v2", func(q *r3Query) []rank.Hit { return q.hits })
		r.xquadRow(t, "recipe v2 + missing chunks of top 1 doc", func(q *r3Query) []rank.Hit { return r.withMissing(q, 1) })
		for _, top := range []int{3, 0} {
			for _, w := range []float64{0.05, 0.1, 0.2} {
				r.xquadRow(t, fmt.Sprintf("tf-idf cosine code top=%d w=%.2f", top, w), func(q *r3Query) []rank.Hit { return r.queryCos(q, q.hits, "code", false, top, w) })
			}
		}
		for _, top := range []int{1, 3, 0} {
			for _, w := range []float64{0.05, 0.1, 0.2} {
				r.xquadRow(t, fmt.Sprintf("position 1/(1+i) top=%d w=%.2f", top, w), func(q *r3Query) []rank.Hit { return r.position(q, q.hits, top, w) })
			}
		}
		for _, e := range []float64{0.1, 0.2, 0.4} {
			r.xquadRow(t, fmt.Sprintf("top-document lift top=1 ratio=1.50 extra=%.2f", e), func(q *r3Query) []rank.Hit { return r.topDoc(q, q.hits, 1, e, 1.5) })
		}
	}
}

// TestRound3Position is the finer grid of the position prior: codebase
// halves and XQuAD en/de for every shape, weight and document cut.
func TestRound3Position(t *testing.T) {
	if os.Getenv("SITUATE_ROUND3") == "" {
		t.Skip("set SITUATE_ROUND3=1 to run the round-3 lever grid")
	}
	cb := r3Build(t, loadCodebase(t), "en", true)
	var xq []*r3
	for _, lang := range []string{"en", "de"} {
		ds, err := eval.LoadSQuAD(sharedData(t, "xquad/xquad."+lang+".json"), lang)
		if err != nil {
			t.Fatal(err)
		}
		xq = append(xq, r3Build(t, ds, lang, false))
	}
	xqm := func(r *r3, lever func(q *r3Query) []rank.Hit) [2]float64 {
		run := eval.Run{}
		for i := range r.queries {
			q := &r.queries[i]
			hits := lever(q)
			var out []eval.Ranked
			for _, h := range hits[:min(20, len(hits))] {
				out = append(out, r.ref[h.ID])
			}
			run[q.q.ID] = out
		}
		res, _ := eval.Evaluate(r.ds, run)
		return [2]float64{100 * res.Metrics[eval.KeyHit1], res.Metrics[eval.KeyMRR10]}
	}
	row := func(name string, lever func(r *r3, q *r3Query) []rank.Hit) {
		tr, rp, all := cb.eval(func(q *r3Query) []rank.Hit { return lever(cb, q) })
		en := xqm(xq[0], func(q *r3Query) []rank.Hit { return lever(xq[0], q) })
		de := xqm(xq[1], func(q *r3Query) []rank.Hit { return lever(xq[1], q) })
		t.Logf("%-40s | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | en %.2f %.4f de %.2f %.4f", name, tr[0], tr[1], tr[2], rp[0], rp[1], rp[2], all[0], all[1], all[2], en[0], en[1], de[0], de[1])
	}
	t.Logf("%-40s | %-20s | %-20s | %-20s | XQuAD hit@1 MRR@10", "lever (Pass@5 @10 @20)", "tune (124)", "report (124)", "all (248)")
	row("recipe v2", func(r *r3, q *r3Query) []rank.Hit { return q.hits })
	for _, shape := range []string{"inv", "sqrt", "first", "first2", "exp"} {
		for _, top := range []int{1, 3, 0} {
			for _, w := range []float64{0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.1} {
				row(fmt.Sprintf("position %s top=%d w=%.2f", shape, top, w), func(r *r3, q *r3Query) []rank.Hit { return r.positionShape(q, q.hits, top, w, shape) })
			}
		}
	}
}

func TestRound3More(t *testing.T) {
	r := r3Setup(t)
	t.Logf("%-72s | %-20s | %-20s | %-20s", "lever (Pass@5 @10 @20)", "tune (124)", "report (124)", "all (248)")
	r.row(t, "recipe v2", func(q *r3Query) []rank.Hit { return q.hits })
	for _, top := range []int{1, 2} {
		for _, ratio := range []float64{0, 1.1, 1.25, 1.5} {
			for _, e := range []float64{0.05, 0.1, 0.2, 0.4} {
				r.row(t, fmt.Sprintf("top-document lift top=%d ratio=%.2f extra=%.2f", top, ratio, e), func(q *r3Query) []rank.Hit { return r.topDoc(q, q.hits, top, e, ratio) })
			}
		}
	}
	for _, top := range []int{1, 3, 0} {
		for _, w := range []float64{0.02, 0.05, 0.1, 0.2} {
			r.row(t, fmt.Sprintf("context-only BM25 within document top=%d w=%.2f", top, w), func(q *r3Query) []rank.Hit { return r.contextReorder(q, q.hits, top, w) })
		}
	}
}
