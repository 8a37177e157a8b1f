package situate_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/situate/situate"

// leaves are mechanisms that import no other project package (bm25 may use
// analysis): they take plain values, so each can be tested and swapped alone.
var leaves = map[string][]string{
	"analysis": nil, "chunk": nil, "eval": nil, "fusion": nil, "rank": nil,
	// internal/lockfile is the one writer lock of the root and both indexes.
	"internal/lockfile": nil, "vector": {"internal/lockfile"},
	"bm25":           {"analysis", "internal/lockfile"},
	"internal/batch": nil, "internal/fakeembed": nil, "internal/gguf": nil,
	// web (the embedded page) and internal/mcptest (the node client) stand alone too.
	"web": nil, "internal/mcptest": {"internal/testskip"}, "internal/testskip": nil,
	"internal/weaviatetest": {"internal/testskip"},
}

// TestImportRules checks the layout of ../shared/STYLE.md on the non-test
// sources: leaves import no project package; the root imports only leaves;
// adapters import the root, leaves and internal packages but never each
// other; only cmd/situate sees everything.
func TestImportRules(t *testing.T) {
	imports := map[string][]string{} // package dir -> project imports
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if _, ok := imports[dir]; !ok {
			imports[dir] = nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == module {
				imports[dir] = append(imports[dir], ".")
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				imports[dir] = append(imports[dir], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	isLeaf := func(p string) bool { _, ok := leaves[p]; return ok }
	for dir, deps := range imports {
		for _, dep := range deps {
			var why string
			switch {
			case isLeaf(dir):
				if !slices.Contains(leaves[dir], dep) {
					why = "a leaf imports no project package"
				}
			case dir == ".":
				if !isLeaf(dep) {
					why = "the root imports only leaves"
				}
			case dir == "cmd/situate" || strings.HasPrefix(dir, "examples") || strings.HasPrefix(dir, "bench/"):
				// the wiring sees everything (benchmark commands are
				// wiring too: they open a store as cmd/situate does)
			case dir == "situatetest":
				// The suites every backend runs must not lean on one backend.
				if dep != "." {
					why = "situatetest imports only the root package"
				}
			case dir == "questions":
				// Question generation speaks to any model through situate.LLM:
				// no provider, no store, no other adapter.
				if dep != "." && !isLeaf(dep) {
					why = "questions imports only the root and leaves"
				}
			case dir == "postgres":
				// A store backend stands on the root's interfaces alone, so
				// any situate process can share it.
				if dep != "." && !isLeaf(dep) {
					why = "postgres imports only the root and leaves"
				}
			case strings.HasPrefix(dir, "internal/"):
				if dep != "." && !isLeaf(dep) && !strings.HasPrefix(dep, "internal/") {
					why = "internal packages import only the root, leaves and internal packages"
				}
			default: // adapters
				if dep != "." && !isLeaf(dep) && !strings.HasPrefix(dep, "internal/") &&
					!(strings.HasPrefix(dir, dep+"/") && strings.HasPrefix(dir, "ingest/")) {
					why = "adapters never import each other"
				}
			}
			if why != "" {
				t.Errorf("%s imports %s: %s", dir, dep, why)
			}
		}
	}
	if _, err := os.Stat("cmd/situate"); err != nil || len(imports) < 10 {
		t.Fatalf("walked %d packages: not at the repository root?", len(imports))
	}
}
