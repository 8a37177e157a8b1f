// Package eval measures retrieval quality: it loads evaluation sets into plain
// structs, scores ranked result lists with exactly specified metrics, and
// renders the results as tables, JSON and Markdown reports.
//
// # Datasets
//
// Four loaders read public evaluation data into a [Dataset]:
//
//   - [LoadAnthropic]: the Anthropic cookbook "Contextual Embeddings" codebase
//     set (codebase_chunks.json, evaluation_set.jsonl and optionally the
//     Claude 3 Haiku contexts). Pre-chunked; golden chunks per query.
//   - [LoadTREC]: a TREC-style collection (documents as a directory, .tar.gz
//     or JSONL; CACM or TREC <top> topics; qrels). Document-level, graded.
//   - [LoadSQuAD]: a SQuAD v1.1 file such as XQuAD, as paragraph retrieval:
//     document = article, chunk = paragraph, golden = the question's paragraph.
//   - [LoadAnswers]: a JSONL of questions with an answer string and the
//     document holding it; a hit is a retrieved chunk of that document whose
//     original text contains the answer.
//
// Loaders fail with "file:line: ..." errors when a file cannot be parsed at
// all, and otherwise skip bad records, listing each in Dataset.Skipped with
// its file, line and reason, so that one broken line never aborts a run and
// never goes unnoticed. One exception keeps parity with trec_eval: a qrels
// line naming a document absent from the collection is listed but kept, so
// that it counts as relevant and unretrieved (CACM's qrels name 55 documents
// without zero padding; dropping them would turn Lucene's MAP 0.3123 into
// 0.3298).
//
// # Metrics
//
// [PassAt] is Pass@k as the Anthropic cookbook's evaluate_retrieval computes
// it: the share of a query's golden chunks whose stripped content equals the
// stripped content of one of the top k retrieved chunks (a duplicate retrieved
// chunk occupies a slot but finds nothing new; golden chunks with identical
// content are each found by the same retrieved chunk). [Evaluate] averages it
// over the queries and multiplies by 100.
//
// The id-matched metrics ([Recall], [Hit], [ReciprocalRank], [NDCG],
// [AveragePrecision], [Precision]) follow trec_eval: relevance is grade > 0,
// precision at k divides by k even when fewer results were returned, average
// precision divides by the number of relevant items (unretrieved ones
// contribute 0), nDCG uses linear gains and a log2(rank+1) discount. An id
// repeated in a ranked list counts only at its first rank; later copies occupy
// their ranks as non-relevant results. [RankTREC] orders scored results the
// way trec_eval does (score descending, ties by id descending).
//
// [Evaluate] turns a [Run] (ranked lists per query) into a [Result] with the
// metric keys listed in [MetricKeys] and one [QueryResult] per query for
// per-query reports. [Split] gives deterministic tune/report halves.
//
// # Reports
//
// [WriteTable] prints Anthropic's comparison shape (configuration | Pass@5 |
// Pass@10 | Pass@20 | failure@20 | reduction against the first row);
// [WriteJSON]/[ReadJSON] use {"configs":[{"name","settings","metrics"}]};
// [WriteReport] writes a Markdown report with an SVG bar chart of failure
// rates into a directory; [WritePerQuery] and [WritePerQueryJSONL] print
// per-query outcomes.
//
// Package eval is a leaf: it imports only the standard library and no other
// situate package. The caller (cmd/situate) converts Dataset documents into
// situate documents, runs the searches and hands the ranked lists back.
package eval
