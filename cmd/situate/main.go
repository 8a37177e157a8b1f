// Command situate indexes documents with contextual retrieval and searches
// them. Run "situate help" for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/llm"
	"github.com/situate/situate/wiring"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks errors in how the command was called (exit code 2),
// the wiring package's among them.
type usageError = wiring.UsageError

func usagef(format string, args ...any) error {
	return usageError{Err: fmt.Errorf(format, args...)}
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"index", "index files, directories, JSONL or stdin", runIndex},
		{"search", "search the index", runSearch},
		{"status", "show documents, chunks, languages, store size and what is stale", runStatus},
		{"ls", "list indexed documents (with filters and paging)", runList},
		{"show", "show a document's chunks with their contexts", runShow},
		{"rm", "remove documents from the index", runRemove},
		{"config", "print the effective configuration and where each value comes from", runConfig},
		{"eval", "measure retrieval on reference questions", runEval},
		{"cost", "estimate calls, tokens, cost and time of LLM contexts before any call", runCost},
		{"usage", "report what provider calls actually cost: tokens, cache reads, retries, latency", runUsage},
		{"contexts", "review contexts beside their chunks; regenerate flagged ones", runContexts},
		{"mcp", "serve the index to a local agent over MCP (stdio)", runMCP},
		{"serve", "serve the JSON API, metrics and health checks over HTTP", runServe},
		{"keys", "create, list and revoke API keys of situate serve", runKeys},
		{"worker", "run the indexing jobs of a shared PostgreSQL store (--store-url)", runWorker},
		{"compact", "merge each BM25 index into one segment file (faster searches after many small runs)", runCompact},
		{"check", "verify the database and every index file; --repair rebuilds damaged indexes", runCheck},
		{"version", "print the version, source revision and Go version", runVersion},
	}
}

// env is what a command runs with; tests swap its streams.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	workDir        string
	// tally counts LLM usage during this run when an LLM is configured,
	// and the documents that made LLM calls.
	tally *llm.Tally
	// cacheSalt is sent to vLLM as cache_salt (one per tenant of serve).
	cacheSalt string
	// llmChange says which LLM settings changed since the store was last
	// indexed.
	llmChange string
	llmBefore map[string]bool // documents in the store before the run
	// stored makes the engine use the contextualizer the store was last
	// indexed with when none is chosen ("status").
	stored bool
}

// wiring is what the wiring package needs of this run's environment; the
// LLM contextualizer's usage goes through this run's tally.
func (e *env) wiring() wiring.Env {
	return wiring.Env{Getenv: e.getenv, WorkDir: e.workDir, CacheSalt: e.cacheSalt, Stored: e.stored,
		Usage: func(next driver.UsageRecorder) driver.UsageRecorder {
			e.tally = &llm.Tally{Next: next}
			return e.tally
		}}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	wd, _ := os.Getwd()
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, workDir: wd}
	os.Exit(Main(ctx, e, os.Args[1:]))
}

// Main runs situate with args and returns the exit code.
func Main(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			return Main(ctx, e, []string{args[1], "--help"})
		}
		printUsage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, e, args[1:])
		var ue usageError
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, errHelpShown):
			return exitOK
		case errors.As(err, &ue):
			fmt.Fprintf(e.stderr, "situate %s: %s\nRun 'situate %s --help' for usage.\n", c.name, commandErrorText(c.name, err), c.name)
			return exitUsage
		case errors.Is(err, errAlreadyReported):
			return exitFailure
		default:
			fmt.Fprintf(e.stderr, "situate %s: %s\n%s", c.name, commandErrorText(c.name, err), damageHint(err))
			return exitFailure
		}
	}
	fmt.Fprintf(e.stderr, "situate: unknown command %q\n", args[0])
	printUsage(e.stderr)
	return exitUsage
}

// errorText is err as printed after the "situate CMD: " prefix: the root's
// sentinels say "situate: not found" so that they read well alone, but
// wrapped ("document x: situate: not found") the prefix would stutter, so
// it is dropped from the text; errors.Is still sees the sentinel.
func errorText(err error) string {
	s := strings.ReplaceAll(err.Error(), ": situate: ", ": ")
	s = strings.ReplaceAll(s, "\nsituate: ", "\n") // errors.Join puts one per line
	return strings.TrimPrefix(s, "situate: ")
}

// commandErrorText is errorText for command name's error, which is
// printed after "situate NAME: ": the library's own "NAME: " (the index
// run's "index: read documents: ...") is not said twice.
func commandErrorText(name string, err error) string {
	return strings.TrimPrefix(errorText(err), name+": ")
}

var (
	errHelpShown       = errors.New("help shown")
	errAlreadyReported = errors.New("failure already reported")
)

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "situate — contextual retrieval: situate every chunk in its document, then search with BM25 (and vectors, with --embed).")
	fmt.Fprintln(w, "\nUsage: situate <command> [flags] [arguments]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'situate <command> --help' for a command's flags. Exit codes: 0 ok, 1 failure, 2 usage.")
}
