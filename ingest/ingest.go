package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/situate/situate"
	"github.com/situate/situate/analysis"
)

// DefaultMaxFileSize is the largest file Walk and ParseFile read (64 MiB).
// Larger files are reported with ErrTooLarge and skipped unread.
const DefaultMaxFileSize int64 = 64 << 20

// DefaultIgnoreFiles are the per-directory ignore files honoured by Walk.
var DefaultIgnoreFiles = []string{".gitignore", ".situateignore"}

// DefaultSkipDirs are directory names Walk never enters: version control and
// situate's own store.
var DefaultSkipDirs = []string{".git", ".hg", ".svn", ".situate"}

// Errors a *FileError may wrap. Test with errors.Is.
var (
	ErrEmpty         = errors.New("empty file")
	ErrTooLarge      = errors.New("file too large")
	ErrBinary        = errors.New("binary content")
	ErrEncoding      = errors.New("unknown text encoding")
	ErrUnsupported   = errors.New("unsupported format")
	ErrNoText        = errors.New("no text")
	ErrSymlinkLoop   = errors.New("symlink loop")
	ErrNoPDF         = errors.New("pdf: no extractor configured")
	ErrInvalidRecord = errors.New("invalid record")
)

// Options configure Walk, ParseFile and Parse. The zero value is usable:
// no include/exclude globs, DefaultIgnoreFiles, DefaultMaxFileSize, no PDF.
type Options struct {
	// Include and Exclude are doublestar globs matched against a file's id
	// (its path relative to the root, forward slashes), e.g. "**/*.md".
	// A file must match some Include pattern (if any are given) and no
	// Exclude pattern; Exclude wins.
	Include, Exclude []string
	// IgnoreFiles are the gitignore-syntax files honoured in every directory,
	// like git does (nested files, negation, directory-only patterns). Nil
	// means DefaultIgnoreFiles; an empty non-nil slice disables them.
	IgnoreFiles []string
	// Hidden includes files and directories whose names start with "."
	// (.env, .vscode/...). By default Walk skips them, like ripgrep and fd:
	// dot-files are configuration and often secrets, rarely documents.
	// DefaultSkipDirs are skipped either way; a root is always walked.
	Hidden bool
	// MaxFileSize is the largest file read, in bytes; 0 means
	// DefaultMaxFileSize.
	MaxFileSize int64
	// PDF extracts the text of PDF files. Nil means PDFs are reported with
	// ErrNoPDF. Package ingest/pdf provides one; it lives apart because it
	// carries a WebAssembly build of PDFium.
	PDF PDFExtractor
	// Unchanged, when set, is asked before a file is read; returning true
	// skips reading and parsing it, and Walk reports it to fn as a
	// Document with only ID and Path set and the error ErrUnchanged.
	// Indexers use it to skip files whose size and modification time they
	// have already indexed.
	Unchanged func(id string, info fs.FileInfo) bool
}

// ErrUnchanged is passed to a Walk callback for files Options.Unchanged
// skipped; it is not a failure.
var ErrUnchanged = errors.New("ingest: unchanged")

func (o Options) maxFileSize() int64 {
	if o.MaxFileSize <= 0 {
		return DefaultMaxFileSize
	}
	return o.MaxFileSize
}

func (o Options) ignoreFiles() []string {
	if o.IgnoreFiles == nil {
		return DefaultIgnoreFiles
	}
	return o.IgnoreFiles
}

// Validate checks the globs.
func (o Options) Validate() error {
	for _, p := range o.Include {
		if !validGlob(p) {
			return fmt.Errorf("options: Include: bad pattern %q", p)
		}
	}
	for _, p := range o.Exclude {
		if !validGlob(p) {
			return fmt.Errorf("options: Exclude: bad pattern %q", p)
		}
	}
	if o.MaxFileSize < 0 {
		return fmt.Errorf("options: MaxFileSize: must be >= 0, got %d", o.MaxFileSize)
	}
	return nil
}

// PDFExtractor turns a PDF file into plain UTF-8 text, pages separated by a
// blank line.
type PDFExtractor interface {
	ExtractText(ctx context.Context, data []byte) (string, error)
}

// PDFMetadataExtractor is optionally implemented by a PDFExtractor that can
// also read the document information dictionary. Keys are lowercase
// ("title", "author", "subject", ...); only non-empty values are returned.
// When available, ingest uses the "title" entry as the Document's title.
type PDFMetadataExtractor interface {
	ExtractTextMetadata(ctx context.Context, data []byte) (text string, meta map[string]string, err error)
}

