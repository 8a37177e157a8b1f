// Package pgtest starts a throw-away PostgreSQL server (Debian's
// postgresql package) for tests: initdb into a temporary directory, the
// server on a free loopback port with its socket in the same directory, and
// one fresh database per test. As root it runs the server as nobody, since
// PostgreSQL refuses to run as root.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoPostgres is returned by Start when no PostgreSQL binaries are found.
var ErrNoPostgres = errors.New("pgtest: no PostgreSQL binaries (initdb, postgres) found in /usr/lib/postgresql/*/bin; install Debian's postgresql package")

// RequireEnv is the variable that turns a missing PostgreSQL into a test
// failure instead of a skip (set by .ci/run).
const RequireEnv = "SITUATE_REQUIRE_POSTGRES"

// Server is a running PostgreSQL server.
type Server struct {
	Dir  string
	Port int
	cmd  *exec.Cmd
	n    atomic.Int64
	// start runs the server process (again, for Restart).
	start func() error
}

// BinDir returns the newest /usr/lib/postgresql/<major>/bin holding initdb,
// or "" when there is none.
func BinDir() string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	best, bestMajor := "", -1
	for _, m := range matches {
		dir := filepath.Dir(m)
		major, err := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		if err == nil && major > bestMajor {
			best, bestMajor = dir, major
		}
	}
	return best
}

// Start initializes a cluster in a new temporary directory and starts a
// server on a free loopback port. Stop it with Stop.
func Start(ctx context.Context) (*Server, error) {
	bin := BinDir()
	if bin == "" {
		return nil, ErrNoPostgres
	}
	dir, err := os.MkdirTemp("", "situate-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{Dir: dir}
	asRoot := os.Geteuid() == 0
	if asRoot {
		if err := os.Chown(dir, 65534, 65534); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: chown %s to nobody: %w", dir, err)
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(bin, name), args...)
		if asRoot {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		c.Env = append(os.Environ(), "LC_ALL=C")
		return c
	}
	data := filepath.Join(dir, "data")
	if out, err := command("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.Port = port
	s.start = func() error {
		log, err := os.OpenFile(filepath.Join(dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
		defer log.Close()
		// fsync off: a test server's durability is not under test.
		s.cmd = command("postgres", "-D", data, "-k", dir, "-h", "127.0.0.1", "-p", strconv.Itoa(port),
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200")
		s.cmd.Stdout, s.cmd.Stderr = log, log
		if err := s.cmd.Start(); err != nil {
			return fmt.Errorf("pgtest: start postgres: %w", err)
		}
		return nil
	}
	if err := s.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.wait(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// wait waits until the server accepts connections.
func (s *Server) wait(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			c.Close(ctx)
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			logText, _ := os.ReadFile(filepath.Join(s.Dir, "postgres.log"))
			return fmt.Errorf("pgtest: postgres did not accept connections on port %d: %w\n%s", s.Port, err, logText)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// URL returns the connection URL of database db on the server.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// NewDatabase creates an empty database and returns its URL.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("test_%d", s.n.Add(1))
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: connect: %w", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return s.URL(name), nil
}

// Restart stops the server (fast shutdown: open connections are cut) and
// starts it again on the same port with the same data.
func (s *Server) Restart(ctx context.Context) error {
	s.halt()
	if err := s.start(); err != nil {
		return err
	}
	return s.wait(ctx)
}

// Stop shuts the server down (fast shutdown) and removes its directory.
func (s *Server) Stop() error {
	s.halt()
	return os.RemoveAll(s.Dir)
}

func (s *Server) halt() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
		s.cmd = nil
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
