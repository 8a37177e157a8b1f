package llamatest

import (
	"bytes"
	"context"
	"fmt"
	"github.com/situate/situate/internal/testskip"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate/internal/gguf"
)

// Environment variables read by Start.
const (
	// EnvServer names the llama-server binary to use.
	EnvServer = "SITUATE_LLAMA_SERVER"
	// EnvVocab names the vocabulary-only GGUF to build the model on.
	EnvVocab = "SITUATE_LLAMA_VOCAB"
	// EnvRequire, when set to anything, turns a missing binary into a test
	// failure instead of a skip (CI sets it).
	EnvRequire = "SITUATE_REQUIRE_LLAMA"
	// EnvToolsCache overrides $HOME/.cache/situate, as in
	// scripts/build-llama-server.sh.
	EnvToolsCache = "SITUATE_TOOLS_CACHE"
)

// Defaults of Options.
const (
	// BuildVersion is the node-llama-cpp release scripts/build-llama-server.sh
	// builds llama-server from; it names the cache directory.
	BuildVersion        = "3.21.1"
	DefaultContext      = 8192
	DefaultParallel     = 2
	DefaultVocab        = "ggml-vocab-llama-spm.gguf"
	DefaultStartTimeout = 60 * time.Second
	// DefaultThreads is the server's -t (and so -tb): one thread. With
	// more, llama.cpp's threads meet at a spinning barrier after every
	// operation of every token; on a machine with more runnable threads
	// than cores (go test runs packages in parallel, CI shares the cores)
	// each barrier waits for a descheduled thread's next time slice, and
	// the test models slowed from about 80 to 2-3 tokens/s at load 20 —
	// the real-llama tests' timeouts under load. One thread has no
	// barrier: 21-90 ms for 8 tokens after a 1191-token prompt at the
	// same load, against 1.3-4.3 s with the default.
	DefaultThreads = 1
)

// Options configure Start.
type Options struct {
	// Context and Parallel are -c and -np (defaults 8192 and 2: two slots
	// of 4096 tokens).
	Context, Parallel int
	// Args are more llama-server arguments ("--embedding", "--pooling",
	// "mean", "--rerank", "-t", "1"...).
	Args []string
	// Model shapes the generated model; its Vocab defaults to the cached
	// vocabulary (DefaultVocab next to the binary, or EnvVocab).
	Model gguf.ModelOptions
	// StartTimeout bounds the wait for /health (default 60 s).
	StartTimeout time.Duration
	// Threads is -t (default DefaultThreads); ignored when Args set -t
	// or --threads.
	Threads int
	// ModelFile, if set, is served instead of a generated model (a
	// restart of a server on the model an earlier Start generated).
	ModelFile string
	// Port, if > 0, is the port to listen on (a restart on the same URL);
	// 0 picks a free one.
	Port int
}

// Server is a running llama-server.
type Server struct {
	// URL is the server root (http://127.0.0.1:port), for /props,
	// /tokenize and /health; BaseURL is URL+"/v1" for OpenAI clients.
	URL, BaseURL string
	// ModelPath is the generated GGUF file.
	ModelPath string
	Model     gguf.Model

	cmd      *exec.Cmd
	exited   chan error
	log      *syncBuffer
	stopOnce sync.Once
}

// Log returns what the server printed so far.
func (s *Server) Log() string { return s.log.String() }

// CacheDir is where scripts/build-llama-server.sh caches llama-server and
// the vocabulary files.
func CacheDir() string {
	root := os.Getenv(EnvToolsCache)
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		root = filepath.Join(home, ".cache", "situate")
	}
	return filepath.Join(root, "llama-server-nlc"+BuildVersion)
}

