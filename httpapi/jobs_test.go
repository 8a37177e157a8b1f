package httpapi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/httpapi"
)

// failing is a contextualizer whose provider refuses every call.
type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Contextualize(context.Context, situate.Document, []situate.Chunk) ([]situate.Context, error) {
	return nil, errors.New("provider refused the call: quota exhausted")
}

func TestJobFailsWithReason(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out three attempts")
	}
	e := newEnv(t, envOptions{contextualizer: failing{}})
	j := e.wait("", e.upsert("", "a.md", httpapi.DocumentRequest{Text: "Some text."}))
	if j.State != situate.JobFailed || j.Attempts != httpapi.DefaultMaxAttempts || !strings.Contains(j.Error, "quota exhausted") || j.FinishedAt == nil {
		t.Fatalf("job: %+v", j)
	}
	if r := e.do(call{method: "GET", path: "/v1/documents/a.md"}); r.status != 404 {
		t.Errorf("a failed document is indexed: %d", r.status)
	}
}

// TestUploadFormats uploads DOCX files through multipart: the stored
// source is parsed as the command line parses it, and kept for re-situating.
func TestUploadFormats(t *testing.T) {
	e := newEnv(t, envOptions{})
	path := filepath.Join("..", "ingest", "testdata", "corpus", "en", "marrow-creek-railway.docx")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body, ct := multipartBody(t, httpapi.DocumentRequest{Metadata: map[string]string{"kind": "history"}, Access: []string{"rail"}},
		"marrow-creek-railway.docx", data)
	r := e.do(call{method: "PUT", path: "/v1/documents/rail/marrow.docx", body: body, contentType: ct})
	if r.status != 202 {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	var ur httpapi.UpsertResponse
	r.json(t, &ur)
	if j := e.wait("", ur.Job.ID); j.State != situate.JobDone || j.Chunks == 0 {
		t.Fatalf("job: %+v", j)
	}
	var d httpapi.Document
	e.do(call{method: "GET", path: "/v1/documents/rail/marrow.docx?chunks=true"}).json(t, &d)
	if d.Format != situate.FormatDOCX || d.Title == "" || d.Metadata["kind"] != "history" || len(d.Access) != 1 || len(d.ChunkList) == 0 {
		t.Errorf("document: %+v", d)
	}
	up, err := e.stores[httpapi.LocalTenant].Upload(context.Background(), "rail/marrow.docx")
	if err != nil || string(up.Data) != string(data) || up.Name != "marrow-creek-railway.docx" {
		t.Errorf("stored source: %v, %d bytes of %d", err, len(up.Data), len(data))
	}
}
