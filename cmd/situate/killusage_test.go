package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/anthropic/anthropictest"
	"github.com/situate/situate/sqlite"
)

// TestUsageAccountsForKilledCalls: `situate index` with an LLM (the fake
// Anthropic server, which speaks the Messages API and counts the requests
// it receives) is killed with SIGKILL, then with SIGTERM, while calls are
// in flight; afterwards the store's usage holds a record for every request
// the server received: the answered ones as "context", the others as
// "context-unanswered" (recorded before they were sent).
func TestUsageAccountsForKilledCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs situate index against a slow fake model (a few seconds)")
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			llm := anthropictest.NewServer(anthropictest.Config{APIKey: "test-key", FirstTokenDelay: 150 * time.Millisecond})
			defer llm.Close()
			p := proc{bin: situateBin(t, dir), env: []string{"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + llm.URL}}
			corpus := filepath.Join(dir, "corpus")
			os.MkdirAll(corpus, 0o755)
			writeCorpus(t, corpus, 20)
			store := filepath.Join(dir, "store")
			cmd := p.command("index", "--store", store, "--llm", testModel, corpus)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for llm.Stats().Messages < 12 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			time.Sleep(300 * time.Millisecond) // requests cut off reach the server's count
			sent := llm.Stats().Messages
			if sent < 12 {
				t.Fatalf("only %d requests reached the model before the deadline", sent)
			}
			s, err := sqlite.Open(context.Background(), filepath.Join(store, storeFile))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sum, err := s.UsageSummary(context.Background(), time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			recorded, unanswered := 0, 0
			for _, g := range sum.Groups {
				if g.Operation == "context" || g.Operation == "context-retry" || g.Operation == "context-cancelled" || g.Operation == driver.OperationUnanswered {
					recorded += g.Calls
				}
				if g.Operation == driver.OperationUnanswered {
					unanswered += g.Calls
				}
			}
			t.Logf("%v: %d requests reached the model, %d recorded (%d unanswered)", sig, sent, recorded, unanswered)
			if recorded < sent {
				_, out, errOut := p.run("usage", "--store", store)
				t.Logf("situate usage:\n%s%s", out, errOut)
			}
			if recorded < sent {
				t.Errorf("%v: %d requests reached the model, %d recorded in usage", sig, sent, recorded)
			}
		})
	}
}
