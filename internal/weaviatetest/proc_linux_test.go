//go:build linux

package weaviatetest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChildDiesWithTestBinary: a process started by startProcess is killed
// when the test binary that started it dies without cleaning up (SIGKILL
// here; a timed-out test exits the same way, without its cleanups). The
// child is `sleep`, standing in for weaviate-server.
func TestChildDiesWithTestBinary(t *testing.T) {
	if os.Getenv("WEAVIATETEST_HELPER") == "1" {
		// The helper: start the child from a goroutine that then exits
		// (its thread may end; the child must not die with it), say its
		// pid, and wait to be killed.
		pid := make(chan int)
		go func() {
			cmd := exec.Command("sleep", "600")
			if err := startProcess(cmd); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			pid <- cmd.Process.Pid
		}()
		fmt.Println("pid", <-pid)
		time.Sleep(10 * time.Minute)
		return
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestChildDiesWithTestBinary$", "-test.count=1")
	helper.Env = append(os.Environ(), "WEAVIATETEST_HELPER=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer helper.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "pid ") {
		t.Fatalf("helper said %q: %v", line, err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid ")))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	time.Sleep(200 * time.Millisecond) // the helper goroutine that started it has exited
	if err := syscall.Kill(child, 0); err != nil {
		t.Fatalf("the child died while its test binary was alive: %v", err)
	}
	helper.Process.Kill()
	helper.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(child, 0) == nil {
		if alive(child) && time.Now().After(deadline) {
			t.Fatalf("child %d still runs 10 s after its test binary was killed", child)
		}
		if !alive(child) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive tells a running process from a zombie (a killed child is a zombie
// until init reaps it).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}
