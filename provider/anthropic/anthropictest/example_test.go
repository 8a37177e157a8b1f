package anthropictest_test

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/situate/situate/provider/anthropic/anthropictest"
)

// A fault is used by the first request it matches; Stats counts it.
func ExampleServer_Inject() {
	s := anthropictest.NewServer(anthropictest.Config{})
	defer s.Close()
	s.Inject(anthropictest.Fault{Kind: anthropictest.FaultOverloaded})
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/messages", strings.NewReader(
			`{"model":"claude-sonnet-4-5","max_tokens":20,"messages":[{"role":"user","content":"<chunk>Hello there</chunk>"}]}`))
		req.Header.Set("anthropic-version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	st := s.Stats()
	fmt.Println(st.Messages, st.Faults, st.Completed)
	// Output:
	// 529
	// 200
	// 2 1 1
}
