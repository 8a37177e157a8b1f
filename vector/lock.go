package vector

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockPoll is how often a waiting writer retries the lock.
const lockPoll = 25 * time.Millisecond

// acquireLock takes the exclusive write lock on dir/LOCK, retrying for up to
// wait (none when wait < 0), and records this process in the file. try
// attempts the lock once and reports whether it was busy.
func acquireLock(dir string, wait time.Duration, try func(*os.File) (busy bool, err error)) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("vector open: lock %s: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	for {
		busy, err := try(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("vector open: lock %s: %w", path, err)
		}
		if !busy {
			break
		}
		if time.Now().After(deadline) {
			holder := lockHolder(path)
			f.Close()
			return nil, fmt.Errorf("vector open: %s: waited %v for the write lock held by %s: %w", dir, wait.Round(time.Millisecond), holder, ErrLocked)
		}
		time.Sleep(lockPoll)
	}
	// Who holds the lock, for the message of the next writer that waits.
	// Best effort: a failure here does not weaken the lock.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(lockInfo()), 0)
	}
	return f, nil
}

// lockInfo is what a writer records in a LOCK file: its pid, command line and
// start time, one "key=value" per line.
func lockInfo() string {
	cmd := strings.Join(os.Args, " ")
	if len(cmd) > 300 {
		cmd = cmd[:300] + "..."
	}
	return fmt.Sprintf("pid=%d\ncommand=%s\nsince=%s\n", os.Getpid(), strconv.Quote(cmd), time.Now().UTC().Format(time.RFC3339))
}

// lockHolder describes the process recorded in a LOCK file.
func lockHolder(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return "another process (it recorded no pid)"
	}
	var pid, cmd, since string
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "pid":
			pid = v
		case "command":
			if u, err := strconv.Unquote(v); err == nil {
				cmd = u
			}
		case "since":
			since = v
		}
	}
	if pid == "" {
		return "another process (it recorded no pid)"
	}
	if _, err := strconv.Atoi(pid); err != nil {
		return "another process (unreadable pid)"
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

// lockDir takes an exclusive flock on dir/LOCK for the life of the index,
// waiting up to wait for a writer that holds it.
func lockDir(dir string, wait time.Duration) (*os.File, error) {
	return acquireLock(dir, wait, func(f *os.File) (bool, error) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
			return true, nil
		}
		return false, err
	})
}
