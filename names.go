package situate

import "github.com/situate/situate/driver"

// The nouns a program using situate names. They are defined in package
// driver, which stores, index backends and model providers implement, so
// both sides share one definition; a program need not import driver.
type (
	// Document is one source document: plain UTF-8 text that chunk spans
	// index into, with its id, title, format, language, metadata and access.
	Document = driver.Document
	// Chunk is a span of a Document.
	Chunk = driver.Chunk
	// Context is the text that situates a chunk in its document, and what
	// made it.
	Context = driver.Context
	// DocumentRecord is what the store holds about an indexed document.
	DocumentRecord = driver.DocumentRecord
	// StoredChunk is a stored chunk with its context.
	StoredChunk = driver.StoredChunk
	// ChunkRef names a chunk by document and index.
	ChunkRef = driver.ChunkRef
	// Filter restricts a search (see driver.Filter).
	Filter = driver.Filter
	// Condition tests a metadata value in a Filter.
	Condition = driver.Condition
	// Op is the test a Condition makes.
	Op = driver.Op
	// Contextualizer writes the contexts of a document's chunks.
	Contextualizer = driver.Contextualizer
	// Embedder turns texts into vectors.
	Embedder = driver.Embedder
	// Reranker reorders candidate texts for a query.
	Reranker = driver.Reranker
	// Usage is what one model call consumed.
	Usage = driver.Usage
	// CallEvent reports one model call's progress.
	CallEvent = driver.CallEvent
)

// Document formats, as detected by ingestion.
const (
	FormatText     = driver.FormatText
	FormatMarkdown = driver.FormatMarkdown
	FormatHTML     = driver.FormatHTML
	FormatPDF      = driver.FormatPDF
	FormatDOCX     = driver.FormatDOCX
	FormatCode     = driver.FormatCode
)

// Languages situate has analyzers and prompt templates for (ISO 639-1).
const (
	LangEnglish = driver.LangEnglish
	LangGerman  = driver.LangGerman
	LangSpanish = driver.LangSpanish
	LangRussian = driver.LangRussian
	LangChinese = driver.LangChinese
)

// Search modes (Query.Mode).
const (
	ModeBM25   = driver.ModeBM25
	ModeDense  = driver.ModeDense
	ModeHybrid = driver.ModeHybrid
)

// Condition operators (see driver.Op).
const (
	OpEq     = driver.OpEq
	OpIn     = driver.OpIn
	OpLt     = driver.OpLt
	OpLte    = driver.OpLte
	OpGt     = driver.OpGt
	OpGte    = driver.OpGte
	OpRange  = driver.OpRange
	OpExists = driver.OpExists
)

// Job states.
const (
	JobQueued  = driver.JobQueued
	JobRunning = driver.JobRunning
	JobDone    = driver.JobDone
	JobFailed  = driver.JobFailed
)

// Sentinel errors (see package driver for what each means). They are the
// driver's own values, so errors.Is matches whichever name a caller uses.
var (
	ErrNotFound        = driver.ErrNotFound
	ErrInvalid         = driver.ErrInvalid
	ErrStoreTooNew     = driver.ErrStoreTooNew
	ErrPromptTooLarge  = driver.ErrPromptTooLarge
	ErrLocked          = driver.ErrLocked
	ErrReadOnly        = driver.ErrReadOnly
	ErrNeedsRebuild    = driver.ErrNeedsRebuild
	ErrDuplicateID     = driver.ErrDuplicateID
	ErrUnauthorized    = driver.ErrUnauthorized
	ErrModelNotFound   = driver.ErrModelNotFound
	ErrProviderFailing = driver.ErrProviderFailing
)
