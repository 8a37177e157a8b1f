package eval

import (
	"sort"
	"strconv"
	"strings"
)

// Metric keys of Result.Metrics. Pass@k is a percentage (0..100) as the
// cookbook reports it; every other metric is a fraction (0..1) as trec_eval
// reports it.
const (
	KeyPass5    = "pass@5"
	KeyPass10   = "pass@10"
	KeyPass20   = "pass@20"
	KeyRecall20 = "recall@20"
	KeyMRR10    = "mrr@10"
	KeyNDCG10   = "ndcg@10"
	KeyMAP      = "map"
	KeyP30      = "p@30"
	KeyHit1     = "hit@1"
	KeyHit5     = "hit@5"
	KeyHit20    = "hit@20"
)

// MetricKeys lists the metric keys in report order.
var MetricKeys = []string{KeyPass5, KeyPass10, KeyPass20, KeyRecall20, KeyMRR10, KeyNDCG10, KeyMAP, KeyP30, KeyHit1, KeyHit5, KeyHit20}

// DefaultShown is how many retrieved ids a QueryResult keeps, and the cutoff
// at which it lists golden items as found or missed.
const DefaultShown = 20

// Ranked is one retrieved result, best first in a Run.
type Ranked struct {
	DocID string
	// Chunk is the chunk index within the document (ignored for
	// document-level judgments).
	Chunk int
	// Text is the ORIGINAL chunk text (without any context). Pass@k and
	// answer matching compare it; when empty, the dataset's own chunk text
	// for (DocID, Chunk) is used if there is one.
	Text string
}

// Ref returns the result's chunk reference.
func (r Ranked) Ref() ChunkRef { return ChunkRef{r.DocID, r.Chunk} }

// Run maps query ids to their ranked results, best first. A query missing
// from the run is scored as if nothing was retrieved.
type Run map[string][]Ranked

// QueryResult is one query's outcome, for per-query reports.
type QueryResult struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Mode string `json:"mode"`
	// Golden lists the relevant item ids: chunk refs "doc#i", document ids,
	// or for answer mode `doc ∋ "answer"`.
	Golden []string `json:"golden"`
	// Retrieved lists the top DefaultShown ids as judged (chunk refs in
	// chunk and answer mode, distinct document ids in doc mode).
	Retrieved []string `json:"retrieved"`
	// Found and Missed split Golden at DefaultShown. In chunk mode a golden
	// chunk is found as Pass@k finds it (stripped content match).
	Found   []string           `json:"found"`
	Missed  []string           `json:"missed"`
	Metrics map[string]float64 `json:"metrics"`
}

// The metrics Evaluate gives confidence intervals for, by a seeded
// percentile bootstrap over the evaluated queries (Bootstrap).
var IntervalKeys = []string{KeyHit1, KeyHit5, KeyHit20, KeyMRR10, KeyRecall20}

// Bootstrap settings of Evaluate's intervals.
const (
	IntervalResamples = 2000
	IntervalLevel     = 0.95
)

// Evaluate scores run against the queries of ds and returns the averaged
// metrics (Result.Name and Settings are left for the caller) and one
// QueryResult per evaluated query, in dataset order. Queries without
// relevance information are not evaluated. Each metric is averaged over the
// queries that define it: Pass@k over chunk- and answer-judged queries, the
// others over all evaluated queries (MAP over judged topics, as trec_eval).
// Result.Intervals holds 95% bootstrap intervals of IntervalKeys.
// Evaluate only reads ds and run; concurrent calls are safe.
func Evaluate(ds *Dataset, run Run) (Result, []QueryResult) {
	sums := map[string]float64{}
	counts := map[string]int{}
	var out []QueryResult
	texts := ds.chunkTexts()
	for _, q := range ds.Queries {
		var qr QueryResult
		switch q.Mode() {
		case ModeChunk:
			qr = evalChunk(texts, q, run[q.ID])
		case ModeDoc:
			qr = evalDoc(q, run[q.ID])
		case ModeAnswer:
			qr = evalAnswer(texts, q, run[q.ID])
		default:
			continue
		}
		for k, v := range qr.Metrics {
			sums[k] += v
			counts[k]++
		}
		out = append(out, qr)
	}
	res := Result{Metrics: map[string]float64{}, Queries: len(out)}
	for k, s := range sums {
		res.Metrics[k] = s / float64(counts[k])
	}
	if iv := Intervals(out, IntervalKeys, IntervalResamples, 1, IntervalLevel); len(iv) > 0 {
		res.Intervals = iv
	}
	return res, out
}

