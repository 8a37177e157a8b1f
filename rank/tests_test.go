package rank

import (
	"errors"
	"math"
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

func TestTestPrior(t *testing.T) {
	in := []Hit{
		{ID: "t1", Doc: "a/x_test.go", Score: 10},
		{ID: "c1", Doc: "a/x.go", Score: 6},
		{ID: "t2", Doc: "a/x_test.go", Score: 4},
		{ID: "c2", Doc: "a/y.go", Score: 5},
	}
	got, err := TestPrior(in, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hit{{"c1", "a/x.go", 6}, {"c2", "a/y.go", 5}, {"t1", "a/x_test.go", 5}, {"t2", "a/x_test.go", 2}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("TestPrior = %v, want %v", got, want)
		}
	}
	if in[0].Score != 10 {
		t.Error("TestPrior modified its input")
	}
	same, _ := TestPrior(in, 0)
	if same[0].ID != "t1" || same[0].Score != 10 {
		t.Errorf("penalty 0 changed scores: %v", same)
	}
	for _, w := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := TestPrior(in, w); !errors.Is(err, ErrInvalid) {
			t.Errorf("penalty %v: err %v, want ErrInvalid", w, err)
		}
	}
	if _, err := TestPrior([]Hit{{ID: "x", Doc: "a_test.go", Score: math.NaN()}}, 0.5); !errors.Is(err, ErrInvalid) {
		t.Errorf("NaN score: err %v, want ErrInvalid", err)
	}
}