// Binary finds llama-server: EnvServer, else the build script's cache.
func Binary() (string, error) {
	if p := os.Getenv(EnvServer); p != "" {
		if err := executable(p); err != nil {
			return "", fmt.Errorf("llamatest: %s=%s: %w", EnvServer, p, err)
		}
		return p, nil
	}
	p := filepath.Join(CacheDir(), "llama-server")
	if err := executable(p); err != nil {
		return "", fmt.Errorf("llamatest: no llama-server (set %s, or run scripts/build-llama-server.sh, about 9 minutes on 2 cores): %w", EnvServer, err)
	}
	return p, nil
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// Vocab finds the vocabulary-only GGUF: EnvVocab, else DefaultVocab in the
// cache's vocab directory.
func Vocab() (string, error) {
	p := os.Getenv(EnvVocab)
	if p == "" {
		p = filepath.Join(CacheDir(), "vocab", DefaultVocab)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("llamatest: vocabulary GGUF (set %s or rerun scripts/build-llama-server.sh): %w", EnvVocab, err)
	}
	return p, nil
}

// Start generates a tiny model into tb.TempDir(), starts llama-server on a
// free loopback port, waits until /health answers 200 and stops the server
// at cleanup. Without a binary it skips the test, unless EnvRequire is set.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	bin, err := Binary()
	if err == nil && opts.Model.Vocab == "" {
		opts.Model.Vocab, err = Vocab()
	}
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			tb.Fatalf("%v (%s is set, so a missing llama-server is a failure)", err, EnvRequire)
		}
		testskip.Skipf(tb, "llama-server absent (.ci/run builds it): %v", err)
	}
	if opts.Context == 0 {
		opts.Context = DefaultContext
	}
	if opts.Parallel == 0 {
		opts.Parallel = DefaultParallel
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	var model gguf.Model
	if opts.ModelFile != "" {
		st, err := os.Stat(opts.ModelFile)
		if err != nil {
			tb.Fatalf("llamatest: %v", err)
		}
		model = gguf.Model{Path: opts.ModelFile, Bytes: st.Size()}
	} else {
		dir := tb.TempDir()
		model, err = gguf.WriteModelFile(filepath.Join(dir, "tiny-llama.gguf"), opts.Model)
		if err != nil {
			tb.Fatalf("llamatest: %v", err)
		}
	}
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := start(bin, model, opts)
		if err == nil {
			tb.Cleanup(s.stop)
			return s
		}
		last = err
	}
	tb.Fatalf("llamatest: %v", last)
	return nil
}

func start(bin string, model gguf.Model, opts Options) (*Server, error) {
	port := opts.Port
	if port == 0 {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		port = p
	}
	args := []string{"-m", model.Path, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"-c", strconv.Itoa(opts.Context), "-np", strconv.Itoa(opts.Parallel), "--no-webui"}
	if !slices.Contains(opts.Args, "-t") && !slices.Contains(opts.Args, "--threads") {
		threads := opts.Threads
		if threads <= 0 {
			threads = DefaultThreads
		}
		args = append(args, "-t", strconv.Itoa(threads))
	}
	args = append(args, opts.Args...)
	log := &syncBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), ModelPath: model.Path, Model: model, cmd: cmd, log: log}
	s.BaseURL = s.URL + "/v1"
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), opts.StartTimeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				s.exited = exited
				return s, nil
			}
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("%s %v exited before it was healthy: %v\n%s", bin, args, err, tail(log.String()))
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-exited
			return nil, fmt.Errorf("%s %v not healthy within %s\n%s", bin, args, opts.StartTimeout, tail(log.String()))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Kill kills the server at once (SIGKILL), as a crash would, and waits
// for it to exit; cleanup does the same.
func (s *Server) Kill() { s.stop() }

// Port is the port the server listens on.
func (s *Server) Port() int {
	u := s.URL[strings.LastIndexByte(s.URL, ':')+1:]
	p, _ := strconv.Atoi(u)
	return p
}

// stop kills the server and waits (up to 10 s) for it to exit.
func (s *Server) stop() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Kill()
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
		}
	})
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(s string) string {
	const n = 3000
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 4<<20 {
		return len(p), nil // keep memory bounded; the start is what matters
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
