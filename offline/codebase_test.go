package offline_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/offline"

	"github.com/situate/situate/internal/shareddata"
)

// codebaseDoc is one document of Anthropic's codebase evaluation set.
type codebaseDoc struct {
	DocID   string `json:"doc_id"`
	Content string `json:"content"`
	Chunks  []struct {
		ChunkID       string `json:"chunk_id"`
		OriginalIndex int    `json:"original_index"`
		Content       string `json:"content"`
	} `json:"chunks"`
}

// dataDir returns ../shared/data, or skips the test when it is absent.
func dataDir(tb testing.TB) string {
	tb.Helper()
	return shareddata.Path(tb, "")
}

// loadCodebase reads the set as situate documents and chunks; chunk spans
// are located in the document (every chunk is an exact substring).
func loadCodebase(tb testing.TB) ([]situate.Document, [][]situate.Chunk) {
	tb.Helper()
	path := filepath.Join(dataDir(tb), "codebase", "codebase_chunks.json")
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		tb.Skipf("codebase evaluation set not found at %s", path)
	}
	if err != nil {
		tb.Fatal(err)
	}
	var raw []codebaseDoc
	if err := json.Unmarshal(b, &raw); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	docs := make([]situate.Document, len(raw))
	chunks := make([][]situate.Chunk, len(raw))
	for i, r := range raw {
		docs[i] = situate.Document{ID: r.DocID, Text: r.Content, Format: situate.FormatCode, Lang: "en"}
		from := 0
		for j, c := range r.Chunks {
			at := strings.Index(r.Content[from:], c.Content)
			if at < 0 {
				at, from = strings.Index(r.Content, c.Content), 0
			}
			if at < 0 {
				tb.Fatalf("%s: %s chunk %d is not a substring of its document", path, r.DocID, j)
			}
			start := from + at
			chunks[i] = append(chunks[i], situate.Chunk{DocID: r.DocID, Index: j, Start: start,
				End: start + len(c.Content), Text: c.Content})
			from = start + len(c.Content)
		}
	}
	return docs, chunks
}

// TestCodebaseContexts checks the contexts of the 737 chunks of Anthropic's
// codebase set are well-formed: one per chunk, non-empty, within budget,
// deterministic, and naming something the document defines. Retrieval
// quality is measured elsewhere.
func TestCodebaseContexts(t *testing.T) {
	docs, chunks := loadCodebase(t)
	c := offline.New(offline.DefaultOptions())
	ctx := context.Background()
	total, words, withDecl := 0, 0, 0
	for i, doc := range docs {
		got, err := c.Contextualize(ctx, doc, chunks[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(chunks[i]) {
			t.Fatalf("%s: %d contexts for %d chunks", doc.ID, len(got), len(chunks[i]))
		}
		again, _ := c.Contextualize(ctx, doc, chunks[i])
		if !reflect.DeepEqual(got, again) {
			t.Errorf("%s: contexts differ between two runs", doc.ID)
		}
		for j, g := range got {
			n := len(strings.Fields(g.Text))
			if g.Text == "" || g.Source != "offline" || n > offline.DefaultMaxWords || g.Flags != nil {
				t.Errorf("%s chunk %d: bad context (%d words) %+v", doc.ID, j, n, g)
			}
			if strings.Contains(g.Text, "\n") {
				t.Errorf("%s chunk %d: context spans lines: %q", doc.ID, j, g.Text)
			}
			if strings.Contains(g.Text, "Defines ") || strings.Contains(g.Text, "This chunk") {
				withDecl++
			}
			total++
			words += n
			if testing.Verbose() && (j == 0 || j == len(got)-1) {
				t.Logf("%s chunk %d/%d: %s", doc.ID, j, len(got), g.Text)
			}
		}
	}
	t.Logf("%d contexts, %.1f words on average, %d name declarations", total, float64(words)/float64(total), withDecl)
	if withDecl*10 < total*9 {
		t.Errorf("only %d of %d contexts name a declaration of their file", withDecl, total)
	}
}
