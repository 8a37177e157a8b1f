package situate

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/situate/situate/bm25"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/lockfile"
	"github.com/situate/situate/rank"
)

// Defaults for Options. Chunk sizes and BM25 parameters are the starting
// points the evaluation measures against (see EVAL.md).
const (
	DefaultChunkSize    = 400
	DefaultChunkOverlap = 50
	DefaultK            = 10
	// DefaultCandidates is how many results each retrieval arm contributes
	// before fusion and reranking (the technique's "top 150").
	DefaultCandidates = rank.DefaultCandidates
	DefaultBM25K1     = bm25.DefaultK1
	DefaultBM25B      = bm25.DefaultB
	// DefaultRerankCandidates is how many fused results the reranker sees
	// (the technique's "top 150 -> reranker -> top 20").
	DefaultRerankCandidates = 150
	// DefaultFusion and the arm weights were chosen by situate eval with the
	// only dense model this machine can run, GloVe word vectors (EVAL.md,
	// "Hybrid fusion"): relative score fusion at dense:lexical 0.3:1 was the
	// most robust — it never cost BM25 more than 0.5 Pass@10 where the dense
	// arm is weak. With a strong embedding model, measure and raise
	// DenseWeight (the cookbook weighted voyage-2 0.8 against BM25 0.2).
	DefaultFusion        = FusionRelative
	DefaultDenseWeight   = 0.3
	DefaultLexicalWeight = 1.0
	// DefaultParallelDocuments is how many documents are contextualized at
	// once; each fans its chunks out further inside the contextualizer.
	DefaultParallelDocuments = 4
	// The code arm and the document blend are the lexical recipe measured in
	// EVAL.md (package rank): a second BM25 index over the same text with
	// the code analyzer (identifiers split into words) whose scores are
	// added to the language arm's, then every chunk gains a share of its
	// document's best score.
	DefaultCodeArmWeight = rank.DefaultCodeWeight
	DefaultCodeK1        = rank.DefaultCodeK1
	DefaultCodeB         = rank.DefaultCodeB
	// DefaultCompoundWeight: see Options.CompoundWeight and EVAL.md.
	DefaultCompoundWeight = 1.5
	DefaultDocumentWeight = rank.DefaultDocumentWeight
	// The pair arm is recipe v2 (EVAL.md): a third BM25 index of adjacent
	// term pairs (rank.PairText) whose best score per document lifts that
	// document's chunks (rank.DocumentEvidence).
	DefaultPairArmWeight = rank.DefaultPairWeight
	DefaultPairK1        = rank.DefaultPairK1
	DefaultPairB         = rank.DefaultPairB
	// DefaultTestPenalty: see Options.TestPenalty and EVAL.md ("Code search
	// on GOROOT").
	DefaultTestPenalty = rank.DefaultTestPenalty
	// DefaultDefsArmWeight: see Options.DefsArmWeight and EVAL.md ("Code
	// search on GOROOT").
	DefaultDefsArmWeight = rank.DefaultDefinitionWeight
	// DefaultLockWait is how long a writer waits for another writer to
	// release the store before failing with ErrLocked.
	DefaultLockWait = 5 * time.Second
)

// Fusion methods for hybrid search (package fusion).
const (
	FusionRRF      = "rrf"      // Σ w / (60 + rank), rank 1-based
	FusionCookbook = "cookbook" // Anthropic cookbook: Σ w / rank, no constant
	FusionMinMax   = "minmax"   // convex combination of min-max normalised scores
	FusionRelative = "relative" // Weaviate's relative score fusion
)

