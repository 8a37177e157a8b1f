package main

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/llm"
)

func runIndex(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("index", "PATH... | - | FILE.jsonl",
		"Index files and directories (recursively, honouring .gitignore and .situateignore), JSONL files\n"+
			"({\"id\",\"text\",\"title\",\"metadata\"} per line) or stdin ('-'). Unchanged documents are skipped;\n"+
			"a changed document is re-chunked and re-contextualized as a whole.")
	c.flags(fs, "store", "config", "chunk-size", "chunk-overlap", "contextualizer", "analyzer",
		"bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe", "parallel", "include", "exclude", "max-file-size")
	c.flags(fs, llmSettings...)
	c.flags(fs, denseSettings...)
	prune := fs.Bool("prune", false, "remove indexed documents that were not found in this run")
	strict := fs.Bool("strict", false, "exit non-zero when any file was skipped")
	stdinID := fs.String("id", "stdin", "document id for text read from stdin")
	quiet := fs.Bool("quiet", false, "no progress and no summary")
	batch := fs.Bool("batch", false, "write LLM contexts through Anthropic's Message Batches (half price, may take hours; a restart resumes the batch)")
	batchPoll := fs.Duration("batch-poll", DefaultBatchPoll, "how often --batch polls the batch")
	paths, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("no PATH given")
	}
	maxSize, err := c.int("max-file-size")
	if err != nil {
		return err
	}
	pdfx := pdf.New(pdf.Options{})
	defer pdfx.Close() // releases PDFium's WebAssembly runtime, if a PDF started it
	ingestOpts := ingest.Options{Include: c.list("include"), Exclude: c.list("exclude"),
		MaxFileSize: int64(maxSize), PDF: pdfx}
	if err := ingestOpts.Validate(); err != nil {
		return usageError{err}
	}

	eng, store, err := openEngine(ctx, e, c, true)
	if err != nil {
		return err
	}
	defer store.Close()
	defer eng.Close()

	start := time.Now()
	var (
		docs    []situate.Document
		skipped int
		// known are files the store already holds as they are (same size,
		// modification time and processing): they are not even read.
		known    []string
		statMu   sync.Mutex
		statInfo = map[string]string{}
	)
	llmConfigured := false
	if _, ok := eng.Options().Contextualizer.(*llm.Contextualizer); ok {
		llmConfigured = true
	}
	ingestOpts.Unchanged = func(id string, info iofs.FileInfo) bool {
		stat := fileStat(info)
		statMu.Lock()
		statInfo[id] = stat
		statMu.Unlock()
		rec, err := eng.Document(id)
		if err != nil {
			return false
		}
		// Indexed with other chunking or contextualizer settings: read it
		// again so that the engine re-processes it.
		if !strings.HasSuffix(rec.Hash, "/"+eng.ProcessingFingerprint()) {
			return false
		}
		v, ok, err := store.Meta(ctx, statKey(id))
		if err != nil || !ok || v != stat+" "+rec.Hash {
			return false
		}
		// With an LLM, chunks that fell back to the offline context are
		// retried: such documents must be read again.
		if llmConfigured {
			if fb, err := hasFallback(ctx, store, id); err != nil || fb {
				return false
			}
		}
		return true
	}
	report := func(err error) {
		skipped++
		fmt.Fprintf(e.stderr, "skip %v\n", err)
	}
	collect := func(doc situate.Document, err error) error {
		if errors.Is(err, ingest.ErrUnchanged) {
			known = append(known, doc.ID)
			return nil
		}
		if err != nil {
			var fe *ingest.FileError
			if errors.As(err, &fe) {
				report(err)
				return nil
			}
			return err
		}
		docs = append(docs, doc)
		return nil
	}
	storeDir := c.storeDir(e)
	for _, p := range paths {
		switch {
		case p == "-":
			doc, err := ingest.ParseReader(ctx, e.stdin, *stdinID, *stdinID, ingestOpts)
			if err := collect(doc, err); err != nil {
				return err
			}
		case strings.HasSuffix(strings.ToLower(p), ".jsonl"):
			f, err := os.Open(p)
			if err != nil {
				report(&ingest.FileError{Op: "open", Path: p, Err: err})
				continue
			}
			err = ingest.JSONL(ctx, f, p, collect)
			f.Close()
			if err != nil {
				return err
			}
		default:
			abs, _ := filepath.Abs(p)
			if abs == storeDir {
				continue
			}
			if err := ingest.Walk(ctx, []string{p}, ingestOpts, collect); err != nil {
				return err
			}
		}
	}

	if *batch {
		if eng, _, err = indexBatch(ctx, e, c, eng, store, docs, batchOptions{Poll: *batchPoll, Quiet: *quiet}); err != nil {
			return err
		}
		defer eng.Close()
	} else if _, ok := eng.Options().Contextualizer.(*llm.Contextualizer); ok {
		// Chunks whose calls kept failing got the offline fallback; their
		// documents are marked stale so this run asks again for them.
		if eng, _, err = retryFallbacks(ctx, e, c, eng, store, docs); err != nil {
			return err
		}
		defer eng.Close()
	}
	parallel := eng.Options().ParallelDocuments
	prog := newProgress(e.stderr, len(docs), "situating", *quiet)
	var (
		mu       sync.Mutex
		counts   = map[situate.Change]int{}
		failures int
		chunks   int
	)
	work := make(chan situate.Document)
	record := func(id string, change situate.Change, n int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures++
			fmt.Fprintf(e.stderr, "fail %s: %v\n", id, err)
		} else {
			counts[change]++
			chunks += n
			if e.tally != nil {
				prog.describe("situating · " + e.tally.String())
			}
			statMu.Lock()
			stat, walked := statInfo[id]
			statMu.Unlock()
			if rec, rerr := eng.Document(id); walked && rerr == nil {
				if err := store.SetMeta(ctx, statKey(id), stat+" "+rec.Hash); err != nil {
					fmt.Fprintf(e.stderr, "warning: %s: %v\n", id, err)
				}
			}
		}
		prog.add(1)
	}
	commits := newCommitter(ctx, eng, func(p *situate.Prepared, change situate.Change, err error) {
		record(p.DocID(), change, p.Chunks(), err)
	})
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for doc := range work {
				p, err := eng.Prepare(ctx, doc)
				switch {
				case err != nil:
					record(doc.ID, situate.Unchanged, 0, err)
				case p == nil:
					record(doc.ID, situate.Unchanged, 0, nil)
				default:
					commits.add(p)
				}
			}
		}()
	}
