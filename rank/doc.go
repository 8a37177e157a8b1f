// Package rank reorders the ranked lists of situate's lexical arm with the
// evidence a single chunk score misses: it sums the scores of several arms of
// the same query (Combine), lifts every chunk of a document that matches
// well as a whole (DocumentBlend, DocumentEvidence), prepares the text of a
// phrase-like word-pair BM25 arm (PairText, PairQuery), and lowers chunks of
// test files for questions that are not about tests (TestPrior). Levers that
// were measured and not adopted (identifier emphasis, a lead prior) are
// described in EVAL.md and no longer in the package.
//
// The recipe these functions implement was chosen on half of the queries of
// Anthropic's codebase set and checked on the other half, on XQuAD (en, de)
// and on CACM; EVAL.md at the repository root has every configuration tried.
// With the Claude 3 Haiku contexts and no embedding model, the recipe is:
//
//  1. Index the contextualized text ("chunk\n\ncontext") three times: with
//     the analyzer of the document's language and Lucene's BM25 defaults
//     (bm25.DefaultK1, bm25.DefaultB); with the "code" analyzer
//     (identifiers split into sub-words, whole words kept unstemmed) and
//     k1 = DefaultCodeK1, b = DefaultCodeB; and, as word pairs, PairText of
//     the language analyzer's terms indexed with DefaultPairAnalyzer and
//     k1 = DefaultPairK1, b = DefaultPairB.
//     For source files a fourth index holds only what each chunk declares
//     ("func (cr *chunkedReader) Read"), with the code analyzer.
//  2. Search each arm (the pair arm with PairText, or PairQuery, of the
//     query's terms), DefaultCandidates results each; Combine the language,
//     code and declaration arms with weights 1, DefaultCodeWeight and
//     DefaultDefinitionWeight (summed scores).
//  3. DocumentEvidence with the pair arm's list and DefaultPairWeight: each
//     chunk gains that share of the best pair score of its document.
//  4. DocumentBlend with DefaultDocumentWeight: each chunk gains that share
//     of the best score of any chunk of its document.
//  5. Unless the query asks about tests (AsksForTests), TestPrior with
//     DefaultTestPenalty: chunks of test files (IsTestFile) lose that share
//     of their score (chosen on the tune half of the code-search set on
//     GOROOT, bench/codesearch).
//
// Steps 3 and 4 never reorder the chunks of one document; the word pairs
// say which documents hold the query's phrases, the chunk arms which of
// their chunks answer.
//
// All functions work on plain values (ids, document ids, scores); they never
// modify their input and order ties by ID so that results are deterministic.
//
// Package rank is a leaf: it imports only the standard library and no other
// situate package.
package rank
