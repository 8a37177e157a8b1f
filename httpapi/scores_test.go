package httpapi_test

import (
	"testing"

	"github.com/situate/situate/httpapi"
)

// TestScoresLeakOnlyWithinATenant states the statistics guarantee as it
// stands: BM25 statistics are the tenant's, so a document alice may not
// read in her own tenant moves her scores (the leak the security docs
// describe), while documents in another tenant change nothing she sees —
// separate tenants are the setting that closes the leak.
func TestScoresLeakOnlyWithinATenant(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	adminA, adminB := e.key("ta", nil, true, true), e.key("tb", nil, true, true)
	alice := e.key("ta", []string{"alice"}, false, false)
	e.wait(adminA, e.upsert(adminA, "alice/note.md", httpapi.DocumentRequest{Text: "The lakeside cabin needs a new roof before winter.", Access: []string{"alice"}}))
	e.wait(adminA, e.upsert(adminA, "other.md", httpapi.DocumentRequest{Text: "The harbour office opens at nine every weekday."}))
	score := func() float64 {
		t.Helper()
		r := e.search(alice, httpapi.SearchRequest{Query: "lakeside roof", K: 5})
		if len(r.Results) == 0 || r.Results[0].Doc != "alice/note.md" {
			t.Fatalf("alice's search: %+v", r.Results)
		}
		return r.Results[0].Score
	}
	before := score()
	for i, text := range []string{"The lakeside path floods in spring.", "Lakeside parking costs two pounds.", "A lakeside cafe opened in May."} {
		e.wait(adminB, e.upsert(adminB, "b"+string(rune('0'+i))+".md", httpapi.DocumentRequest{Text: text}))
	}
	if got := score(); got != before {
		t.Errorf("another tenant's documents moved alice's score: %v -> %v", before, got)
	}
	e.wait(adminA, e.upsert(adminA, "hr/plan.md", httpapi.DocumentRequest{Text: "The lakeside site is sold in March.", Access: []string{"hr"}}))
	if r := e.search(alice, httpapi.SearchRequest{Query: "lakeside", K: 5}); len(r.Results) != 1 {
		t.Errorf("alice finds %d documents for lakeside, want her note only", len(r.Results))
	}
	if got := score(); got == before {
		t.Errorf("a hidden document in alice's tenant left her score at %v: the documented leak is gone; update docs/service.md and this test", got)
	}
}
