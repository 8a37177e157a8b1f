package rank

import (
	"path"
	"strings"
	"unicode"
)

// DefaultTestPenalty is TestPrior's penalty: a chunk of a test file loses
// this share of its score unless the query asks about tests (chosen on the
// tune half of the code-search set, EVAL.md).
const DefaultTestPenalty = 0.5

// IsTestFile reports whether a document id (a path with forward slashes)
// names a test file by the convention of a common language or build tool:
// Go's "_test.go"; Python's "test_*.py" and "*_test.py"; "*.test.*" and
// "*.spec.*" (JavaScript, TypeScript); Ruby's "*_spec.rb" and "*_test.rb";
// Java's, Kotlin's and C#'s "*Test", "*Tests" and "*IT" classes; and files
// under a "__tests__" directory or a Maven/Gradle "src/test/" tree. A
// directory merely named "test" or "tests" does not count: it often holds
// fixtures and tools as well.
func IsTestFile(id string) bool {
	id = strings.ReplaceAll(id, "\\", "/")
	base := path.Base(id)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return true
	case ext == ".py" && (strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test")):
		return true
	case ext == ".rb" && (strings.HasSuffix(stem, "_spec") || strings.HasSuffix(stem, "_test")):
		return true
	case strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec"):
		return true
	case ext == ".java" || ext == ".kt" || ext == ".cs" || ext == ".scala":
		for _, s := range []string{"Test", "Tests", "IT"} {
			if p, ok := strings.CutSuffix(stem, s); ok && p != "" {
				return true
			}
		}
	}
	dir := path.Dir(id)
	return dirHas(dir, "__tests__") || dirHas(dir, "src/test")
}

// dirHas reports whether "/"+dir+"/" contains "/"+sub+"/", without
// building the string (TestPrior asks for every candidate of a search).
func dirHas(dir, sub string) bool {
	for i := strings.Index(dir, sub); i >= 0; {
		end := i + len(sub)
		if (i == 0 || dir[i-1] == '/') && (end == len(dir) || dir[end] == '/') {
			return true
		}
		j := strings.Index(dir[i+1:], sub)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// AsksForTests reports whether a query is about tests: it holds a word
// starting with "test" (test, tests, testing, tested, TestFoo), or the word
// "spec", "specs", "benchmark" or "benchmarks", in any case.
func AsksForTests(query string) bool {
	for _, w := range strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		l := strings.ToLower(w)
		switch {
		case strings.HasPrefix(l, "test"), strings.HasPrefix(l, "benchmark"), l == "spec", l == "specs":
			return true
		}
	}
	return false
}
