// Package questions generates reference questions for a team's own corpus,
// so that retrieval can be measured before and after contextualization on
// the documents it is meant for ("situate eval --generate").
//
// The pipeline is:
//
//  1. Sample draws N chunks reproducibly (Options.Seed), stratified by
//     (language, format) in proportion to each stratum's share of the usable
//     chunks and round-robin across the documents of a stratum, after
//     dropping the chunks that cannot carry a question (see Skip).
//  2. Generate asks a chat model (any situate.LLM) for one question per
//     sampled chunk. The prompt's cached prefix is the whole document,
//     "<document>\n" + text + "\n</document>\n", byte-identical for all of
//     a document's chunks and to the prefix of package llm's built-in
//     contextualization templates, so provider prompt caches pay for a
//     document once (a document's first call runs alone; its other calls
//     follow and read the cache). The per-chunk suffix holds the chunk and
//     an instruction in the document's language (en, de, es, ru, zh;
//     English otherwise) asking for exactly two lines,
//     "QUESTION: ..." and "ANSWER: ...".
//  3. Every answer goes through the checks (see Reason): the output must be
//     exactly the two lines (no preamble), the answer span must occur
//     verbatim in the chunk, the question must be in the document's
//     language, it must not copy the chunk's wording, it must name what it
//     is about, and it must not repeat an earlier question. Each dropped
//     item is counted under the first check it fails.
//  4. WriteDataset writes the kept items as JSONL in the "answers" format
//     that "situate eval --format answers" reads, with the golden chunk's
//     document, byte span and heading for a person to review or edit.
//
// Usage of every call is sent to Options.Usage (Operation "question"), priced
// by Options.Price when set, and Options.MaxCostUSD stops a run before the
// spend would exceed it.
package questions
