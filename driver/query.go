package driver

// Search modes.
const (
	ModeBM25   = "bm25"
	ModeDense  = "dense"
	ModeHybrid = "hybrid"
)
