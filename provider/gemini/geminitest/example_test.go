package geminitest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/situate/situate/provider/gemini/geminitest"
)

// A rate limit carries Google's RetryInfo detail.
func ExampleServer_Inject() {
	s := geminitest.NewServer(geminitest.Config{})
	defer s.Close()
	s.Inject(geminitest.Fault{Kind: geminitest.FaultRateLimit})
	resp, err := http.Post(s.URL+"/v1beta/models/gemini-embedding-001:batchEmbedContents", "application/json",
		strings.NewReader(`{"requests":[{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"hi"}]}}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"retryDelay":"30s"`))
	// Output: 429 true
}
