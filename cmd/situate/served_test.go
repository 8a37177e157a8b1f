package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// served is a real `situate serve` process (this test binary re-executed as
// situate) on a free loopback port.
type served struct {
	URL    string
	mu     sync.Mutex
	stderr bytes.Buffer
}

func (s *served) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// startServe starts `situate serve --store store` and stops it (SIGINT,
// then SIGKILL after 20 s) when the test ends.
func startServe(t *testing.T, dir, store string, extra ...string) *served {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"serve", "--store", store, "--addr", "127.0.0.1:0", "--log-level", "warn"}, extra...)
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "SITUATE_TEST_AS_MAIN=1")
	cmd.Dir = dir
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "situate serve: "); ok && strings.HasPrefix(rest, "http://") {
				u, _, _ := strings.Cut(rest, " ")
				select {
				case urlc <- u:
				default:
				}
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("situate serve did not stop within 20 s of SIGINT")
		}
	})
	select {
	case s.URL = <-urlc:
	case err := <-done:
		t.Fatalf("situate serve exited: %v\n%s", err, s.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("situate serve did not start within 60 s\n%s", s.log())
	}
	return s
}

// call makes one API request with key ("" for none) and returns the status
// and body.
func (s *served) call(t *testing.T, method, path, key string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// upsert stores a document through the API and waits until its job is done.
func (s *served) upsert(t *testing.T, key, id string, doc map[string]any) {
	t.Helper()
	status, body := s.call(t, "PUT", "/v1/documents/"+id, key, doc)
	if status != http.StatusAccepted {
		t.Fatalf("PUT %s: %d %s", id, status, body)
	}
	var res struct {
		Job struct {
			ID int64 `json:"id"`
		} `json:"job"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	s.waitJob(t, key, res.Job.ID)
}

func (s *served) waitJob(t *testing.T, key string, id int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		status, body := s.call(t, "GET", fmt.Sprintf("/v1/jobs/%d", id), key, nil)
		var j struct {
			State, Error string
		}
		json.Unmarshal(body, &j)
		switch {
		case status != http.StatusOK:
			t.Fatalf("job %d: %d %s", id, status, body)
		case j.State == "done":
			return
		case j.State == "failed":
			t.Fatalf("job %d failed: %s", id, j.Error)
		case time.Now().After(deadline):
			t.Fatalf("job %d still %s after 60 s\n%s", id, j.State, s.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// createKey runs `situate keys create` and returns the key it prints once.
func createKey(t *testing.T, dir, store string, args ...string) string {
	t.Helper()
	out, _ := mustRun(t, dir, append([]string{"keys", "create", "--store", store}, args...)...)
	key := strings.TrimSpace(out)
	if !strings.HasPrefix(key, "sk_") {
		t.Fatalf("keys create printed %q", out)
	}
	return key
}