feed:
	for _, d := range docs {
		select {
		case work <- d:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	commits.close()
	prog.done()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}

	removed := 0
	if *prune {
		seen := make(map[string]bool, len(docs)+len(known))
		for _, d := range docs {
			seen[d.ID] = true
		}
		for _, id := range known {
			seen[id] = true
		}
		for _, r := range eng.Documents() {
			if !seen[r.ID] {
				if err := eng.Delete(ctx, r.ID); err != nil {
					return err
				}
				removed++
			}
		}
	}
	if !*quiet && e.tally != nil && e.tally.calls.Load() > 0 {
		fmt.Fprintf(e.stderr, "llm: %s\n", e.tally)
	}
	if s := llmSummary(e); s != "" && !*quiet {
		fmt.Fprintf(e.stderr, "llm: %s\n", s)
	}
	if !*quiet {
		fmt.Fprintf(e.stderr, "indexed %d documents in %s: %d added, %d updated, %d unchanged, %d removed, %d skipped, %d failed; %d new chunks; store %s\n",
			len(docs)+len(known), time.Since(start).Round(time.Millisecond), counts[situate.Added], counts[situate.Updated],
			counts[situate.Unchanged]+len(known), removed, skipped, failures, chunks, storeDir)
	}
	if failures > 0 || (*strict && skipped > 0) {
		return errAlreadyReported
	}
	return nil
}

// statKey is the store meta key holding a walked file's size and
// modification time with the record hash it was indexed as.
func statKey(id string) string { return "file-stat:" + id }

func fileStat(info iofs.FileInfo) string {
	return fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
}
