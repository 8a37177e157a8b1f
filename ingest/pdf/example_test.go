package pdf_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
)

func Example() {
	// One Extractor per process: the first one on a machine compiles PDFium
	// (seconds) into pdf.DefaultCacheDir(); later ones load it quickly.
	extractor := pdf.New(pdf.Options{})
	defer extractor.Close()

	doc, err := ingest.ParseFile(context.Background(), "../testdata/corpus/ru/kedrovskaya-observatoriya.pdf", "", ingest.Options{PDF: extractor})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.ID, doc.Format, doc.Title)
	fmt.Println(strings.SplitN(doc.Text, "\n", 3)[1])
	// Output:
	// kedrovskaya-observatoriya.pdf pdf Кедровская обсерватория
	// Кедровская обсерватория находится на вершине горы Шумной в Западных
}
