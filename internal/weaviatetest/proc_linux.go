//go:build linux

package weaviatetest

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// A node must not outlive the test binary: a test that times out panics
// and exits without running its cleanups, and a test binary can be killed.
// On Linux the kernel sees to it: each server is started with
// Pdeathsig=SIGKILL. Pdeathsig fires when the thread that forked the child
// exits, not the process, and Go may end threads; so every node is forked
// from one goroutine locked to its thread for the life of the process.

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnOnce sync.Once
	spawns    chan spawnReq
)

func spawner() {
	runtime.LockOSThread() // never unlocked: the thread lives as long as the process
	for r := range spawns {
		r.done <- r.cmd.Start()
	}
}

// startProcess starts cmd in a process group of its own, to be killed by
// the kernel when the test binary dies.
func startProcess(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	spawnOnce.Do(func() {
		spawns = make(chan spawnReq)
		go spawner()
	})
	done := make(chan error, 1)
	spawns <- spawnReq{cmd, done}
	return <-done
}
