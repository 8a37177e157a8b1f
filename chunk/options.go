package chunk

import (
	"fmt"
	"strings"
)

// Defaults for Options.
const (
	// DefaultSize is the target maximum of tokens per chunk.
	DefaultSize = 400
	// DefaultOverlap is the number of tokens carried over from the end of
	// the previous chunk.
	DefaultOverlap = 50
	// MinSize is the smallest accepted Size: every rune (at most 4 bytes, so
	// at most 4 tokens) must fit in a chunk on its own.
	MinSize = 8
)

// Formats understood by Split. They match the format names of the root
// package (situate.FormatText ...).
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatHTML     = "html" // HTML already converted to Markdown
	FormatPDF      = "pdf"  // plain text extracted from a PDF
	FormatDOCX     = "docx" // plain text extracted from a DOCX
	FormatCode     = "code"
)

// Options control Split.
type Options struct {
	// Size is the target maximum number of tokens per chunk; 0 means
	// DefaultSize.
	Size int
	// Overlap is how many tokens of the previous chunk's end the next chunk
	// repeats, snapped to a sentence or word boundary. 0 means no overlap
	// (DefaultOptions sets DefaultOverlap). It must be at most Size/2.
	Overlap int
	// Format is one of the Format* constants; empty means FormatText.
	Format string
	// Path is the document's file path. For FormatCode its extension picks
	// the language; other formats ignore it.
	Path string
}

// DefaultOptions returns Options with DefaultSize, DefaultOverlap and
// FormatText.
func DefaultOptions() Options {
	return Options{Size: DefaultSize, Overlap: DefaultOverlap, Format: FormatText}
}

// Validate reports the first invalid field of o, naming it. Zero values that
// have a default (Size, Format) are valid.
func (o Options) Validate() error {
	if o.Size != 0 && o.Size < MinSize {
		return fmt.Errorf("chunk options: Size: %d is below the minimum of %d tokens", o.Size, MinSize)
	}
	size := o.Size
	if size == 0 {
		size = DefaultSize
	}
	if o.Overlap < 0 {
		return fmt.Errorf("chunk options: Overlap: %d must not be negative", o.Overlap)
	}
	if o.Overlap > size/2 {
		return fmt.Errorf("chunk options: Overlap: %d exceeds half of Size (%d)", o.Overlap, size)
	}
	switch o.Format {
	case "", FormatText, FormatMarkdown, FormatHTML, FormatPDF, FormatDOCX, FormatCode:
	default:
		return fmt.Errorf("chunk options: Format: unknown format %q (want one of %s)", o.Format,
			strings.Join([]string{FormatText, FormatMarkdown, FormatHTML, FormatPDF, FormatDOCX, FormatCode}, ", "))
	}
	return nil
}

// withDefaults fills zero values; o must be valid.
func (o Options) withDefaults() Options {
	if o.Size == 0 {
		o.Size = DefaultSize
	}
	if o.Format == "" {
		o.Format = FormatText
	}
	return o
}
