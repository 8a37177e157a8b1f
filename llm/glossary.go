package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/situate/situate/driver"

	"github.com/BurntSushi/toml"
)

// glossaryFile is the shape of a glossary file: JSON
// [{"term": "...", "definition": "..."}, ...] or {"terms": [...]}, or TOML
// [[terms]] tables with term and definition keys.
type glossaryFile struct {
	Terms []glossaryEntry `json:"terms" toml:"terms"`
}

type glossaryEntry struct {
	Term       string `json:"term" toml:"term"`
	Definition string `json:"definition" toml:"definition"`
}

// LoadGlossary reads a glossary file: a JSON list of {"term", "definition"}
// objects (or an object whose "terms" holds that list), or TOML with one
// [[terms]] table per entry. A file ending in .toml is read as TOML, one
// ending in .json as JSON, any other as JSON and then TOML. Every entry
// needs a term and a definition, and a term may appear once (case
// insensitive); unknown keys are errors. Errors name the file and entry.
func LoadGlossary(path string) ([]Term, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("llm: glossary: %w", err)
	}
	var entries []glossaryEntry
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".toml":
		entries, err = glossaryTOML(data)
	case ".json":
		entries, err = glossaryJSON(data)
	default:
		var jerr, terr error
		if entries, jerr = glossaryJSON(data); jerr != nil {
			if entries, terr = glossaryTOML(data); terr != nil {
				err = fmt.Errorf("neither JSON (%v) nor TOML (%v)", jerr, terr)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("llm: glossary %s: %w: %w", path, err, driver.ErrInvalid)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("llm: glossary %s: no terms: %w", path, driver.ErrInvalid)
	}
	seen := map[string]int{}
	terms := make([]Term, 0, len(entries))
	for i, e := range entries {
		t, d := strings.Join(strings.Fields(e.Term), " "), strings.TrimSpace(e.Definition)
		switch {
		case t == "":
			return nil, fmt.Errorf("llm: glossary %s: terms[%d]: term is empty: %w", path, i, driver.ErrInvalid)
		case d == "":
			return nil, fmt.Errorf("llm: glossary %s: terms[%d] (%q): definition is empty: %w", path, i, t, driver.ErrInvalid)
		}
		k := strings.ToLower(t)
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("llm: glossary %s: terms[%d]: term %q already defined by terms[%d]: %w", path, i, t, j, driver.ErrInvalid)
		}
		seen[k] = i
		terms = append(terms, Term{Term: t, Definition: d})
	}
	return terms, nil
}

func glossaryJSON(data []byte) ([]glossaryEntry, error) {
	trimmed := bytes.TrimSpace(data)
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var list []glossaryEntry
		if err := dec.Decode(&list); err != nil {
			return nil, err
		}
		return list, nil
	}
	var f glossaryFile
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	return f.Terms, nil
}

func glossaryTOML(data []byte) ([]glossaryEntry, error) {
	var f glossaryFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("unknown key %q (want [[terms]] tables with term and definition)", und[0].String())
	}
	return f.Terms, nil
}

// StaticGlossary returns a GlossaryFunc giving every document the same
// terms (e.g. from LoadGlossary). The block is rendered after the document
// in the prompt prefix, so a document's prefix stays identical for all its
// chunks.
func StaticGlossary(terms []Term) GlossaryFunc {
	ts := append([]Term(nil), terms...)
	return func(driver.Document) []Term { return ts }
}
