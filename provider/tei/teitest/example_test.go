package teitest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/situate/situate/provider/tei/teitest"
)

// A batch above max_client_batch_size gets TEI's 413.
func ExampleServer() {
	s := teitest.NewServer(teitest.Config{MaxClientBatchSize: 2})
	defer s.Close()
	resp, err := http.Post(s.URL+"/embed", "application/json", strings.NewReader(`{"inputs":["a","b","c"]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)))
	// Output: 413 {"error":"batch size 3 > maximum allowed batch size 2","error_type":"Validation"}
}
