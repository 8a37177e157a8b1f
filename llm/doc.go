// Package llm implements situate.Contextualizer on top of any situate.LLM:
// the heart of Contextual Retrieval. For every chunk it asks a chat model
// for a short context that situates the chunk within its whole document.
//
// It owns:
//
//   - Prompts. One template per language (English is Anthropic's reference
//     prompt verbatim; German, Spanish, Russian and Chinese ask for an answer
//     in that language), or a custom template file. A rendered prompt is
//     split at the cache boundary: Prefix is the document part (and an
//     optional glossary), byte-identical for every chunk of a document;
//     Suffix holds the chunk and the instruction.
//   - Windowing. A document that does not fit the model's context window is
//     replaced by an excerpt (its beginning plus the passage leading up to
//     the chunk) that advances in blocks, so consecutive chunks share a
//     prefix. Token counts come from situate.TokenCounter when a document
//     looks too large, else from an offline o200k estimate plus a margin.
//   - Scheduling. Per prefix, the first call goes alone; when the provider
//     starts answering (Prompt.Started) the other chunks fan out. Run
//     interleaves many documents, spreads them over replicas, retries
//     errors that implement Retryable with backoff, and adapts concurrency
//     to rate limits. Optional client-side limits (RequestsPerMinute,
//     InputTokensPerMinute) are token buckets shared by all documents of a
//     Contextualizer, checked before every call.
//   - Caching and resume through situate.ContextCache; usage and cost
//     through situate.UsageRecorder and a PriceTable (ParsePrice and
//     PriceTable.With override a model's price); a MaxCostUSD budget.
//   - Glossaries: LoadGlossary reads terms from JSON or TOML, and
//     StaticGlossary shows them after every document.
//   - Checks on every answer: preambles and wrappers stripped, length
//     bounded, and flags for empty answers (then the fallback), wrong
//     language, and numbers or identifiers absent from the document.
//     Degenerate answers (repeated words or phrases, letters or symbols
//     neither the document nor its language has, no word of the document,
//     far outside the asked 50-100 tokens) are asked again with another
//     sample (situate.Prompt.Sample) and then fall back, flagged
//     "degenerate:<kind>" (Options.KeepDegenerate keeps them flagged).
//     On the 737 contexts Claude 3 Haiku wrote for the codebase set, 2 are
//     flagged (0.27%; both describe text the document does not hold).
//   - Failing loudly: every attempt is reported to the call observer of
//     the context (situate.ObserveCall: start, done, retry, fail,
//     fallback) and recorded as usage ("context" for a call's last
//     attempt, "context-retry" for a failed attempt that was repeated,
//     "context-cancelled" for one cut short by cancellation, never an
//     error). A circuit breaker stops every run with
//     situate.ErrProviderFailing after BreakerFailures failed attempts in a
//     row or BreakerWindow of failures; situate.ErrUnauthorized and
//     situate.ErrModelNotFound stop it at the first call.
//   - Identity: Identify asks the server which model it serves
//     (situate.ModelIdentifier); Settings (model and digest, template
//     content, max tokens, context bound, forced language) form the
//     Fingerprint (situate.Fingerprinter), so a change re-processes the
//     documents, and the cache key, so only chunks whose prompt changed
//     get a new call.
//   - Estimate: calls, tokens, cost and time of a corpus, offline; for a
//     local server (EstimateOptions.Local) with its slots, measured speed
//     and per-document prefix cache.
//
// It imports the root package and focused libraries only (the tokenizer,
// BurntSushi/toml for glossary files);
// never a provider, sqlite or analysis package. Providers implement
// situate.LLM and, for their errors, Retryable.
package llm
