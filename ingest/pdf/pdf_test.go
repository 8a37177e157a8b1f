package pdf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
)

var (
	sharedOnce sync.Once
	shared     *pdf.Extractor
)

// extractor returns one Extractor for the package's tests. It uses the
// default on-disk compilation cache, so only the first run on a machine
// pays for compiling PDFium.
func extractor(t testing.TB) *pdf.Extractor {
	t.Helper()
	sharedOnce.Do(func() {
		shared = pdf.New(pdf.Options{Workers: 2})
		if err := shared.Init(context.Background()); err != nil {
			t.Fatalf("init: %v", err)
		}
		t.Logf("PDFium init took %v (cache %s)", shared.InitDuration(), pdf.DefaultCacheDir())
	})
	return shared
}

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// spaces collapses whitespace runs to one space; squash removes them (a
// Chinese line wrap inserts a line break where the source had none).
func spaces(s string) string { return strings.Join(strings.Fields(s), " ") }
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func TestExtractText(t *testing.T) {
	tests := []struct {
		file, title string
		want        []string // in order, whitespace collapsed
		cjk         bool
	}{
		{"de/burg-falkenried.pdf", "Burg Falkenried", []string{
			"Burg Falkenried ist eine Höhenburg über dem Tal der Lauter in Schwaben.",
			"Der quadratische Bergfried aus Buckelquadern ist 27 Meter hoch.",
			"mit drei Schalentürmen erweitert, die den Zugang von Süden sicherte.",
			"Im Bauernkrieg 1525 wurde die Anlage gestürmt und in Brand gesetzt.",
			"der 64 Meter tief in den Fels reicht.",
		}, false},
		{"ru/kedrovskaya-observatoriya.pdf", "Кедровская обсерватория", []string{
			"Кедровская обсерватория находится на вершине горы Шумной в Западных Саянах, на высоте 2140 метров.",
			"Главный телескоп с зеркалом диаметром 1,6 метра установлен в 1974 году.",
			"Зимой дорогу заносит снегом, и сотрудников доставляют на вершину вездеходом.",
			"которую назвали в честь первого директора, Ивана Соломатина.",
		}, false},
		{"zh/yunxi-chayuan.pdf", "云溪茶园", []string{
			"云溪茶园坐落在福建武夷山脉东麓，海拔六百至九百米，面积约一百二十公顷，以出产岩茶闻名。",
			"其中最老的一株水仙树龄已超过一百五十年，至今仍每年采摘。",
			"炭焙要反复进行三次，前后历时约两个月。",
			"一九八六年，这里生产的肉桂在全国名茶评比中获得金奖，从此声名远播。",
		}, true},
	}
	e := extractor(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			text, meta, err := e.ExtractTextMetadata(context.Background(), read(t, filepath.Join("../testdata/corpus", tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			if meta["title"] != tt.title {
				t.Errorf("meta title = %q, want %q", meta["title"], tt.title)
			}
			norm := spaces
			if tt.cjk {
				norm = squash
			}
			got, pos := norm(text), 0
			for _, w := range tt.want {
				i := strings.Index(got[pos:], norm(w))
				if i < 0 {
					t.Errorf("text lacks %q (in order):\n%s", w, text)
					continue
				}
				pos += i
			}
			// Two pages: exactly one blank line, between them.
			if n := strings.Count(text, "\n\n"); n != 1 {
				t.Errorf("%d blank lines, want 1 page separator:\n%q", n, text)
			}
			if strings.ContainsAny(text, "\r\x00\uFFFD") {
				t.Errorf("text has CR, NUL or replacement characters: %q", text)
			}
		})
	}
}

func TestExtractErrors(t *testing.T) {
	e := extractor(t)
	good := read(t, "../testdata/corpus/de/burg-falkenried.pdf")
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"broken fixture", read(t, "../testdata/bad/broken.pdf"), pdf.ErrDamaged},
		{"not a pdf", []byte("hello, world"), pdf.ErrDamaged},
		{"empty", nil, pdf.ErrDamaged},
		{"truncated at half", good[:len(good)/2], pdf.ErrDamaged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.ExtractText(context.Background(), tt.data)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.ExtractText(ctx, good); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: err = %v", err)
	}
	// The extractor still works after the failures.
	if text, err := e.ExtractText(context.Background(), good); err != nil || !strings.Contains(text, "Falkenried") {
		t.Errorf("after errors: %v", err)
	}
}

func TestExtractConcurrent(t *testing.T) {
	e := extractor(t)
	files := []string{"de/burg-falkenried.pdf", "ru/kedrovskaya-observatoriya.pdf", "zh/yunxi-chayuan.pdf"}
	want := map[string]string{}
	for _, f := range files {
		text, err := e.ExtractText(context.Background(), read(t, "../testdata/corpus/"+f))
		if err != nil {
			t.Fatal(err)
		}
		want[f] = text
	}
	var wg sync.WaitGroup
	for i := range 12 {
		f := files[i%len(files)]
		wg.Go(func() {
			text, err := e.ExtractText(context.Background(), read(t, "../testdata/corpus/"+f))
			if err != nil || text != want[f] {
				t.Errorf("%s: concurrent extraction differs (err %v)", f, err)
			}
		})
	}
	wg.Wait()
}