// FileError reports a file that could not be turned into a Document. Line is
// set (1-based) for errors in one line of a JSONL file.
type FileError struct {
	Path string
	Line int
	// Op is the operation that failed: "stat", "read", "read dir", "parse",
	// "walk".
	Op  string
	Err error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s %s:%d: %v", e.Op, QuoteName(e.Path), e.Line, e.Err)
	}
	return fmt.Sprintf("%s %s: %v", e.Op, QuoteName(e.Path), e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// ParseFile reads and parses one file. id becomes Document.ID; an empty id
// means the file's base name. Errors are *FileError.
func ParseFile(ctx context.Context, file, id string, opts Options) (situate.Document, error) {
	if id == "" {
		id = filepath.Base(file)
	}
	fi, err := os.Stat(file)
	if err != nil {
		return situate.Document{}, &FileError{Path: file, Op: "stat", Err: unwrapPathError(err)}
	}
	if fi.IsDir() {
		return situate.Document{}, &FileError{Path: file, Op: "read", Err: errors.New("is a directory")}
	}
	return parseFileInfo(ctx, file, id, fi.Size(), opts)
}

func parseFileInfo(ctx context.Context, file, id string, size int64, opts Options) (situate.Document, error) {
	if err := ctx.Err(); err != nil {
		return situate.Document{}, &FileError{Path: file, Op: "read", Err: err}
	}
	if err := checkName(id); err != nil {
		return situate.Document{}, &FileError{Path: file, Op: "read", Err: err}
	}
	max := opts.maxFileSize()
	if size > max {
		return situate.Document{}, &FileError{Path: file, Op: "read", Err: fmt.Errorf("%w: %d bytes > max %d", ErrTooLarge, size, max)}
	}
	if size == 0 {
		return situate.Document{}, &FileError{Path: file, Op: "read", Err: ErrEmpty}
	}
	name := filepath.Base(file)
	inner, gz := gzipped(path.Base(filepath.ToSlash(file)))
	if f := formatOf(path.Base(filepath.ToSlash(file))); f == formatBinary && !gz {
		return situate.Document{}, &FileError{Path: file, Op: "parse", Err: fmt.Errorf("%w: %s", ErrUnsupported, strings.ToLower(filepath.Ext(file)))}
	}
	f, err := os.Open(file)
	if err != nil {
		return situate.Document{}, &FileError{Path: file, Op: "read", Err: unwrapPathError(err)}
	}
	defer f.Close()
	data, err := readLimited(f, max)
	if err != nil {
		return situate.Document{}, &FileError{Path: file, Op: "read", Err: unwrapPathError(err)}
	}
	if gz {
		if data, err = gunzip(data, max); err != nil {
			return situate.Document{}, &FileError{Path: file, Op: "parse", Err: err}
		}
		name = inner
	}
	doc, err := Parse(ctx, data, id, name, opts)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.Path = file
			return situate.Document{}, fe
		}
		return situate.Document{}, &FileError{Path: file, Op: "parse", Err: err}
	}
	doc.Path = file
	return doc, nil
}

// ParseReader reads r whole (at most opts.MaxFileSize bytes) and parses it
// like Parse. It serves stdin: name picks the format ("-" or "" sniffs it).
func ParseReader(ctx context.Context, r io.Reader, id, name string, opts Options) (situate.Document, error) {
	label := name
	if label == "" {
		label = id
	}
	data, err := readLimited(r, opts.maxFileSize())
	if err != nil {
		return situate.Document{}, &FileError{Path: label, Op: "read", Err: err}
	}
	return Parse(ctx, data, id, name, opts)
}

// gzipped reports whether a file named base is one gzip-compressed file
// that ingest reads (Debian's changelog.Debian.gz, README.gz, manual pages
// such as ls.1.gz), and the name it had before compression. Compressed
// archives (.tar.gz) and compressed formats ingest refuses (image.png.gz)
// are not.
func gzipped(base string) (inner string, ok bool) {
	lower := strings.ToLower(base)
	if !strings.HasSuffix(lower, ".gz") || len(base) <= len(".gz") {
		return "", false
	}
	inner = base[:len(base)-len(".gz")]
	if strings.HasSuffix(strings.ToLower(inner), ".tar") || formatOf(inner) == formatBinary {
		return "", false
	}
	return inner, true
}

// gunzip decompresses a gzip file (all its members) of at most max bytes
// decompressed: a file that inflates beyond is refused unread past max
// (ErrTooLarge), so a small bomb costs max bytes, not its claimed size.
func gunzip(data []byte, max int64) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, max+1))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if int64(len(out)) > max {
		return nil, fmt.Errorf("gzip: %w: decompresses to more than %d bytes", ErrTooLarge, max)
	}
	return out, nil
}

func readLimited(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than max %d bytes", ErrTooLarge, max)
	}
	return data, nil
}

