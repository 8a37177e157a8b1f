// Package offline is situate's embedded Contextualizer for when no LLM is
// configured (name "offline").
//
// It writes a short, deterministic, EXTRACTIVE context for every chunk, built
// only from the document itself: the title or file name, the heading path
// above the chunk, and the document's subject, the name its opening sentence
// starts with (licence headers, headings and badges skipped): "Puerto
// Almenara", "Die Falkenried Solar GmbH" -> "Falkenried Solar GmbH",
// "«Ладожский свет» — …", "青石镇是…" -> "青石镇". The subject is named after
// the title when the title does not already name it ("From doc17.txt
// (Puerto Almenara): Puerto Almenara.") and again after the colon, unless the
// chunk itself names it. The whole opening sentence is not repeated: on
// every chunk of a document it pulls questions about the opening towards
// all of them. When no subject is found and the title is only a file name,
// the opening sentence's first clause stands in. For source code (Format "code") it
// outlines the file instead: its path, language and package or namespace, the
// main types and functions the whole file defines, the declarations enclosing
// the chunk (impl DiffExecutor > fn run_target) and what the chunk itself
// defines.
//
// The point is the same as an LLM context, only cheaper: a chunk that never
// names its document's subject ("the company's revenue grew 3%", a method
// body deep inside a class) gets that subject prepended, so a BM25 query
// naming it can match.
//
// The connecting words follow the document's language (doc.Lang: en, de, es,
// ru, zh; anything else is written in English). Contexts aim at 20-60 words
// (Options.MaxWords) and never exceed MaxTokens estimated tokens.
//
// Like every adapter, offline imports the root package and no other situate
// package.
package offline
