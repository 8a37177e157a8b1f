package llm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadGlossary(t *testing.T) {
	want := []Term{{"ARR", "annual recurring revenue"}, {"Widget", "ACME's main product."}}
	for name, text := range map[string]string{
		"g.json":  `[{"term":"ARR","definition":"annual recurring revenue"},{"term":" Widget ","definition":"ACME's main product."}]`,
		"o.json":  `{"terms":[{"term":"ARR","definition":"annual recurring revenue"},{"term":"Widget","definition":"ACME's main product."}]}`,
		"g.toml":  "[[terms]]\nterm = \"ARR\"\ndefinition = \"annual recurring revenue\"\n\n[[terms]]\nterm = \"Widget\"\ndefinition = \"ACME's main product.\"\n",
		"g.terms": "[[terms]]\nterm = \"ARR\"\ndefinition = \"annual recurring revenue\"\n[[terms]]\nterm = \"Widget\"\ndefinition = \"ACME's main product.\"\n",
	} {
		got, err := LoadGlossary(writeFile(t, name, text))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: got %+v", name, got)
		}
	}
	for name, c := range map[string]struct{ file, text, msg string }{
		"empty term":   {"a.json", `[{"term":"","definition":"x"}]`, "terms[0]: term is empty"},
		"empty def":    {"b.json", `[{"term":"A","definition":"x"},{"term":"B"}]`, `terms[1] ("B"): definition is empty`},
		"duplicate":    {"c.json", `[{"term":"A","definition":"x"},{"term":"a","definition":"y"}]`, "already defined by terms[0]"},
		"typo json":    {"d.json", `[{"term":"A","defintion":"x"}]`, "defintion"},
		"typo toml":    {"e.toml", "[[terms]]\nterm = \"A\"\ndefintion = \"x\"\n", "defintion"},
		"no terms":     {"f.json", `[]`, "no terms"},
		"not either":   {"g.txt", "hello: world", "neither JSON"},
		"missing file": {"", "", "no such file"},
	} {
		path := filepath.Join(t.TempDir(), "missing.json")
		if c.file != "" {
			path = writeFile(t, c.file, c.text)
		}
		_, err := LoadGlossary(path)
		if err == nil || !strings.Contains(err.Error(), c.msg) || (c.file != "" && !strings.Contains(err.Error(), path)) {
			t.Errorf("%s: error %v, want one naming the file and %q", name, err, c.msg)
		}
		if c.file != "" && !errors.Is(err, driver.ErrInvalid) {
			t.Errorf("%s: error does not wrap ErrInvalid", name)
		}
	}
}

// TestStaticGlossaryPrefix: a glossary from a file reaches every prompt of
// a run after the document, and each document's prefix is byte-identical
// for all its chunks (so the provider's prefix cache serves them).
func TestStaticGlossaryPrefix(t *testing.T) {
	terms, err := LoadGlossary(writeFile(t, "g.json", `[{"term":"Harbourton","definition":"the village where the company was founded"}]`))
	if err != nil {
		t.Fatal(err)
	}
	f := newFake()
	o := testOptions()
	o.Glossary = StaticGlossary(terms)
	c, err := New(f, o)
	if err != nil {
		t.Fatal(err)
	}
	docs := synthDocs(9, []int{5, 4})
	if _, err := collect(t, context.Background(), c, docs); err != nil {
		t.Fatal(err)
	}
	calls := f.snapshot()
	if len(calls) != 9 {
		t.Fatalf("%d calls, want 9", len(calls))
	}
	prefix := map[string]string{}
	for _, call := range calls {
		if !strings.HasSuffix(call.Prefix, "</document>\n<glossary>\nTerms defined in other documents:\n- Harbourton: the village where the company was founded\n</glossary>\n") {
			t.Fatalf("glossary not at the end of the prefix, after the document: %q", call.Prefix[max(0, len(call.Prefix)-300):])
		}
		if strings.Contains(call.Suffix, "Harbourton") {
			t.Error("glossary leaked into the per-chunk suffix")
		}
		if p, ok := prefix[call.DocID]; ok && p != call.Prefix {
			t.Errorf("%s: prefix differs between chunks", call.DocID)
		}
		prefix[call.DocID] = call.Prefix
	}
	if len(prefix) != 2 {
		t.Errorf("want 2 documents' prefixes, got %d", len(prefix))
	}
}
