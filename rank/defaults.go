package rank

// Recipe defaults, chosen on the tune half of the codebase set (EVAL.md).
const (
	// DefaultCodeK1 and DefaultCodeB are the BM25 parameters of the code
	// arm: a low b penalises long chunks less.
	DefaultCodeK1 = 1.6
	DefaultCodeB  = 0.3
	// DefaultCodeWeight weights the code-analyzer arm against the language
	// arm (weight 1) in Combine.
	DefaultCodeWeight = 1.0
	// DefaultDocumentWeight is DocumentBlend's weight.
	DefaultDocumentWeight = 0.7
	// DefaultPairWeight, DefaultPairK1 and DefaultPairB are the
	// DocumentEvidence weight and the BM25 parameters of the word-pair arm
	// (PairText of the language analyzer's terms, indexed with
	// DefaultPairAnalyzer).
	DefaultPairWeight = 0.7
	DefaultPairK1     = 1.6
	DefaultPairB      = 0.3
	// DefaultPairAnalyzer is the bm25 analyzer of the word-pair arm: it
	// keeps every "left_right" pair token whole and unstemmed.
	DefaultPairAnalyzer = "standard"
	// DefaultDefinitionWeight weights the declaration arm (what a chunk of
	// source code declares, "func (r *Reader) Read", under the code
	// analyzer with DefaultCodeK1 and DefaultCodeB) against the language arm
	// in Combine; chosen on the tune half of the code-search set on GOROOT
	// (bench/codesearch, EVAL.md).
	DefaultDefinitionWeight = 1.25
	// DefaultCandidates is how many results each arm contributes before
	// Combine and DocumentBlend (the technique's "top 150").
	DefaultCandidates = 150
)
