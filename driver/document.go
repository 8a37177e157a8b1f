package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
)

// Document formats, as detected by ingestion.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
	FormatPDF      = "pdf"
	FormatDOCX     = "docx"
	FormatCode     = "code"
)

// Languages situate knows analyzers and prompt templates for (ISO 639-1).
// Other languages are indexed with the standard analyzer.
const (
	LangEnglish = "en"
	LangGerman  = "de"
	LangSpanish = "es"
	LangRussian = "ru"
	LangChinese = "zh"
)

// Document is one source document after parsing: plain UTF-8 text (Markdown
// for structured formats) that chunk spans index into.
type Document struct {
	// ID is stable across runs: the path relative to the root the file was
	// found under (forward slashes), or the id given in JSONL.
	ID    string
	Title string
	// Text is the document's full text; Chunk.Start/End are byte offsets into it.
	Text string
	// Format is one of the Format* constants.
	Format string
	// Lang is an ISO 639-1 code; empty means "detect from Text".
	Lang string
	// Path is the file the document was read from, if any (informational).
	Path     string
	Metadata map[string]string
	// Access lists the principals allowed to see the document and everything
	// derived from it (chunks, contexts). Empty means everyone.
	Access []string
}

// Hash identifies the document's content: anything that changes what chunks
// or contexts would be produced changes the hash. Metadata and access rights
// are part of it so a permission change is picked up on re-indexing.
func (d Document) Hash() string {
	h := sha256.New()
	write := func(s string) {
		var n [8]byte
		l := len(s)
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(s))
	}
	write(d.ID)
	write(d.Title)
	write(d.Format)
	write(d.Lang)
	write(d.Text)
	keys := make([]string, 0, len(d.Metadata))
	for k := range d.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		write(k)
		write(d.Metadata[k])
	}
	access := append([]string(nil), d.Access...)
	sort.Strings(access)
	for _, a := range access {
		write(a)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Chunk is a contiguous span of a document's text.
type Chunk struct {
	DocID string
	// Index is the chunk's 0-based position within its document.
	Index int
	// Start and End are byte offsets into Document.Text, on rune boundaries;
	// Text == Document.Text[Start:End].
	Start, End int
	Text       string
	// Heading is the heading path above the chunk, joined by " > ".
	Heading string
	// Tokens is the chunk's size in the chunker's tokenizer.
	Tokens int
}

// Context is the text that situates one chunk within its document.
type Context struct {
	Text string
	// Source names what made the context: "offline", "provided",
	// "anthropic:claude-haiku-4-5", ... It is shown with every search result.
	Source string
	// Flags lists checks the context failed or how it was obtained
	// ("fallback", "wrong-language", "unknown-number:42", ...). Empty is clean.
	Flags []string
}

// Contextualize joins a context and a chunk the way both indexes see them:
// the context is prepended, separated by a blank line.
func Contextualize(context, chunk string) string {
	if context == "" {
		return chunk
	}
	return context + "\n\n" + chunk
}
