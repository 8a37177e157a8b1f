package main

import (
	"context"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// TestJSONUploadFormatAndTitle: a JSON upsert (an upload without a file
// name) takes its format from the id's extension and its title from its
// first heading, as a multipart upload and `situate index` do; a given
// format wins; an id without an extension is text titled by its name, as a file would be.
func TestJSONUploadFormatAndTitle(t *testing.T) {
	parse, closeParser := uploadParser(1 << 20)
	defer closeParser()
	for _, c := range []struct {
		id, format, data      string
		wantFormat, wantTitle string
	}{
		{"notes/a.md", "", "# Harbour plan\n\nThe pier opens in May.\n", situate.FormatMarkdown, "Harbour plan"},
		{"pages/b.html", "", "<html><head><title>Tide tables</title></head><body><p>High water at six.</p></body></html>", situate.FormatHTML, "Tide tables"},
		{"notes/c", "", "Plain words about the harbour.", situate.FormatText, "c"},
		{"notes/d.md", situate.FormatText, "# Not a heading here\n", situate.FormatText, ""},
	} {
		doc, err := parse(context.Background(), driver.Upload{DocID: c.id, Format: c.format, Data: []byte(c.data)})
		if err != nil {
			t.Errorf("%s: %v", c.id, err)
			continue
		}
		if doc.Format != c.wantFormat || (c.wantTitle != "" && doc.Title != c.wantTitle) {
			t.Errorf("%s (format %q): format %q title %q, want %q %q", c.id, c.format, doc.Format, doc.Title, c.wantFormat, c.wantTitle)
		}
	}
}