// idMetrics fills the id-matched metrics of m.
func idMetrics(m map[string]float64, rel Judgments, ids []string) {
	m[KeyRecall20] = Recall(rel, ids, 20)
	m[KeyMRR10] = ReciprocalRank(rel, ids, 10)
	m[KeyNDCG10] = NDCG(rel, ids, 10)
	m[KeyMAP] = AveragePrecision(rel, ids)
	m[KeyP30] = Precision(rel, ids, 30)
	m[KeyHit1] = Hit(rel, ids, 1)
	m[KeyHit5] = Hit(rel, ids, 5)
	m[KeyHit20] = Hit(rel, ids, 20)
}

func evalChunk(chunkText map[ChunkRef]string, q Query, ranked []Ranked) QueryResult {
	rel := Judgments{}
	golden := make([]string, len(q.Golden))
	for i, g := range q.Golden {
		golden[i] = g.String()
		rel[golden[i]] = 1
	}
	ids := make([]string, len(ranked))
	texts := make([]string, len(ranked))
	for i, r := range ranked {
		ids[i] = r.Ref().String()
		texts[i] = r.Text
		if texts[i] == "" {
			texts[i] = chunkText[r.Ref()]
		}
	}
	m := map[string]float64{
		KeyPass5:  100 * PassAt(q.GoldenText, texts, 5),
		KeyPass10: 100 * PassAt(q.GoldenText, texts, 10),
		KeyPass20: 100 * PassAt(q.GoldenText, texts, 20),
	}
	idMetrics(m, rel, ids)
	qr := QueryResult{ID: q.ID, Text: q.Text, Mode: ModeChunk, Golden: golden, Retrieved: cut(ids, DefaultShown), Metrics: m}
	shown := map[string]bool{}
	for _, t := range cut(texts, DefaultShown) {
		shown[Strip(t)] = true
	}
	for i, g := range golden {
		if i < len(q.GoldenText) && shown[q.GoldenText[i]] {
			qr.Found = append(qr.Found, g)
		} else {
			qr.Missed = append(qr.Missed, g)
		}
	}
	return qr
}

// DocRanking collapses chunk results to distinct document ids, each at the
// rank of its best chunk.
func DocRanking(ranked []Ranked) []string {
	seen := make(map[string]bool, len(ranked))
	ids := make([]string, 0, len(ranked))
	for _, r := range ranked {
		if !seen[r.DocID] {
			seen[r.DocID] = true
			ids = append(ids, r.DocID)
		}
	}
	return ids
}

func evalDoc(q Query, ranked []Ranked) QueryResult {
	rel := Judgments(q.Qrels)
	ids := DocRanking(ranked)
	m := map[string]float64{}
	idMetrics(m, rel, ids)
	qr := QueryResult{ID: q.ID, Text: q.Text, Mode: ModeDoc, Retrieved: cut(ids, DefaultShown), Metrics: m}
	for id, g := range rel {
		if g > 0 {
			qr.Golden = append(qr.Golden, id)
		}
	}
	sort.Strings(qr.Golden)
	top := map[string]bool{}
	for _, id := range qr.Retrieved {
		top[id] = true
	}
	for _, id := range qr.Golden {
		if top[id] {
			qr.Found = append(qr.Found, id)
		} else {
			qr.Missed = append(qr.Missed, id)
		}
	}
	return qr
}

// answerID is the item id under which answer-mode hits are judged.
const answerID = "answer"

func evalAnswer(chunkText map[ChunkRef]string, q Query, ranked []Ranked) QueryResult {
	ids := make([]string, len(ranked))
	shown := make([]string, len(ranked))
	for i, r := range ranked {
		text := r.Text
		if text == "" {
			text = chunkText[r.Ref()]
		}
		ids[i] = r.Ref().String()
		shown[i] = ids[i]
		if r.DocID == q.AnswerDoc && ContainsAnswer(text, q.Answer) {
			ids[i] = answerID
			shown[i] += " (answer)"
		}
	}
	rel := Judgments{answerID: 1}
	m := map[string]float64{}
	idMetrics(m, rel, ids)
	m[KeyPass5] = 100 * m[KeyHit5]
	m[KeyPass10] = 100 * Hit(rel, ids, 10)
	m[KeyPass20] = 100 * m[KeyHit20]
	golden := q.AnswerDoc + " ∋ " + strconv.Quote(q.Answer)
	qr := QueryResult{ID: q.ID, Text: q.Text, Mode: ModeAnswer, Golden: []string{golden}, Retrieved: cut(shown, DefaultShown), Metrics: m}
	if m[KeyHit20] > 0 {
		qr.Found = []string{golden}
	} else {
		qr.Missed = []string{golden}
	}
	return qr
}

// ContainsAnswer reports whether text contains answer, exactly or once runs
// of whitespace are collapsed in both: layout line breaks (PDF text, wrapped
// Markdown) must not hide an answer a reader sees in the chunk.
func ContainsAnswer(text, answer string) bool {
	if strings.Contains(text, answer) {
		return true
	}
	return strings.Contains(strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(answer), " "))
}
