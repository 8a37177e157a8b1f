package ingest

import (
	"context"
	"fmt"
	"testing"
)

func TestScratch(t *testing.T) {
	for _, f := range []string{"testdata/corpus/de/talsperre-wendelbach.html", "testdata/corpus/en/marrow-creek-railway.docx", "testdata/corpus/de/glockengiesserei-hallenbach.docx", "testdata/corpus/zh/qinglan-qiao.html"} {
		d, err := ParseFile(context.Background(), f, "", Options{})
		fmt.Printf("%s err=%v title=%q lang=%q format=%q\n%s\n-----\n", f, err, d.Title, d.Lang, d.Format, d.Text)
	}
}