func TestClose(t *testing.T) {
	e := pdf.New(pdf.Options{})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ExtractText(context.Background(), []byte("%PDF-1.4")); !errors.Is(err, pdf.ErrClosed) {
		t.Errorf("after Close: err = %v, want ErrClosed", err)
	}
}

func TestCacheDirUnusable(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles PDFium without a cache (seconds)")
	}
	// A cache path that is a file: the extractor still works, uncached.
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	e := pdf.New(pdf.Options{CacheDir: filepath.Join(f, "sub")})
	defer e.Close()
	text, err := e.ExtractText(context.Background(), read(t, "../testdata/corpus/ru/kedrovskaya-observatoriya.pdf"))
	if err != nil || !strings.Contains(text, "обсерватория") {
		t.Fatalf("err = %v", err)
	}
}

// TestWalkCorpus walks the fixture corpus through ingest with PDFium: every
// document parses, PDF titles come from the metadata, and every query's
// answer phrase is in its document's text.
func TestWalkCorpus(t *testing.T) {
	var manifest []struct {
		ID, Title string
		Queries   []struct{ Query, Answer string }
	}
	if err := json.Unmarshal(read(t, "../testdata/corpus-queries.json"), &manifest); err != nil {
		t.Fatal(err)
	}
	docs := map[string]situate.Document{}
	var order []string
	err := ingest.Walk(context.Background(), []string{"../testdata/corpus"}, ingest.Options{PDF: extractor(t)}, func(d situate.Document, err error) error {
		if err != nil {
			t.Errorf("walk: %v", err)
			return nil
		}
		docs[d.ID] = d
		order = append(order, d.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(manifest) || !slices.IsSorted(order) {
		t.Fatalf("got %d documents %q, want %d in sorted order", len(docs), order, len(manifest))
	}
	for _, m := range manifest {
		d, ok := docs[m.ID]
		if !ok {
			t.Errorf("%s missing", m.ID)
			continue
		}
		if d.Title != m.Title {
			t.Errorf("%s: Title = %q, want %q", m.ID, d.Title, m.Title)
		}
		for _, q := range m.Queries {
			if !strings.Contains(squash(d.Text), squash(q.Answer)) {
				t.Errorf("%s: answer %q to %q not in text", m.ID, q.Answer, q.Query)
			}
		}
	}
	if d := docs["zh/yunxi-chayuan.pdf"]; d.Format != situate.FormatPDF || d.Lang != "" {
		t.Errorf("PDF doc Format, Lang = %q, %q", d.Format, d.Lang)
	}
}

// The extractor satisfies both ingest interfaces.
var (
	_ ingest.PDFExtractor         = (*pdf.Extractor)(nil)
	_ ingest.PDFMetadataExtractor = (*pdf.Extractor)(nil)
)

// manyPages makes an n-page PDF with a core font (no font files needed).
func manyPages(t testing.TB, n int) []byte {
	t.Helper()
	doc := fpdf.New("P", "mm", "A4", "")
	doc.SetFont("Helvetica", "", 10)
	for i := range n {
		doc.AddPage()
		for l := range 40 {
			doc.Cellf(0, 5, "Page %d line %d: the quick brown fox jumps over the lazy dog.", i+1, l+1)
			doc.Ln(5)
		}
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestTimeout stops a long extraction by killing its WebAssembly worker;
// the extractor then serves the next document with a fresh worker.
func TestTimeout(t *testing.T) {
	big := manyPages(t, 150)
	e := pdf.New(pdf.Options{Timeout: 100 * time.Millisecond})
	defer e.Close()
	if err := e.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := e.ExtractText(context.Background(), big)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %v", d)
	}
	// The same kill, from the caller's deadline, on an extractor whose own
	// timeout is generous: the next document still extracts. (With the
	// 100 ms timeout above, a loaded machine cannot promise that even a
	// small document fits.)
	patient := extractor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := patient.ExtractText(ctx, big); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("caller's deadline: err = %v, want DeadlineExceeded", err)
	}
	text, err := patient.ExtractText(context.Background(), read(t, "../testdata/corpus/de/burg-falkenried.pdf"))
	if err != nil || !strings.Contains(text, "Falkenried") {
		t.Fatalf("after a timeout: %v", err)
	}
	// Without the timeout the big document is read whole: 150 pages.
	text, err = extractor(t).ExtractText(context.Background(), big)
	if err != nil || !strings.Contains(text, "Page 150 line 40:") || strings.Count(text, "\n\n") != 149 {
		t.Errorf("150-page extraction: err %v, %d page breaks", err, strings.Count(text, "\n\n"))
	}
}