// Recipe is how an Engine ranks: the BM25 arms it keeps over every chunk
// and their parameters, how their lists combine into the lexical ranking,
// and how the dense arm fuses with it. Start from SituateRecipe (the
// default) or LuceneRecipe; changing the arms an index holds rebuilds it.
type Recipe struct {
	BM25K1 float64
	BM25B  float64
	// ContextWeight selects how the context enters BM25. 0 indexes one field,
	// "context\n\nchunk", as Anthropic's reference does. A positive value
	// indexes chunk and context as two fields and weights the context field
	// by it (BM25F-style), the chunk field by 1.
	ContextWeight float64

	// CodeArmWeight weights a second BM25 arm that indexes the same text
	// with the code analyzer (BM25 CodeK1, CodeB); 0 disables it.
	CodeArmWeight float64
	CodeK1        float64
	CodeB         float64
	// PairArmWeight enables a third BM25 arm over the adjacent term pairs
	// of the contextualized text (BM25 PairK1, PairB): every candidate chunk
	// gains this share of its document's best pair score; 0 disables it.
	PairArmWeight float64
	PairK1        float64
	PairB         float64
	// DefsArmWeight weights a fourth BM25 arm over what each chunk of a
	// source file declares (chunk.Declarations: "func (r *Reader) Read"),
	// with the code analyzer and BM25 CodeK1, CodeB, its scores added to
	// the language and code arms'; 0 disables it.
	DefsArmWeight float64
	// CompoundWeight lets the language arm match German compounds with
	// their parts ("Gerichtsverfahren" / "Verfahren vor Gericht") through
	// the index's own vocabulary (bm25.Options.CompoundWeight); each term
	// so added counts this much. 0 disables it.
	CompoundWeight float64
	// DocumentWeight lifts every candidate chunk by this share of the best
	// score of any chunk of its document; 0 disables it.
	DocumentWeight float64
	// TestPenalty lowers the lexical score of every chunk of a test file
	// (rank.IsTestFile of the document id: "_test.go", "test_*.py",
	// "*.spec.ts", ...) by this share, unless the query asks about tests
	// (rank.AsksForTests): a question about how something works wants the
	// implementation, not the tests that call it. In [0, 1]; 0 disables it.
	TestPenalty float64

	// Candidates is each arm's top N before fusion/rerank.
	Candidates int
	// Fusion is the hybrid method (Fusion* constants); DenseWeight and
	// LexicalWeight weight the arms.
	Fusion        string
	DenseWeight   float64
	LexicalWeight float64
}

// SituateRecipe is the default recipe (EVAL.md): the language arm with
// Lucene's BM25 defaults, the code, word-pair and declaration arms, the
// document blend, the test-file penalty and German compound matching; a
// dense arm fused by relative score at dense:lexical 0.3:1.
func SituateRecipe() Recipe {
	return Recipe{
		BM25K1:         DefaultBM25K1,
		BM25B:          DefaultBM25B,
		CodeArmWeight:  DefaultCodeArmWeight,
		CodeK1:         DefaultCodeK1,
		CodeB:          DefaultCodeB,
		DocumentWeight: DefaultDocumentWeight,
		CompoundWeight: DefaultCompoundWeight,
		PairArmWeight:  DefaultPairArmWeight,
		PairK1:         DefaultPairK1,
		PairB:          DefaultPairB,
		TestPenalty:    DefaultTestPenalty,
		DefsArmWeight:  DefaultDefsArmWeight,
		Candidates:     DefaultCandidates,
		Fusion:         DefaultFusion,
		DenseWeight:    DefaultDenseWeight,
		LexicalWeight:  DefaultLexicalWeight,
	}
}

// LuceneRecipe is one BM25 arm, exactly Lucene's ranking (BM25 with k1
// DefaultBM25K1 and b DefaultBM25B): no code, pair or declaration arm, no
// document blend, no test penalty, no compound matching. The dense arm, if
// any, fuses as in SituateRecipe.
func LuceneRecipe() Recipe {
	r := SituateRecipe()
	r.CodeArmWeight, r.PairArmWeight, r.DefsArmWeight = 0, 0, 0
	r.DocumentWeight, r.TestPenalty, r.CompoundWeight = 0, 0, 0
	return r
}

// RecipeNamed is the recipe of a name: "situate" or "lucene".
func RecipeNamed(name string) (Recipe, error) {
	switch name {
	case "situate":
		return SituateRecipe(), nil
	case "lucene":
		return LuceneRecipe(), nil
	}
	return Recipe{}, fmt.Errorf("recipe %q: must be situate or lucene: %w", name, ErrInvalid)
}

