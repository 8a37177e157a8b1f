package llamatest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/situate/situate/internal/llamatest"
)

// In a test: start the server, then point an OpenAI-compatible client at
// s.BaseURL (or llama.cpp's own endpoints at s.URL).
func ExampleStart() {
	var t *testing.T // the test's *testing.T
	s := llamatest.Start(t, llamatest.Options{Args: []string{"--embedding", "--pooling", "mean"}})
	resp, err := http.Get(s.URL + "/props")
	fmt.Println(resp.Status, err)
}

// The defaults: two slots of 4096 tokens.
func Example_defaults() {
	fmt.Println(llamatest.DefaultContext, llamatest.DefaultParallel, llamatest.DefaultContext/llamatest.DefaultParallel)
	// Output:
	// 8192 2 4096
}
