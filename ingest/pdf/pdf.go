package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerr "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Defaults.
const (
	// DefaultWorkers is the number of PDFium instances run in parallel.
	DefaultWorkers = 1
	// DefaultMemoryLimit caps each instance's WebAssembly memory (bytes).
	DefaultMemoryLimit = 2 << 30
	// DefaultTimeout bounds the extraction of one document; 0 in Options
	// means this value, a negative value means no limit beyond ctx.
	DefaultTimeout = 2 * time.Minute
)

// Errors returned (wrapped) by ExtractText.
var (
	ErrEncrypted = errors.New("pdf: encrypted, password required")
	ErrDamaged   = errors.New("pdf: damaged or not a PDF")
	ErrClosed    = errors.New("pdf: extractor closed")
)

// Options configure an Extractor. The zero value is usable.
type Options struct {
	// CacheDir holds wazero's compiled PDFium module so that later
	// processes initialise fast. "" means DefaultCacheDir(); "off" disables
	// the on-disk cache.
	CacheDir string
	// Workers is the number of documents extracted at the same time; 0
	// means DefaultWorkers. Each worker holds its own WebAssembly memory.
	Workers int
	// MemoryLimit caps one worker's WebAssembly memory in bytes; 0 means
	// DefaultMemoryLimit.
	MemoryLimit int64
	// Timeout bounds one document's extraction; 0 means DefaultTimeout.
	Timeout time.Duration
}

// DefaultCacheDir is os.UserCacheDir()/situate/wazero, or "" when the user
// has no cache directory.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "situate", "wazero")
}

// Extractor extracts text from PDFs with PDFium compiled to WebAssembly and
// run by wazero (pure Go, no cgo). It initialises lazily on first use (or
// with Init) and is safe for concurrent use. Close releases it.
type Extractor struct {
	opts Options

	mu      sync.Mutex
	pool    pdfium.Pool
	initErr error
	closed  bool
	cache   wazero.CompilationCache
	// InitDuration is how long the last successful Init took.
	initDuration time.Duration
}

// New returns an Extractor; PDFium is not loaded until the first document
// or an explicit Init.
func New(opts Options) *Extractor {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.CacheDir == "" {
		opts.CacheDir = DefaultCacheDir()
	}
	return &Extractor{opts: opts}
}

// Init loads PDFium now: compiles the WebAssembly module (or loads the
// compiled code from CacheDir) and starts the workers. A failed Init is
// remembered and returned again.
func (e *Extractor) Init(ctx context.Context) error {
	_, err := e.getPool(ctx)
	return err
}

// InitDuration reports how long initialisation took (0 before Init).
func (e *Extractor) InitDuration() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.initDuration
}

func (e *Extractor) getPool(ctx context.Context) (pdfium.Pool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	if e.pool != nil || e.initErr != nil {
		return e.pool, e.initErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	rc := wazero.NewRuntimeConfig().
		// The bundled PDFium lowers setjmp/longjmp to WebAssembly exception
		// handling, which must stay enabled in a custom config.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(e.opts.MemoryLimit / 65536))
	if dir := e.opts.CacheDir; dir != "" && dir != "off" {
		if err := os.MkdirAll(dir, 0o755); err == nil {
			if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				e.cache = c
				rc = rc.WithCompilationCache(c)
			}
		}
		// An unusable cache directory only costs start-up time.
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:  1,
		MaxIdle:  e.opts.Workers,
		MaxTotal: e.opts.Workers,
		// No file system: documents are passed as bytes, PDFium sees nothing.
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
		ReuseWorkers:  true,
	})
	if err != nil {
		e.initErr = fmt.Errorf("pdf: init pdfium: %w", err)
		return nil, e.initErr
	}
	e.pool = pool
	e.initDuration = time.Since(start)
	return pool, nil
}

// ExtractText returns the text of every page, pages separated by a blank
// line. It implements ingest.PDFExtractor.
func (e *Extractor) ExtractText(ctx context.Context, data []byte) (string, error) {
	text, _, err := e.extract(ctx, data, false)
	return text, err
}

// ExtractTextMetadata is ExtractText plus the document information
// dictionary: lowercase keys "title", "author", "subject", "keywords",
// "creator", "producer", non-empty values only. It implements
// ingest.PDFMetadataExtractor.
func (e *Extractor) ExtractTextMetadata(ctx context.Context, data []byte) (string, map[string]string, error) {
	return e.extract(ctx, data, true)
}

var metaTags = []string{"Title", "Author", "Subject", "Keywords", "Creator", "Producer"}

