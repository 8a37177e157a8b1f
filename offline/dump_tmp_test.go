package offline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/chunk"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/offline"
)

func TestDump(t *testing.T) {
	c := offline.New(offline.Options{})
	root := os.Getenv("DUMP")
	var lines []string
	ingest.Walk(context.Background(), []string{root}, ingest.Options{}, func(doc situate.Document, err error) error {
		if err != nil {
			return nil
		}
		doc.Lang = situate.ResolveLanguage(doc)
		spans, _ := chunk.Split(doc.Text, chunk.Options{Size: 400, Overlap: 50, Format: doc.Format, Path: doc.Path})
		var chs []situate.Chunk
		for _, s := range spans {
			chs = append(chs, situate.Chunk{Start: s.Start, End: s.End, Text: doc.Text[s.Start:s.End], Heading: s.Heading})
		}
		out, _ := c.Contextualize(context.Background(), doc, chs)
		for i := range out {
			lines = append(lines, filepath.Base(doc.ID)+" "+strings.Repeat("", i)+out[i].Text)
		}
		return nil
	})
	os.WriteFile(os.Getenv("DUMPOUT"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
