package weaviatetest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/situate/situate/internal/testskip"
)

// Environment variables read by Start.
const (
	// EnvServer names the weaviate-server binary to use.
	EnvServer = "SITUATE_WEAVIATE_SERVER"
	// EnvRequire, when set to anything, turns a missing binary into a test
	// failure instead of a skip (CI sets it).
	EnvRequire = "SITUATE_REQUIRE_WEAVIATE"
	// EnvToolsCache overrides $HOME/.cache/situate, as in
	// scripts/build-weaviate.sh.
	EnvToolsCache = "SITUATE_TOOLS_CACHE"
	// Version is the Weaviate release scripts/build-weaviate.sh builds.
	Version = "v1.35.2"
)

// Binary finds weaviate-server: EnvServer, else the build script's cache.
func Binary() (string, error) {
	p := os.Getenv(EnvServer)
	if p == "" {
		root := os.Getenv(EnvToolsCache)
		if root == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("weaviatetest: %w", err)
			}
			root = filepath.Join(home, ".cache", "situate")
		}
		p = filepath.Join(root, "weaviate-"+Version, "weaviate-server")
	}
	st, err := os.Stat(p)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("weaviatetest: no weaviate-server at %s (set %s, or run scripts/build-weaviate.sh, about 4 minutes on 2 cores)", p, EnvServer)
	}
	return p, nil
}

// Node is one Weaviate process.
type Node struct {
	Name string
	URL  string
	dir  string
	env  []string
	args []string
	bin  string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
}

// Cluster is a running set of nodes.
type Cluster struct {
	Nodes []*Node
}

// URLs are the nodes' REST endpoints.
func (c *Cluster) URLs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.URL
	}
	return out
}

// Start starts one node and stops it at cleanup; see StartCluster.
func Start(tb testing.TB) *Cluster { tb.Helper(); return StartCluster(tb, 1) }

// StartCluster starts n nodes forming one cluster, waits until every node
// is ready, and stops them at cleanup. Without a binary it skips the test,
// unless EnvRequire is set. The nodes run BM25 with the exact WAND
// (USE_BLOCKMAX_WAND=false), as situate's weaviate package requires of
// Weaviate v1.35.2 (weaviate.EnvHint).
func StartCluster(tb testing.TB, n int) *Cluster {
	tb.Helper()
	return StartClusterEnv(tb, n)
}

// StartClusterEnv is StartCluster with env (KEY=value) added to every
// node's environment, overriding the defaults.
func StartClusterEnv(tb testing.TB, n int, env ...string) *Cluster {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			tb.Fatalf("%v (%s is set, so a missing weaviate-server is a failure)", err, EnvRequire)
		}
		testskip.Skipf(tb, "weaviate-server absent (.ci/run builds it): %v", err)
	}
	ports, err := freePorts(6 * n)
	if err != nil {
		tb.Fatalf("weaviatetest: %v", err)
	}
	// On one host Weaviate finds a node's Raft RPC port as its Raft port
	// + 1 (CLUSTER_IN_LOCALHOST): those two are a pair.
	for i := range n {
		if ports[6*i+4], err = freePair(); err != nil {
			tb.Fatalf("weaviatetest: %v", err)
		}
		ports[6*i+5] = ports[6*i+4] + 1
	}
	root := tb.TempDir()
	var join []string
	for i := range n {
		join = append(join, fmt.Sprintf("node%d:%d", i, ports[6*i+4]))
	}
	c := &Cluster{}
	for i := range n {
		p := ports[6*i : 6*i+6]
		nd := &Node{Name: fmt.Sprintf("node%d", i), URL: fmt.Sprintf("http://127.0.0.1:%d", p[0]), dir: filepath.Join(root, fmt.Sprintf("node%d", i)), bin: bin}
		nd.env = append(os.Environ(),
			"PERSISTENCE_DATA_PATH="+filepath.Join(nd.dir, "data"),
			"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
			"DEFAULT_VECTORIZER_MODULE=none", "ENABLE_MODULES=", "DISABLE_TELEMETRY=true",
			"LOG_LEVEL=warning", "QUERY_DEFAULTS_LIMIT=25", "LIMIT_RESOURCES=false",
			"GRPC_PORT="+strconv.Itoa(p[1]),
			"CLUSTER_HOSTNAME="+nd.Name, "CLUSTER_IN_LOCALHOST=true",
			"CLUSTER_ADVERTISE_ADDR=127.0.0.1", "CLUSTER_BIND_ADDR=127.0.0.1",
			"CLUSTER_GOSSIP_BIND_PORT="+strconv.Itoa(p[2]), "CLUSTER_DATA_BIND_PORT="+strconv.Itoa(p[3]),
			"RAFT_PORT="+strconv.Itoa(p[4]), "RAFT_INTERNAL_RPC_PORT="+strconv.Itoa(p[5]),
			"RAFT_JOIN="+strings.Join(join, ","), "RAFT_BOOTSTRAP_EXPECT="+strconv.Itoa(n),
			// v1.35.2's BlockMax WAND prunes recently written matches
			// away (weaviate.EnvHint); the old WAND is exact.
			"USE_BLOCKMAX_WAND=false",
			// Asynchronous replication (collections with asyncEnabled)
			// compares replicas every 30 s and leaves writes younger than
			// 30 s alone by default; a test cluster does both within
			// seconds, so that a node that missed writes catches up while
			// the test waits.
			"ASYNC_REPLICATION_FREQUENCY=3s", "ASYNC_REPLICATION_FREQUENCY_WHILE_PROPAGATING=1s",
			"ASYNC_REPLICATION_ALIVE_NODES_CHECKING_FREQUENCY=1s", "ASYNC_REPLICATION_PROPAGATION_DELAY=2s",
		)
		nd.env = append(nd.env, env...)
		if i > 0 {
			nd.env = append(nd.env, fmt.Sprintf("CLUSTER_JOIN=127.0.0.1:%d", ports[2]))
		}
		nd.args = []string{"--scheme", "http", "--host", "127.0.0.1", "--port", strconv.Itoa(p[0]),
			"--read-timeout=600s", "--write-timeout=600s"}
		if err := os.MkdirAll(nd.dir, 0o755); err != nil {
			tb.Fatalf("weaviatetest: %v", err)
		}
		c.Nodes = append(c.Nodes, nd)
	}
	tb.Cleanup(func() {
		for _, nd := range c.Nodes {
			nd.Stop()
		}
	})
	for i, nd := range c.Nodes {
		if err := nd.start(); err != nil {
			tb.Fatalf("weaviatetest: %v", err)
		}
		if i == 0 && n > 1 {
			// The others join node 0's gossip port: it must listen first.
			if err := nd.waitLive(3 * time.Minute); err != nil {
				tb.Fatalf("weaviatetest: %v", err)
			}
		}
	}
	for _, nd := range c.Nodes {
		if err := nd.WaitReady(3 * time.Minute); err != nil {
			tb.Fatalf("weaviatetest: %v", err)
		}
	}
	return c
}

