package wiring

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/weaviate"
)

// A Setting is one configuration value: a flag of the command line, a key
// of situate.toml, and possibly an environment variable.
type Setting struct {
	Name    string
	Env     string // environment variable, if any
	Default string
	Usage   string
	Bool    bool
	List    bool // comma-separated or repeated flag
}

// Settings is a front end's configuration: each setting's effective value
// by name ("" when unset), and where it came from ("default", "flag",
// "env NAME", "config PATH") for error messages.
type Settings interface {
	Value(name string) string
	Origin(name string) string
}

// UsageError marks an error in how situate was configured or called (a
// setting's value that cannot be used); the command line exits with code 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// List is a list setting's values (SplitList).
func List(s Settings, name string) []string { return SplitList(s.Value(name)) }

// SplitList splits a comma-separated list, blanks dropped.
func SplitList(v string) []string {
	if v == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Int is an integer setting, or a UsageError naming it and its origin.
func Int(s Settings, name string) (int, error) {
	n, err := strconv.Atoi(s.Value(name))
	if err != nil {
		return 0, usagef("--%s (from %s): %q is not an integer", name, s.Origin(name), s.Value(name))
	}
	return n, nil
}

// Float is a number setting, or a UsageError naming it and its origin.
func Float(s Settings, name string) (float64, error) {
	f, err := strconv.ParseFloat(s.Value(name), 64)
	if err != nil {
		return 0, usagef("--%s (from %s): %q is not a number", name, s.Origin(name), s.Value(name))
	}
	return f, nil
}

// FloatSettings are the settings read as numbers with a fraction.
var FloatSettings = map[string]bool{"bm25-k1": true, "bm25-b": true, "context-weight": true, "compound-weight": true,
	"dense-weight": true, "lexical-weight": true, "max-cost": true}

// LLMSettings are the settings of the LLM contextualizer.
var LLMSettings = []string{"llm", "llm-base-url", "llm-api-key-env", "llm-concurrency", "llm-context-window",
	"llm-max-tokens", "llm-cache-ttl", "llm-template", "llm-language", "llm-extra", "llm-rpm", "llm-tpm",
	"llm-price", "llm-glossary", "llm-timeout", "llm-max-retries", "llm-degenerate", "llm-one-chunk", "max-cost"}

// DenseSettings configure the dense arm, fusion and reranking.
var DenseSettings = []string{"embed", "embed-base-url", "embed-api-key-env", "embed-dimensions", "embed-max-tokens",
	"fusion", "dense-weight", "lexical-weight", "rerank", "rerank-base-url", "rerank-api-key-env"}

// IndexSettings choose the index backend.
var IndexSettings = []string{"index", "weaviate-url", "weaviate-api-key-env", "weaviate-collection", "weaviate-tenant",
	"weaviate-replication", "weaviate-consistency", "weaviate-ranking", "weaviate-vector-index", "weaviate-inexact-bm25"}

// Defs lists every setting with its default; front ends pick the ones
// each command takes.
func Defs() []Setting {
	d := situate.DefaultOptions()
	l := llm.DefaultOptions()
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	return []Setting{
		{Name: "store", Env: "SITUATE_STORE", Default: ".situate", Usage: "store directory"},
		{Name: "store-url", Env: "SITUATE_STORE_URL", Usage: "PostgreSQL store shared by several situate processes (postgres://user@host:port/db); the --store directory then holds only this process's indexes"},
		{Name: "config", Env: "SITUATE_CONFIG", Usage: "configuration file (default: situate.toml in the store)"},
		{Name: "chunk-size", Default: strconv.Itoa(d.ChunkSize), Usage: "target chunk size in tokens"},
		{Name: "chunk-overlap", Default: strconv.Itoa(d.ChunkOverlap), Usage: "overlap between chunks in tokens"},
		{Name: "contextualizer", Default: "offline", Usage: "what writes chunk contexts: offline (extractive, no model), llm (the model named by --llm; the default when --llm is set) or none"},
		{Name: "analyzer", Usage: "force one BM25 analyzer (standard, english, german, spanish, russian, chinese, code); default: per document language"},
		{Name: "bm25-k1", Default: num(d.BM25K1), Usage: "BM25 k1"},
		{Name: "bm25-b", Default: num(d.BM25B), Usage: "BM25 b"},
		{Name: "context-weight", Default: num(d.ContextWeight), Usage: "0: index \"context\\n\\nchunk\" as one field; >0: chunk and context as two fields, context weighted by this"},
		{Name: "compound-weight", Default: num(d.CompoundWeight), Usage: "German: match compounds with their parts through the index vocabulary, each added term weighted by this (0: off)"},
		{Name: "recipe", Default: "situate", Usage: "lexical ranking: situate (language + code + word-pair BM25 arms and document evidence, see EVAL.md) or lucene (one BM25 arm, exactly Lucene's ranking)"},
		{Name: "parallel", Default: strconv.Itoa(d.ParallelDocuments), Usage: "documents contextualized at once"},
		{Name: "include", List: true, Usage: "only index files whose path matches this glob (repeatable)"},
		{Name: "exclude", List: true, Usage: "skip files whose path matches this glob (repeatable)"},
		{Name: "max-file-size", Default: strconv.Itoa(64 << 20), Usage: "skip files larger than this many bytes"},
		{Name: "k", Default: strconv.Itoa(situate.DefaultK), Usage: "number of results"},
		{Name: "mode", Usage: "search mode: bm25, dense or hybrid (default: hybrid with --embed, bm25 without)"},

		{Name: "embed", Usage: "embedding model as PROVIDER:MODEL (openai, openai-compatible, vllm, llamacpp, ollama, tei, voyage, cohere, gemini, glove); enables dense and hybrid search"},
		{Name: "embed-base-url", Usage: "embedding server URL (self-hosted: vLLM, llama.cpp, TEI, Ollama, LM Studio)"},
		{Name: "embed-api-key-env", Usage: "environment variable with the embedding API key (default: OPENAI_API_KEY, VOYAGE_API_KEY, CO_API_KEY or GEMINI_API_KEY)"},
		{Name: "embed-dimensions", Default: "0", Usage: "output dimension for models that support it (0: the model's)"},
		{Name: "embed-max-tokens", Default: "0", Usage: "embedding input limit in tokens; longer texts get their context shortened first, then the chunk tail (0: unknown)"},
		{Name: "fusion", Default: d.Fusion, Usage: "hybrid fusion: rrf (k=60, 1-based ranks), cookbook (weighted 1/rank), minmax or relative"},
		{Name: "dense-weight", Default: fmt.Sprint(d.DenseWeight), Usage: "weight of the dense arm in fusion"},
		{Name: "lexical-weight", Default: fmt.Sprint(d.LexicalWeight), Usage: "weight of the BM25 arm in fusion"},
		{Name: "rerank", Usage: "reranker as PROVIDER:MODEL (cohere, voyage, tei, llamacpp, jina, llm); searches then rerank the fused top 150"},
		{Name: "rerank-base-url", Usage: "reranker server URL (TEI, llama.cpp, Jina-compatible)"},
		{Name: "rerank-api-key-env", Usage: "environment variable with the reranker API key (default: CO_API_KEY, VOYAGE_API_KEY, JINA_API_KEY)"},

		{Name: "index", Default: "embedded", Usage: "where the indexes live: embedded (files beside the store) or weaviate (a Weaviate cluster: --weaviate-url)"},
		{Name: "weaviate-url", Env: "SITUATE_WEAVIATE_URL", List: true, Usage: "Weaviate nodes' REST URLs (http://127.0.0.1:8080), comma-separated; requests move on from a node that does not answer"},
		{Name: "weaviate-api-key-env", Default: "WEAVIATE_API_KEY", Usage: "environment variable holding the Weaviate API key (none set: anonymous)"},
		{Name: "weaviate-collection", Default: weaviate.DefaultCollection, Usage: "prefix of situate's Weaviate collections (<prefix>Chunks, <prefix>Code, <prefix>Pairs, <prefix>Docs)"},
		{Name: "weaviate-tenant", Default: weaviate.DefaultTenant, Usage: "Weaviate tenant of this store (serve with keys uses each situate tenant's name)"},
		{Name: "weaviate-replication", Default: "1", Usage: "replication factor of the collections situate creates"},
		{Name: "weaviate-consistency", Default: weaviate.DefaultConsistency, Usage: "consistency level of every Weaviate read and write: ONE, QUORUM or ALL (with replication 3, QUORUM keeps searches and writes going while a node is down and loses nothing)"},
		{Name: "weaviate-ranking", Default: "situate", Usage: "situate (situate's analyzers, recipe and fusion over lists fetched from Weaviate) or native (Weaviate's word tokenizer BM25 and its hybrid; for comparison)"},
		{Name: "weaviate-vector-index", Default: "hnsw", Usage: "Weaviate vector index: hnsw or flat (exact)"},
		{Name: "weaviate-inexact-bm25", Bool: true, Usage: "use a Weaviate whose BM25 misses recently written matches (v1.35.2 started without USE_BLOCKMAX_WAND=false) instead of refusing it; BM25 and hybrid results are then incomplete"},

		{Name: "llm", Usage: "LLM that writes contexts, as PROVIDER:MODEL: anthropic:claude-haiku-4-5, openai:gpt-5-mini, openai-compatible:NAME, vllm:NAME, llamacpp (with --llm-base-url), ollama:qwen3:4b (OLLAMA_HOST)"},
		{Name: "llm-base-url", Usage: "API base URL; several comma-separated URLs are replicas of one local server (each document goes to one). Defaults: ANTHROPIC_BASE_URL / OPENAI_BASE_URL or the provider's"},
		{Name: "llm-api-key-env", Usage: "environment variable holding the API key (default ANTHROPIC_API_KEY or OPENAI_API_KEY); keys are never stored"},
		{Name: "llm-concurrency", Default: fmt.Sprint(l.Concurrency), Usage: "calls in flight per document batch"},
		{Name: "llm-context-window", Default: "0", Usage: "model context window in tokens (0: ask the server or use the provider's default)"},
		{Name: "llm-max-tokens", Default: fmt.Sprint(l.MaxTokens), Usage: "output token budget per call"},
		{Name: "llm-cache-ttl", Default: l.CacheTTL, Usage: "Anthropic prompt cache TTL: 5m or 1h"},
		{Name: "llm-template", Usage: "prompt template file with {{WHOLE_DOCUMENT}} and {{CHUNK_CONTENT}} (default: the reference prompt in the document's language)"},
		{Name: "llm-language", Usage: "force the prompt language (en, de, es, ru, zh); default: the document's"},
		{Name: "llm-extra", Usage: "extra request fields as a JSON object, e.g. {\"temperature\":0}"},
		{Name: "llm-rpm", Default: "0", Usage: "rate limit: LLM requests per minute, retries included (0: none)"},
		{Name: "llm-tpm", Default: "0", Usage: "rate limit: LLM input tokens per minute, estimated from the prompt; cache reads are not counted, as with Anthropic (0: none)"},
		{Name: "llm-price", Usage: "price of the --llm model in USD per million tokens, overriding the built-in table, e.g. input=1,cache-write-5m=1.25,cache-write-1h=2,cache-read=0.1,output=5,batch-discount=0.5,min-cache-tokens=4096 (fields not given keep the table's values)"},
		{Name: "llm-glossary", Usage: "glossary file (JSON list of {\"term\",\"definition\"} or TOML [[terms]]) shown after the document in every prompt"},
		{Name: "llm-timeout", Default: l.CallTimeout.String(), Usage: "time limit of one LLM call; a call that times out is retried"},
		{Name: "llm-max-retries", Default: fmt.Sprint(l.MaxRetries), Usage: "retries of a failing LLM call (rate limits, overload, server errors, timeouts) before the chunk gets the offline context, flagged"},
		{Name: "llm-one-chunk", Default: "offline", Usage: "a document that fits in one chunk: offline (no call: the chunk is the whole document, the offline context serves) or call (ask the model anyway)"},
		{Name: "llm-degenerate", Default: "reject", Usage: "answers that are not a context (repeated words, character noise, no word of the document, far from 50-100 tokens): reject (ask again with another sample, then the offline context, flagged degenerate:KIND) or keep (keep them, flagged)"},
		{Name: "max-cost", Default: "0", Usage: "stop before the projected spend exceeds this many USD (0: no limit)"},
	}
}