// Options configure an Engine. The zero value is not valid; start from
// DefaultOptions.
type Options struct {
	ChunkSize    int
	ChunkOverlap int

	// Analyzer forces one BM25 analyzer for every document ("english",
	// "code", ...). Empty picks the analyzer of each document's language.
	Analyzer string

	// Recipe is how the Engine ranks: its BM25 arms and their parameters,
	// how their scores combine, and how the dense arm fuses with them.
	// Its fields read as the Options' own (o.BM25K1).
	Recipe

	// ParallelDocuments bounds how many documents are contextualized at once.
	ParallelDocuments int
	// ChunkCacheBytes bounds the memory a writing Engine keeps the stored
	// chunks of recent hits in (0: no cache), rounded up to whole MiB. A
	// read-only Engine keeps none.
	ChunkCacheBytes int64

	// Embedder, when set, adds the dense arm: every contextualized chunk is
	// embedded and searched by vector; hybrid search fuses it with BM25.
	Embedder Embedder
	// EmbedMaxTokens is the embedder's input limit (0: unknown). A longer
	// contextualized chunk is never silently truncated: its context is
	// shortened first, then the chunk's tail, and the context is flagged
	// "embed-shortened".
	EmbedMaxTokens int
	// EmbedTokenCounter counts tokens the way the embedding provider's
	// client checks its input limit, so that a shortened text is never
	// refused; nil uses the chunker's o200k count.
	EmbedTokenCounter func(string) int
	// VectorQuantizeAbove is passed to the vector index: above this many
	// vectors a binary-quantized first pass picks candidates for exact
	// rescoring; 0 means the vector package's default, negative means
	// always exact.
	VectorQuantizeAbove int
	// Reranker, when set, reorders the top RerankCandidates fused results
	// of queries that ask for it.
	Reranker         Reranker
	RerankCandidates int

	// Backend, when set, is the index outside the process (Weaviate...) that
	// replaces the embedded BM25 arms and vector index; see IndexBackend.
	// The Engine closes it in Close.
	Backend driver.IndexBackend

	// Contextualizer writes chunk contexts; nil means no context at all
	// (raw chunks), which is what "before" measurements use.
	Contextualizer Contextualizer
	Logger         *slog.Logger

	// OpenMode says how Open takes the store: as its one writer
	// (OpenWriter, the zero value), as a reader (OpenReader), as a writer
	// of a shared store's rows alone (OpenStoreOnly), or as the writer when
	// it can be one (OpenAuto). See OpenMode for what each does when
	// another process holds the indexes.
	OpenMode OpenMode
	// LockWait is how long a writer waits for another writer to release
	// the store; 0 means DefaultLockWait, negative fails at once.
	LockWait time.Duration
	// SharedStore says that other processes write the store too (servers
	// and workers over one PostgreSQL database). The indexes in the
	// Engine's directory are then this process's own derived copy: Open
	// and Sync bring them up to the store's documents by version, and the
	// store, not this process's memory, says which version a document is
	// at. See Engine.Sync.
	SharedStore bool
}

// OpenMode says how an Engine takes its store and indexes.
type OpenMode int

const (
	// OpenWriter holds the index directory's write lock until Close: a
	// second writer waits Options.LockWait, then fails with ErrLocked
	// naming the holder. Its Open repairs the indexes to hold exactly the
	// store's documents.
	OpenWriter OpenMode = iota
	// OpenReader takes no lock, writes nothing (neither the store nor the
	// index directory) and searches the last committed state, so any
	// number of readers run beside one writer. An index that is damaged or
	// does not hold every stored document is searched from an in-memory
	// rebuild instead, with a warning; options that index another way
	// than the indexes on disk fail with ErrNeedsRebuild. Commit, Put and
	// Delete fail with ErrReadOnly. Over a SharedStore, a reader whose
	// index directory no process holds becomes its writer for the open,
	// so that it searches indexes brought up to the store (see Sync).
	OpenReader
	// OpenStoreOnly keeps no index at all: Commit writes the store (and
	// its caches) only, Search fails. A worker that only contextualizes
	// documents for others to search uses it; it needs SharedStore.
	OpenStoreOnly
	// OpenAuto is OpenWriter, except over a SharedStore whose index
	// directory another process of this machine holds (serve, mcp): then
	// it writes the shared store only (OpenStoreOnly), and the holder
	// syncs its indexes. Over a store of its own it waits for the lock as
	// OpenWriter does.
	OpenAuto
)

func (m OpenMode) String() string {
	switch m {
	case OpenWriter:
		return "writer"
	case OpenReader:
		return "reader"
	case OpenStoreOnly:
		return "store-only"
	case OpenAuto:
		return "auto"
	}
	return fmt.Sprintf("OpenMode(%d)", int(m))
}

// DefaultOptions returns the settings situate ships with.
func DefaultOptions() Options {
	return Options{
		ChunkSize:         DefaultChunkSize,
		ChunkOverlap:      DefaultChunkOverlap,
		Recipe:            SituateRecipe(),
		ParallelDocuments: DefaultParallelDocuments,
		ChunkCacheBytes:   DefaultChunkCacheBytes,
		RerankCandidates:  DefaultRerankCandidates,
	}
}

