//go:build !linux

package weaviatetest

import (
	"os/exec"
	"syscall"
)

// startProcess starts cmd in a process group of its own. Outside Linux
// nothing kills it if the test binary dies before its cleanup (a timed-out
// test): stop such servers by hand.
func startProcess(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Start()
}
