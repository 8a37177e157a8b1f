package openai_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/openai"
)

func newHTTPServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestStaleKeepAliveConnection stands in for llama-server closing an idle
// keep-alive connection just as the next request is written on it: the
// server answers the first request on a connection, then reads the second
// one and closes without answering. The client must re-send it on a new
// connection instead of failing.
func TestStaleKeepAliveConnection(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	const sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	var conns atomic.Int32
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func(conn net.Conn) {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for i := 0; ; i++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if i == 1 {
						return // close instead of answering the second request
					}
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(sse), sse)
				}
			}(conn)
		}
	}()
	c, err := openai.New(openai.Options{BaseURL: "http://" + l.Addr().String() + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		comp, err := c.Complete(context.Background(), driver.Prompt{DocID: "d", Prefix: "p", Suffix: "s"})
		if err != nil || comp.Text != "ok" {
			t.Fatalf("call %d: %q, %v", i, comp.Text, err)
		}
	}
	if n := conns.Load(); n < 2 {
		t.Errorf("%d connections: the closed one was not replaced", n)
	}
}

// TestReadRequestsRetryBrokenConnection: a tokenize request whose
// connection is closed before any answer is sent once more; a second
// failure is returned as a retryable connection error.
func TestReadRequestsRetryBrokenConnection(t *testing.T) {
	for _, failures := range []int32{1, 2} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var conns atomic.Int32
		go func() {
			for {
				conn, err := l.Accept()
				if err != nil {
					return
				}
				n := conns.Add(1)
				go func(conn net.Conn) {
					defer conn.Close()
					req, err := http.ReadRequest(bufio.NewReader(conn))
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if n <= failures {
						return // close without answering
					}
					const body = `{"tokens":[1,2,3]}`
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
				}(conn)
			}
		}()
		c, err := openai.New(openai.Options{BaseURL: "http://" + l.Addr().String() + "/v1", Flavor: openai.FlavorLlamaCpp})
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.CountTokens(context.Background(), "abc")
		switch failures {
		case 1:
			if err != nil || n != 3 {
				t.Errorf("one broken connection: %d, %v; want 3", n, err)
			}
		case 2:
			var oe *openai.Error
			if !errors.As(err, &oe) || oe.Type != openai.TypeConnection || !oe.Retryable() || conns.Load() != 2 {
				t.Errorf("two broken connections: %v after %d connections; want a retryable connection error after 2", err, conns.Load())
			}
		}
		l.Close()
	}
}
