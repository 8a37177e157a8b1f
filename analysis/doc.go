// Package analysis turns text into index terms for situate's BM25 engine.
//
// It owns tokenization, case folding, stop words, language normalization and
// stemming for English, German, Spanish, Russian, Chinese/Japanese/Korean and
// source code, plus a small language detector (Detect). It imports no other
// situate package; bm25 imports it.
//
// The "english" analyzer is exactly Lucene 8's EnglishAnalyzer chain as
// Anserini uses it: StandardTokenizer (UAX#29 word boundaries following
// Lucene's StandardTokenizerImpl grammar, maximum token length 255) ->
// EnglishPossessiveFilter -> LowerCaseFilter -> StopFilter (Lucene's 33
// English stop words) -> PorterStemFilter (Porter's original algorithm). On
// the CACM collection it yields Anserini's index statistics exactly: 3,204
// documents, 14,363 unique terms, 320,968 tokens (TestCACMEnglishParity).
// "standard" is the StandardTokenizer followed by lowercasing only.
//
// The character tables of the tokenizer (tables.go) are generated from the
// Unicode 15 Character Database by gen_tables.go.
//
// Analyzers are stateless and safe for concurrent use.
package analysis