func (nd *Node) start() error {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if nd.cmd != nil {
		return nil
	}
	cmd := exec.Command(nd.bin, nd.args...)
	cmd.Env = nd.env
	f, err := os.OpenFile(filepath.Join(nd.dir, "weaviate.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := startProcess(cmd); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", nd.Name, err)
	}
	exited := make(chan struct{})
	nd.cmd, nd.exited = cmd, exited
	go func() { cmd.Wait(); f.Close(); close(exited) }()
	return nil
}

// Restart starts a stopped node again (with its data) and waits until it is
// ready.
func (nd *Node) Restart() error {
	if err := nd.start(); err != nil {
		return err
	}
	return nd.WaitReady(3 * time.Minute)
}

// Stop stops the node (SIGTERM, then SIGKILL after 20 s).
func (nd *Node) Stop() {
	nd.mu.Lock()
	cmd, exited := nd.cmd, nd.exited
	nd.cmd = nil
	nd.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}

// Log returns the tail of what the node printed.
func (nd *Node) Log() string {
	b, _ := os.ReadFile(filepath.Join(nd.dir, "weaviate.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// WaitReady waits until the node answers /v1/.well-known/ready.
func (nd *Node) WaitReady(timeout time.Duration) error { return nd.wait("ready", timeout) }

func (nd *Node) waitLive(timeout time.Duration) error { return nd.wait("live", timeout) }

func (nd *Node) wait(what string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := http.Get(nd.URL + "/v1/.well-known/" + what)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		nd.mu.Lock()
		exited := nd.exited
		nd.mu.Unlock()
		select {
		case <-exited:
			return fmt.Errorf("%s exited: %s", nd.Name, nd.Log())
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not %s after %s: %s", nd.Name, what, timeout, nd.Log())
}

// Ports are picked below the kernel's ephemeral range (where outgoing
// connections get their local port): a node stopped by a fault test leaves
// its ports free, and an ephemeral port handed to some connection meanwhile
// kept it from starting again ("bind: address already in use").
const portFloor = 20000

// portRange is [portFloor, the ephemeral range's start), or ok false when
// that is too narrow to pick from.
func portRange() (lo, hi int, ok bool) {
	hi = 32768 // Linux's default ephemeral start
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				hi = v
			}
		}
	}
	return portFloor, hi, hi-portFloor >= 1000
}

// listen takes a free loopback port: a random one below the ephemeral
// range, else (none found, or no such range) one the kernel picks.
func listen() (net.Listener, error) {
	if lo, hi, ok := portRange(); ok {
		for range 50 {
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(lo+rand.IntN(hi-lo))); err == nil {
				return l, nil
			}
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// freePair returns a port p such that p and p+1 are free on loopback.
func freePair() (int, error) {
	for range 100 {
		l, err := listen()
		if err != nil {
			return 0, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l2, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+1))
		l.Close()
		if err == nil {
			l2.Close()
			return p, nil
		}
	}
	return 0, fmt.Errorf("no two consecutive free ports found")
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	out := make([]int, n)
	for i := range n {
		l, err := listen()
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out[i] = l.Addr().(*net.TCPAddr).Port
	}
	return out, nil
}
