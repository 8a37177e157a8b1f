package coheretest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/situate/situate/provider/cohere/coheretest"
)

// More than 96 texts are refused with Cohere's error shape.
func ExampleServer() {
	s := coheretest.NewServer(coheretest.Config{})
	defer s.Close()
	texts := `"t"` + strings.Repeat(`,"t"`, 96)
	resp, err := http.Post(s.URL+"/v2/embed", "application/json", strings.NewReader(
		`{"model":"embed-v4.0","input_type":"search_document","embedding_types":["float"],"texts":[`+texts+`]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)))
	// Output: 400 {"id":"00000000-0000-4000-8000-000000000001","message":"invalid request: total number of texts must be at most 96 - received 97"}
}
