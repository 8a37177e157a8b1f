package openaitest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/situate/situate/provider/openai/openaitest"
)

// A raw streaming request, as any OpenAI-compatible client sends it.
func Example() {
	srv := openaitest.NewServer(openaitest.Config{})
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"<chunk>Costs fell.</chunk>"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	lines := strings.Split(strings.TrimSpace(string(body)), "\n\n")
	fmt.Println(resp.Header.Get("content-type"), len(lines), "events, last:", lines[len(lines)-1])
	fmt.Println(srv.Stats().Chat, "chat request")
	// Output:
	// text/event-stream 8 events, last: data: [DONE]
	// 1 chat request
}
