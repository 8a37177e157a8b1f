package situate

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// writerLockName is the Engine's write lock in its index directory: one
// writer at a time opens the store for writing, while readers (Options
// ReadOnly) take no lock at all.
const writerLockName = "LOCK"

// lockPoll is how often a waiting writer retries the lock.
const lockPoll = 25 * time.Millisecond

// lockWriter takes the exclusive write lock of dir, waiting up to wait for
// the writer that holds it, and records this process in the file so that
// the next writer can say who holds it.
func lockWriter(dir string, wait time.Duration) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	path := filepath.Join(dir, writerLockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open engine: write lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		busy, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("open engine: write lock %s: %w", path, err)
		}
		if !busy {
			break
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("open engine: %s is being written by %s (waited %v; searches still work meanwhile): %w",
				dir, lockHolder(path), wait.Round(time.Millisecond), ErrLocked)
		}
		time.Sleep(lockPoll)
	}
	cmd := strings.Join(os.Args, " ")
	if len(cmd) > 300 {
		cmd = cmd[:300] + "..."
	}
	// Best effort: a failure here does not weaken the lock.
	if err := f.Truncate(0); err == nil {
		f.WriteAt(fmt.Appendf(nil, "pid=%d\ncommand=%s\nsince=%s\n", os.Getpid(), strconv.Quote(cmd), time.Now().UTC().Format(time.RFC3339)), 0)
	}
	return f, nil
}

// lockHolder describes the writer recorded in a lock file.
func lockHolder(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "another process"
	}
	var pid, cmd, since string
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "pid":
			if _, err := strconv.Atoi(v); err == nil {
				pid = v
			}
		case "command":
			if u, err := strconv.Unquote(v); err == nil {
				cmd = u
			}
		case "since":
			if _, err := time.Parse(time.RFC3339, v); err == nil {
				since = v
			}
		}
	}
	if pid == "" {
		return "another process"
	}
	s := "pid " + pid
	if cmd != "" {
		s += " (" + strconv.Quote(cmd) + ")"
	}
	if since != "" {
		s += " since " + since
	}
	return s
}