// Parse turns the bytes of one file into a Document. The format comes from
// name's extension, corrected by content sniffing (PDF and DOCX magic, HTML
// markup in a file without a known extension). id becomes Document.ID (name
// if empty). Errors are *FileError naming name (or id).
func Parse(ctx context.Context, data []byte, id, name string, opts Options) (situate.Document, error) {
	label := name
	if label == "" || label == "-" {
		label = id
	}
	if id == "" {
		id = name
	}
	fail := func(err error) (situate.Document, error) {
		return situate.Document{}, &FileError{Path: label, Op: "parse", Err: err}
	}
	if id == "" {
		return fail(errors.New("document needs an id or a name"))
	}
	if err := checkName(id); err != nil {
		return fail(fmt.Errorf("id: %w", err))
	}
	if len(data) == 0 {
		return situate.Document{}, &FileError{Path: label, Op: "read", Err: ErrEmpty}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	base := path.Base(filepath.ToSlash(name))
	if name == "" || name == "-" {
		base = ""
	}
	format := sniff(data, formatOf(base))
	fallbackTitle := titleFromName(base, id)
	doc := situate.Document{ID: id, Format: format}
	var err error
	switch format {
	case formatBinary:
		return fail(fmt.Errorf("%w: %s", ErrUnsupported, strings.ToLower(path.Ext(base))))
	case situate.FormatPDF:
		doc.Text, doc.Title, err = parsePDF(ctx, data, opts)
	case situate.FormatDOCX:
		doc.Text, doc.Title, doc.Lang, err = parseDOCX(data, opts.maxFileSize())
	default:
		var text string
		if format == situate.FormatHTML {
			text, err = decodeHTML(data)
		} else {
			text, err = decodeText(data)
		}
		if err != nil {
			return fail(err)
		}
		switch format {
		case situate.FormatHTML:
			doc.Text, doc.Title, doc.Lang, err = parseHTML(ctx, text)
		case situate.FormatMarkdown:
			doc.Text, doc.Title = text, markdownTitle(text)
		case situate.FormatText:
			if isManPage(base, text) {
				doc.Text, doc.Title = manToMarkdown(text)
				doc.Format = situate.FormatMarkdown
				break
			}
			doc.Text = text
		default: // text, code
			doc.Text = text
		}
	}
	if err != nil {
		return fail(err)
	}
	if strings.TrimSpace(doc.Text) == "" {
		return fail(ErrNoText)
	}
	if !utf8.ValidString(doc.Text) {
		// Every parser yields UTF-8; this guards the promise.
		doc.Text = strings.ToValidUTF8(doc.Text, "\uFFFD")
	}
	doc.Title = cleanTitle(doc.Title)
	if doc.Title == "" {
		doc.Title = fallbackTitle
	}
	if doc.Lang == "" && doc.Format == situate.FormatCode {
		// Code is judged by its comments: its identifiers read as
		// Portuguese or Dutch to a prose detector (issue 13).
		doc.Lang = analysis.DetectFormat(doc.Text, doc.Format)
	}
	return doc, nil
}

func parsePDF(ctx context.Context, data []byte, opts Options) (text, title string, err error) {
	if opts.PDF == nil {
		return "", "", ErrNoPDF
	}
	var meta map[string]string
	if m, ok := opts.PDF.(PDFMetadataExtractor); ok {
		text, meta, err = m.ExtractTextMetadata(ctx, data)
	} else {
		text, err = opts.PDF.ExtractText(ctx, data)
	}
	if err != nil {
		return "", "", err
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	title = meta["title"]
	if strings.TrimSpace(title) == "" {
		title = firstLine(text)
	}
	return text, title, nil
}

func firstLine(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		if l := strings.TrimSpace(line); l != "" {
			return l
		}
	}
	return ""
}

// maxTitleLen bounds titles taken from content (bytes, cut on a rune boundary).
const maxTitleLen = 200

func cleanTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if len(t) > maxTitleLen {
		cut := maxTitleLen
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = strings.TrimSpace(t[:cut]) + "…"
	}
	return t
}

func titleFromName(base, id string) string {
	if base != "" {
		return base
	}
	return path.Base(id)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

var (
	magicPDF = []byte("%PDF-")
	magicZip = []byte("PK\x03\x04")
)

// sniff corrects the extension's verdict with the content's magic bytes.
func sniff(data []byte, byExt string) string {
	head := data
	if len(head) > 1024 {
		head = head[:1024]
	}
	switch {
	case bytes.HasPrefix(data, magicPDF) && (byExt == "" || byExt == situate.FormatText):
		return situate.FormatPDF
	case bytes.HasPrefix(data, magicZip) && (byExt == "" || byExt == situate.FormatDOCX) && bytes.Contains(data, []byte("word/document.xml")):
		return situate.FormatDOCX
	case byExt == situate.FormatPDF || byExt == situate.FormatDOCX:
		return byExt // let the parser report the damage
	case byExt == "" && looksLikeHTML(head):
		return situate.FormatHTML
	case byExt == "":
		return situate.FormatText
	}
	return byExt
}

func looksLikeHTML(head []byte) bool {
	h := bytes.ToLower(bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")), " \t\r\n"))
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html"))
}
