// Package rank holds situate's lexical recipe: its defaults (the BM25
// parameters and weights of each arm), the text of the phrase-like word-pair
// BM25 arm (PairText, PairQuery), and which chunks belong to test files and
// which questions ask about tests (IsTestFile, AsksForTests). The steps that
// combine the arms' lists (Combine, DocumentEvidence, DocumentBlend,
// TestPrior) are in package fusion, where every list is merged. Levers that
// were measured and not adopted (identifier emphasis, a lead prior) are
// described in docs/history.md and no longer in the package.
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
//     query's terms), DefaultCandidates results each; fusion.Combine the language,
//     code and declaration arms with weights 1, DefaultCodeWeight and
//     DefaultDefinitionWeight (summed scores).
//  3. fusion.DocumentEvidence with the pair arm's list and DefaultPairWeight: each
//     chunk gains that share of the best pair score of its document.
//  4. fusion.DocumentBlend with DefaultDocumentWeight: each chunk gains that share
//     of the best score of any chunk of its document.
//  5. Unless the query asks about tests (AsksForTests), fusion.TestPrior with
//     DefaultTestPenalty: chunks of test files (IsTestFile) lose that share
//     of their score (chosen on the tune half of the code-search set on
//     GOROOT, bench/codesearch).
//
// Steps 3 and 4 never reorder the chunks of one document; the word pairs
// say which documents hold the query's phrases, the chunk arms which of
// their chunks answer.
//
// Package rank is a leaf: it imports only the standard library and no other
// situate package.
package rank
