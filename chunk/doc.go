// Package chunk cuts documents into token-bounded, structure-aware chunks
// for contextual retrieval.
//
// Split returns byte spans into the text; it never copies or rewrites it.
// Sizes are counted with CountTokens, the o200k_base BPE tokenizer compiled
// into the binary (github.com/tiktoken-go/tokenizer; no network, ~25 ms to
// initialise on first use). For Claude and open models the counts are close
// estimates.
//
// # Where chunks are cut
//
// Every chunk is filled greedily up to Options.Size tokens and then cut at
// the strongest boundary that keeps it reasonably full, in this order:
//
//   - Markdown (also HTML converted to Markdown): headings, deepest last;
//     then blank lines (paragraphs, fenced code blocks, tables); then list
//     items and table rows; then sentences; then words.
//   - Text, PDF and DOCX text: blank lines, list items, sentences, words.
//   - Code: top-level declarations (func, type, class, def, fn, impl,
//     struct, interface ...), with the comments, decorators and attributes
//     directly above them; other column-0 blocks after a blank line;
//     methods inside a class or impl; blank lines; lines; words. Files of
//     unknown languages are cut at column-0 blocks after blank lines.
//
// Sentences end at ".", "!", "?", "…" followed by white space, and after
// "。", "！", "？". Abbreviations ("e.g.", "Dr.", "z.B.", "т.е."), initials,
// ordinals ("3. Oktober") and decimals do not end a sentence. Runs of CJK
// characters, which have no spaces, are treated as words of up to eight
// characters. A word longer than a chunk is cut at rune boundaries into
// pieces of at most Size/2 bytes; nothing is ever cut inside a rune.
//
// A fenced code block, a Markdown table row and a code declaration are never
// cut unless they alone exceed Size; then they are cut at lines (and, if a
// single line is too long, at words). Small adjacent sections may share a
// chunk, but a top-level heading (the shallowest level that is not a lone
// title) always starts a new chunk unless the chunk so far is tiny (less
// than Size/8 tokens).
//
// # Heading
//
// Span.Heading is the Markdown heading path of the chunk ("Guide > Install >
// Linux"), or for code the enclosing declaration ("func ParseConfig",
// "class Parser > def parse"). A chunk spanning several sections gets the
// deepest path they share, or else the first non-empty one.
//
// # Overlap
//
// When a chunk is cut inside a section, the next chunk starts up to
// Options.Overlap tokens before the previous chunk's end: at a sentence
// boundary when whole sentences fit, otherwise at a word boundary inside
// the last sentence (in CJK text preferably after a "，" or "、"). Code lines, table rows and fenced blocks are repeated
// whole or not at all. No overlap is carried across a heading or a
// top-level declaration, and the overlap is dropped when it would push the
// next piece over Size.
//
// # Guarantees
//
// Spans are in order (Start increases strictly), non-empty, trimmed of
// white space and on rune boundaries; their union covers every
// non-white-space byte of the input; Split is deterministic; and
// Span.Tokens == CountTokens(text[Start:End]) <= Size for every span. The
// bound holds for any input, because pieces are split down to single runes
// if needed and a rune is at most 4 tokens (MinSize is 8); the only
// exception would be invalid UTF-8 byte soup whose counting the tokenizer
// cannot bound, which the fuzz tests have not produced.
//
// # Cost
//
// Split is linear in the input: every piece is counted once with the white
// space before it, every chunk once more to report its exact size (a few
// times more, by bisection, when the joined text counts more than its
// pieces), and only a chunk's worth of pieces is held at a time. A text of
// 4 KiB to 1 MiB is pre-tokenized once, and those counts are differences
// of running totals plus a few pre-tokens at each end (see pieceIndex;
// about two bytes of memory per byte of text). Pieces
// longer than Size*16 bytes are split before they are counted, so the
// tokenizer's memory stays proportional to Size. CountTokens itself is
// linear on white space of any length: the tokenizer's pre-tokenizer and
// pair merge are quadratic on long runs of it, so such runs are counted
// pre-token by pre-token, exactly (TestCountTokensExact compares it with
// the tokenizer). BenchmarkAdversarial measures the time per MB on inputs
// built to be slow (long white-space runs, deep nesting, huge words, long
// lines, tiny paragraphs) and TestAdversarialWork bounds the tokenizer's
// work per input byte on them.
//
// Package chunk is a leaf: it imports no other situate package.
package chunk