// Validate reports the first invalid field by name.
func (o Options) Validate() error {
	switch {
	case o.OpenMode < OpenWriter || o.OpenMode > OpenAuto:
		return fmt.Errorf("options: OpenMode: unknown mode %d: %w", o.OpenMode, ErrInvalid)
	case o.OpenMode == OpenStoreOnly && !o.SharedStore:
		return fmt.Errorf("options: OpenMode: OpenStoreOnly needs SharedStore (an index nobody keeps up to date would be lost): %w", ErrInvalid)
	case o.ChunkSize <= 0:
		return fmt.Errorf("options: ChunkSize: must be > 0, got %d: %w", o.ChunkSize, ErrInvalid)
	case o.ChunkOverlap < 0 || o.ChunkOverlap >= o.ChunkSize:
		return fmt.Errorf("options: ChunkOverlap: must be in [0, ChunkSize), got %d: %w", o.ChunkOverlap, ErrInvalid)
	case o.BM25K1 < 0:
		return fmt.Errorf("options: BM25K1: must be >= 0, got %g: %w", o.BM25K1, ErrInvalid)
	case o.BM25B < 0 || o.BM25B > 1:
		return fmt.Errorf("options: BM25B: must be in [0, 1], got %g: %w", o.BM25B, ErrInvalid)
	case o.CompoundWeight < 0:
		return fmt.Errorf("options: CompoundWeight: must be >= 0, got %g: %w", o.CompoundWeight, ErrInvalid)
	case o.ContextWeight < 0:
		return fmt.Errorf("options: ContextWeight: must be >= 0, got %g: %w", o.ContextWeight, ErrInvalid)
	case o.CodeArmWeight < 0:
		return fmt.Errorf("options: CodeArmWeight: must be >= 0, got %g: %w", o.CodeArmWeight, ErrInvalid)
	case o.CodeArmWeight > 0 && (o.CodeK1 < 0 || o.CodeB < 0 || o.CodeB > 1):
		return fmt.Errorf("options: CodeK1/CodeB: want k1 >= 0 and b in [0, 1], got %g/%g: %w", o.CodeK1, o.CodeB, ErrInvalid)
	case o.PairArmWeight < 0:
		return fmt.Errorf("options: PairArmWeight: must be >= 0, got %g: %w", o.PairArmWeight, ErrInvalid)
	case o.PairArmWeight > 0 && (o.PairK1 < 0 || o.PairB < 0 || o.PairB > 1):
		return fmt.Errorf("options: PairK1/PairB: want k1 >= 0 and b in [0, 1], got %g/%g: %w", o.PairK1, o.PairB, ErrInvalid)
	case o.DocumentWeight < 0:
		return fmt.Errorf("options: DocumentWeight: must be >= 0, got %g: %w", o.DocumentWeight, ErrInvalid)
	case o.DefsArmWeight < 0:
		return fmt.Errorf("options: DefsArmWeight: must be >= 0, got %g: %w", o.DefsArmWeight, ErrInvalid)
	case !(o.TestPenalty >= 0 && o.TestPenalty <= 1):
		return fmt.Errorf("options: TestPenalty: must be in [0, 1], got %g: %w", o.TestPenalty, ErrInvalid)
	case o.Fusion != FusionRRF && o.Fusion != FusionCookbook && o.Fusion != FusionMinMax && o.Fusion != FusionRelative:
		return fmt.Errorf("options: Fusion: must be rrf, cookbook, minmax or relative, got %q: %w", o.Fusion, ErrInvalid)
	case o.DenseWeight < 0 || o.LexicalWeight < 0:
		return fmt.Errorf("options: DenseWeight/LexicalWeight: must be >= 0, got %g/%g: %w", o.DenseWeight, o.LexicalWeight, ErrInvalid)
	case o.RerankCandidates <= 0:
		return fmt.Errorf("options: RerankCandidates: must be > 0, got %d: %w", o.RerankCandidates, ErrInvalid)
	case o.EmbedMaxTokens < 0:
		return fmt.Errorf("options: EmbedMaxTokens: must be >= 0, got %d: %w", o.EmbedMaxTokens, ErrInvalid)
	case o.Candidates <= 0:
		return fmt.Errorf("options: Candidates: must be > 0, got %d: %w", o.Candidates, ErrInvalid)
	case o.ParallelDocuments <= 0:
		return fmt.Errorf("options: ParallelDocuments: must be > 0, got %d: %w", o.ParallelDocuments, ErrInvalid)
	case o.ChunkCacheBytes < 0 || o.ChunkCacheBytes > 1<<40:
		return fmt.Errorf("options: ChunkCacheBytes: must be in [0, 1 TiB], got %d: %w", o.ChunkCacheBytes, ErrInvalid)
	}
	return nil
}

func (o Options) lockWait() time.Duration { return lockfile.Wait(o.LockWait, DefaultLockWait) }

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o.Logger
}
