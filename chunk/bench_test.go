package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// benchMarkdown builds a Markdown document of about n bytes: sections with
// prose, lists, a table and a code fence, in English, German and Chinese.
func benchMarkdown(n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "## Section %d\n\nThe depot in Harwick handled %d pallets, e.g. in the third quarter. "+
			"Dr. Moreau noted that revenue grew 3.%d%% while costs fell. The team moved to a new site!\n\n", i, i*7, i%10)
		fmt.Fprintf(&sb, "Die Firma wurde am %d. Oktober gegründet, z.B. in Bonn. Sie wuchs schnell und beschäftigt heute %d Menschen.\n\n", i%28+1, i*3)
		sb.WriteString("公司在第三季度的收入增长了百分之三。新的仓库位于河边，每天处理大量货物。\n\n")
		sb.WriteString("- first item of the list\n- second item, longer than the first one\n- third\n\n")
		sb.WriteString("| Quarter | Revenue |\n|---|---|\n| Q1 | 10 |\n| Q2 | 12 |\n\n")
		if i%3 == 0 {
			sb.WriteString("```go\nfunc Load(path string) (*Config, error) {\n\treturn nil, nil\n}\n```\n\n")
		}
	}
	return sb.String()
}

func BenchmarkSplit(b *testing.B) {
	CountTokens("warm up") // exclude the tokenizer's one-time initialisation
	for _, n := range []int{256 << 10, 1 << 20} {
		doc := benchMarkdown(n)
		b.Run("markdown/bytes="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			var spans []Span
			for b.Loop() {
				spans, _ = Split(doc, Options{Size: DefaultSize, Overlap: DefaultOverlap, Format: FormatMarkdown})
			}
			b.ReportMetric(float64(len(spans)), "chunks")
		})
	}
	doc := benchMarkdown(1 << 20)
	b.Run("text/bytes=1048576", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			Split(doc, Options{Size: DefaultSize, Overlap: DefaultOverlap})
		}
	})
}

func BenchmarkCountTokens(b *testing.B) {
	para := "The depot in Harwick handled 700 pallets, e.g. in the third quarter. Dr. Moreau noted that revenue grew 3.5% while costs fell."
	CountTokens(para)
	b.ReportAllocs()
	b.SetBytes(int64(len(para)))
	for b.Loop() {
		CountTokens(para)
	}
}

// TestHugeInput splits a large document and reports the peak heap. The
// size comes from SITUATE_CHUNK_HUGE_MB (default: skipped) because it
// takes about 45 s per 100 MB.
func TestHugeInput(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("SITUATE_CHUNK_HUGE_MB"))
	if mb <= 0 {
		t.Skip("set SITUATE_CHUNK_HUGE_MB=100 to split a 100 MB document")
	}
	doc := benchMarkdown(mb << 20)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var p uint64
		for {
			select {
			case <-stop:
				peak <- p
				return
			default:
			}
			runtime.ReadMemStats(&m)
			p = max(p, m.HeapInuse)
			runtime.Gosched()
		}
	}()
	spans, err := Split(doc, Options{Size: DefaultSize, Overlap: DefaultOverlap, Format: FormatMarkdown})
	close(stop)
	p := <-peak
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d MB document: %d spans, heap in use before %d MB, peak %d MB (spans %d MB)",
		len(doc)>>20, len(spans), before.HeapInuse>>20, p>>20, (len(spans)*int(unsafeSizeofSpan))>>20)
	// Split keeps only one chunk's pieces and the spans; the rest is
	// short-lived tokenizer garbage, which GOGC=100 lets grow to about the
	// size of the live heap (the document) before it is collected.
	if extra := int64(p) - int64(before.HeapInuse); extra > 2*int64(len(doc)) {
		t.Errorf("peak heap grew by %d MB for a %d MB input", extra>>20, len(doc)>>20)
	}
}

const unsafeSizeofSpan = 48

// BenchmarkSplitGoSource splits the Go files of the standard library's
// net/http (real code, from this machine's GOROOT) as code, the way an
// index run of GOROOT does.
func BenchmarkSplitGoSource(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if len(files) == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	var docs, paths []string
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		docs, paths = append(docs, string(data)), append(paths, f)
		size += len(data)
	}
	CountTokens("warm up")
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		for i, d := range docs {
			if _, err := Split(d, Options{Size: DefaultSize, Overlap: DefaultOverlap, Format: FormatCode, Path: paths[i]}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
