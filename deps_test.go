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
	// internal/fakeapi is the fake provider servers' skeleton: stdlib only.
	"internal/fakeapi": nil,
	// web (the embedded page) and internal/mcptest (the node client) stand alone too.
	"web": nil, "internal/mcptest": {"internal/testskip"}, "internal/testskip": nil,
	"internal/weaviatetest": {"internal/testskip"},
}

// driverSide reports whether the package at dir implements the driver
// package's interfaces (a store, an index backend, a model provider, a
// contextualizer or cache built on them).
func driverSide(dir string) bool {
	for _, p := range []string{"sqlite", "postgres", "weaviate", "provider", "llm", "offline", "embedcache", "questions", "internal/apiclient"} {
		if dir == p || strings.HasPrefix(dir, p+"/") {
			return true
		}
	}
	return false
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
			case dir == "." || dir == "driver":
				if !isLeaf(dep) && !(dir == "." && dep == "driver") {
					why = "the root imports only leaves and driver; driver imports only leaves"
				}
			case driverSide(dir) && dep == ".":
				// A store, index backend or provider implements the
				// driver package's interfaces; it never sees the Engine.
				why = "a driver-side adapter imports driver, never the root"
			case dep == "wiring" && dir != "cmd/situate" && !strings.HasPrefix(dir, "examples") && !strings.HasPrefix(dir, "bench/"):
				why = "only the front ends' wiring (cmd/situate, examples, bench) imports wiring"
			case dir == "wiring":
				// wiring builds stores, backends and providers from settings
				// for every front end: it sees the adapters, never a front end.
				if dep == "httpapi" || dep == "mcpserver" || dep == "web" || strings.HasPrefix(dep, "cmd/") {
					why = "wiring imports no front end"
				}
			case dir == "cmd/situate" || strings.HasPrefix(dir, "examples") || strings.HasPrefix(dir, "bench/"):
				// the wiring sees everything (benchmark commands are
				// wiring too: they open a store as cmd/situate does)
			case dir == "situatetest":
				// The suites every backend runs must not lean on one backend.
				if dep != "." && dep != "driver" {
					why = "situatetest imports only the root and driver packages"
				}
			case dir == "questions":
				// Question generation speaks to any model through driver.LLM:
				// no provider, no store, no other adapter.
				if dep != "driver" && !isLeaf(dep) {
					why = "questions imports only driver and leaves"
				}
			case dir == "postgres":
				// A store backend stands on the driver interfaces alone, so
				// any situate process can share it.
				if dep != "driver" && !isLeaf(dep) {
					why = "postgres imports only driver and leaves"
				}
			case strings.HasPrefix(dir, "internal/"):
				if dep != "." && dep != "driver" && !isLeaf(dep) && !strings.HasPrefix(dep, "internal/") {
					why = "internal packages import only the root, driver, leaves and internal packages"
				}
			default: // adapters
				if dep != "." && dep != "driver" && !isLeaf(dep) && !strings.HasPrefix(dep, "internal/") &&
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
