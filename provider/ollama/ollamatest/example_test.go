package ollamatest_test

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/situate/situate/provider/ollama/ollamatest"
)

// A prompt longer than num_ctx is cut silently, as Ollama does; Stats
// shows it.
func Example() {
	srv := ollamatest.NewServer(ollamatest.Config{Model: "qwen3:8b"})
	defer srv.Close()
	long := strings.Repeat("word ", 1000) // ~1250 fake tokens
	body := `{"model":"qwen3:8b","stream":false,"options":{"num_ctx":512},"messages":[{"role":"user","content":"` + long + `"}]}`
	resp, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	st := srv.Stats()
	fmt.Println(resp.StatusCode, "num_ctx", st.NumCtx, "truncated", st.Truncated)
	// Output:
	// 200 num_ctx [512] truncated 1
}
