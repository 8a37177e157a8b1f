package mcpserver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/situate/situate"
	"github.com/situate/situate/mcpserver"
)

// TestIsolationProperty: random documents, access lists, metadata and
// queries in two tenants, read through the MCP tools by several principal
// sets. No search, fetch or listing ever returns a document its caller may
// not read or another tenant's; a search returns min(k, readable matches)
// results; an unreadable document is indistinguishable from a missing one.
func TestIsolationProperty(t *testing.T) {
	cases := 3000
	if testing.Short() {
		cases = 300
	}
	rng := rand.New(rand.NewPCG(11, 29))
	vocab := []string{"amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "jasper", "kelp", "lumen"}
	groups := []string{"a", "b", "c"}
	type tenant struct {
		eng  *situate.Engine
		docs map[string]situate.Document
	}
	tenants := make([]tenant, 2)
	for ti := range tenants {
		eng := newEmptyEngine(t)
		docs := map[string]situate.Document{}
		for i := range 50 {
			words := make([]string, 3+rng.IntN(6))
			for j := range words {
				words[j] = vocab[rng.IntN(len(vocab))]
			}
			var access []string
			for _, g := range groups {
				if rng.IntN(3) == 0 {
					access = append(access, g)
				}
			}
			d := situate.Document{ID: fmt.Sprintf("t%d/d%02d", ti, i), Title: fmt.Sprintf("note %d", i), Format: situate.FormatText,
				Lang: situate.LangEnglish, Text: strings.Join(words, " ") + ".", Access: access,
				Metadata: map[string]string{"team": []string{"x", "y"}[rng.IntN(2)]}}
			if _, err := eng.Put(context.Background(), d); err != nil {
				t.Fatal(err)
			}
			docs[d.ID] = d
		}
		tenants[ti] = tenant{eng, docs}
	}
	scopes := [][]string{nil, {}, {"a"}, {"b"}, {"a", "b"}, {"c"}, {"zz"}}
	readable := func(p []string, d situate.Document) bool {
		if p == nil || len(d.Access) == 0 {
			return true
		}
		for _, a := range d.Access {
			if slices.Contains(p, a) {
				return true
			}
		}
		return false
	}
	sessions := map[[2]int]*mcp.ClientSession{}
	session := func(ti, si int) *mcp.ClientSession {
		k := [2]int{ti, si}
		if sessions[k] == nil {
			p := scopes[si]
			sessions[k] = connect(t, mcpserver.Scope{Engine: tenants[ti].eng, Principals: p, Unrestricted: p == nil})
		}
		return sessions[k]
	}
	var missingMsg string
	for c := range cases {
		ti, si := rng.IntN(2), rng.IntN(len(scopes))
		p, ten, cs := scopes[si], tenants[ti], session(ti, si)
		switch c % 3 {
		case 0, 1: // search
			q := []string{vocab[rng.IntN(len(vocab))]}
			if rng.IntN(2) == 0 {
				q = append(q, vocab[rng.IntN(len(vocab))])
			}
			k := 1 + rng.IntN(12)
			args := map[string]any{"query": strings.Join(q, " "), "k": k}
			team := ""
			if rng.IntN(3) == 0 {
				team = []string{"x", "y"}[rng.IntN(2)]
				args["filters"] = map[string]any{"metadata": map[string]string{"team": team}}
			}
			out, res := call[mcpserver.SearchOutput](t, cs, "search", args)
			if res.IsError {
				t.Fatalf("case %d: search %v: %s", c, args, text(res))
			}
			matches := 0
			for _, d := range ten.docs {
				hit := false
				for _, w := range q {
					hit = hit || strings.Contains(" "+strings.TrimSuffix(d.Text, ".")+" ", " "+w+" ")
				}
				if hit && readable(p, d) && (team == "" || d.Metadata["team"] == team) {
					matches++
				}
			}
			if want := min(k, matches); len(out.Results) != want {
				t.Errorf("case %d: tenant %d as %v: search %v: %d results, want min(k, %d readable matches) = %d", c, ti, p, args, len(out.Results), matches, want)
			}
			for _, r := range out.Results {
				d, ok := ten.docs[r.Doc]
				if !ok || !readable(p, d) || team != "" && d.Metadata["team"] != team {
					t.Fatalf("case %d: tenant %d as %v: search %v returned %s (in tenant: %v)", c, ti, p, args, r.Doc, ok)
				}
			}
		case 2: // fetch a document of either tenant, or a missing one
			id := fmt.Sprintf("t%d/d%02d", rng.IntN(2), rng.IntN(55))
			got, res := call[mcpserver.FetchOutput](t, cs, "fetch", map[string]any{"doc": id})
			d, ok := ten.docs[id]
			if ok && readable(p, d) {
				if res.IsError || got.Document.ID != id || len(got.Chunks) == 0 || got.Chunks[0].Text != d.Text {
					t.Fatalf("case %d: tenant %d as %v: fetch %s: %s %+v", c, ti, p, id, text(res), got)
				}
				continue
			}
			msg := strings.ReplaceAll(text(res), id, "ID")
			if missingMsg == "" {
				missingMsg = msg
			}
			if !res.IsError || msg != missingMsg {
				t.Fatalf("case %d: tenant %d as %v: fetch %s (exists here: %v): %q, want the missing document's %q", c, ti, p, id, ok, msg, missingMsg)
			}
		}
	}
	// Listings: exactly the readable documents, and the total counts only them.
	for ti, ten := range tenants {
		for si, p := range scopes {
			out, res := call[mcpserver.ListOutput](t, session(ti, si), "list_documents", map[string]any{"limit": 500})
			if res.IsError {
				t.Fatal(text(res))
			}
			var want []string
			for id, d := range ten.docs {
				if readable(p, d) {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			var got []string
			for _, d := range out.Documents {
				got = append(got, d.ID)
			}
			if !slices.Equal(got, want) || out.Total != len(want) {
				t.Errorf("tenant %d as %v: list %v (total %d), want %v", ti, p, got, out.Total, want)
			}
		}
	}
}
