package rank

import (
	"testing"
)

func TestIsTestFile(t *testing.T) {
	for id, want := range map[string]bool{
		"net/http/serve_test.go":          true,
		"net/http/server.go":              false,
		"net/http/testdata/file":          false,
		"pkg/test_parser.py":              true,
		"pkg/parser_test.py":              true,
		"pkg/testing.py":                  false,
		"pkg/contest.py":                  false,
		"src/app.test.ts":                 true,
		"src/app.spec.js":                 true,
		"src/app.ts":                      false,
		"lib/user_spec.rb":                true,
		"src/main/java/a/Parser.java":     false,
		"src/test/java/a/ParserTest.java": true,
		"a/ParserTests.cs":                true,
		"a/Test.java":                     false,
		"a/ParserIT.java":                 true,
		"web/__tests__/button.js":         true,
		"tests/fixtures/data.go":          false,
		`win\pkg\x_test.go`:               true,
		"latest.go":                       false,
	} {
		if got := IsTestFile(id); got != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestAsksForTests(t *testing.T) {
	for q, want := range map[string]bool{
		"where are the tests for cookie parsing": true,
		"TestServeFile fails":                    true,
		"benchmark of the json decoder":          true,
		"how are cookies parsed":                 false,
		"latest contest results":                 false,
		"rspec spec for user":                    true,
	} {
		if got := AsksForTests(q); got != want {
			t.Errorf("AsksForTests(%q) = %v, want %v", q, got, want)
		}
	}
}