func (e *Extractor) extract(ctx context.Context, data []byte, withMeta bool) (text string, meta map[string]string, err error) {
	if len(data) == 0 {
		return "", nil, fmt.Errorf("%w: empty input", ErrDamaged)
	}
	pool, err := e.getPool(ctx)
	if err != nil {
		return "", nil, err
	}
	// Waiting for a worker is not this document's extraction: after a
	// worker was killed, the pool starts a new one, which takes a while on
	// a busy machine. Only the caller's context bounds the wait; the
	// timeout starts once the document is in a worker.
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", nil, fmt.Errorf("pdf: waiting for a worker: %w", ctx.Err())
		}
		return "", nil, fmt.Errorf("pdf: get worker: %w", err)
	}
	if e.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opts.Timeout)
		defer cancel()
	}
	// A document that hangs PDFium is stopped by killing its worker when
	// ctx ends; wazero closes the module on context cancellation.
	done, exited := make(chan struct{}), make(chan struct{})
	killed := false
	var opened *references.FPDF_DOCUMENT
	go func() {
		defer close(exited)
		select {
		case <-ctx.Done():
			inst.Kill()
			killed = true
		case <-done:
		}
	}()
	defer func() {
		r := recover()
		close(done)
		<-exited // never Close and Kill the same instance concurrently
		if killed {
			err = fmt.Errorf("pdf: extraction stopped: %w", ctx.Err())
			text, meta = "", nil
			return
		}
		if opened != nil {
			inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: *opened})
		}
		inst.Close()
		if r != nil {
			err = fmt.Errorf("%w: pdfium panicked: %v", ErrDamaged, r)
			text, meta = "", nil
		}
	}()

	buf := data
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &buf})
	if err != nil {
		switch {
		case errors.Is(err, pdfiumerr.ErrPassword), errors.Is(err, pdfiumerr.ErrSecurity):
			return "", nil, fmt.Errorf("%w: %w", ErrEncrypted, err)
		default:
			return "", nil, fmt.Errorf("%w: %w", ErrDamaged, err)
		}
	}
	opened = &doc.Document

	if withMeta {
		meta = map[string]string{}
		for _, tag := range metaTags {
			r, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: tag})
			if err == nil && strings.TrimSpace(r.Value) != "" {
				meta[strings.ToLower(tag)] = strings.TrimSpace(r.Value)
			}
		}
	}
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return "", nil, fmt.Errorf("%w: page count: %w", ErrDamaged, err)
	}
	var b strings.Builder
	for i := range count.PageCount {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		raw, err := pageText(inst, doc.Document, i)
		if err != nil {
			return "", nil, fmt.Errorf("%w: page %d: %w", ErrDamaged, i+1, err)
		}
		page := cleanPage(raw)
		if page == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(page)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String(), meta, nil
}

var ligatures = strings.NewReplacer("\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st")

// cleanPage normalises PDFium's page text: "\r\n" line ends become "\n",
// PDFium's hyphenation and non-character marks are dropped, invalid
// sequences are replaced, and trailing spaces and blank runs are trimmed so
// that a blank line only ever separates pages.
func cleanPage(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	// A word PDFium hyphenated at a line break is joined again, and
	// typographic ligatures are spelled out, so that "infor-/mation" and
	// "ﬁnished" are found as the words they are.
	s = strings.ReplaceAll(s, "\x02\n", "")
	s = ligatures.Replace(s)
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == 0x02: // PDFium marks a soft hyphen at a line break
			return '-'
		case r < 0x20, r == 0xFFFE, r == 0xFFFF:
			return -1
		}
		return r
	}, s)
	s = strings.ToValidUTF8(s, "\uFFFD")
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// Close stops the workers. Extraction after Close returns ErrClosed.
func (e *Extractor) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	var err error
	if e.pool != nil {
		err = e.pool.Close()
		e.pool = nil
	}
	if e.cache != nil {
		e.cache.Close(context.Background())
	}
	return err
}

// pageText reads one page's text with a single FPDFText_GetText call. The
// go-pdfium GetPageText helper makes one WebAssembly call per character:
// 1.7x slower with 120x the allocations on a 100-page document
// (BenchmarkExtract), and it cannot join UTF-16 surrogate pairs.
func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) (string, error) {
	page, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return "", err
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return "", err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return "", err
	}
	if n.Count <= 0 {
		return "", nil
	}
	r, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: n.Count})
	if err != nil {
		return "", err
	}
	return r.Text, nil
}
