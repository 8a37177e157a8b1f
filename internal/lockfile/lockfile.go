// Package lockfile is the writer lock that the Engine, the BM25 index and
// the vector index each take on their directory: an exclusive flock on a
// LOCK file, waited for a bounded time, with the holder's pid, command line
// and start time recorded in the file so that the next writer can say who
// holds it. Readers take no lock. It imports no project package.
package lockfile

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Poll is how often a waiting writer retries the lock.
const Poll = 25 * time.Millisecond

// Acquire opens (creating) the lock file at path and takes its exclusive
// lock, retrying for up to wait (once when wait <= 0), then records this
// process in it. When another process still holds the lock after wait,
// f is nil, err is nil and holder describes that process, for the caller's
// own error. err reports a file that cannot be opened or locked.
func Acquire(path string, wait time.Duration) (f *os.File, holder string, err error) {
	f, err = os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, "", err
	}
	deadline := time.Now().Add(wait)
	for {
		busy, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, "", err
		}
		if !busy {
			break
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, Holder(path), nil
		}
		time.Sleep(Poll)
	}
	// Best effort: a failure here does not weaken the lock.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(info()), 0)
	}
	return f, "", nil
}

// info is what a writer records: its pid, command line and start time, one
// "key=value" per line.
func info() string {
	cmd := strings.Join(os.Args, " ")
	if len(cmd) > 300 {
		cmd = cmd[:300] + "..."
	}
	return fmt.Sprintf("pid=%d\ncommand=%s\nsince=%s\n", os.Getpid(), strconv.Quote(cmd), time.Now().UTC().Format(time.RFC3339))
}

// Holder describes the process recorded in the lock file at path.
func Holder(path string) string {
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
			if _, err := time.Parse(time.RFC3339, v); err == nil {
				since = v
			}
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

// Wait is the wait an Options.LockWait setting asks for: 0 means def,
// negative means none (fail at once when the lock is held).
func Wait(setting, def time.Duration) time.Duration {
	switch {
	case setting == 0:
		return def
	case setting < 0:
		return 0
	}
	return setting
}
