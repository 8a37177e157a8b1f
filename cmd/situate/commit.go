package main

import (
	"context"
	"sync"
	"time"

	"github.com/situate/situate"
)

// Commit batching: prepared documents are committed together so the index
// pays one durable commit per batch instead of one per document.
const (
	commitBatchDocs = 64
	commitInterval  = 500 * time.Millisecond
)

// committer collects prepared documents from concurrent workers and commits
// them in batches on its own goroutine.
type committer struct {
	eng     *situate.Engine
	in      chan *situate.Prepared
	done    chan struct{}
	onDone  func(p *situate.Prepared, change situate.Change, err error)
	errOnce sync.Once
	err     error
}

// newCommitter starts a committer; onDone is called once per document, from
// the committer's goroutine only.
func newCommitter(ctx context.Context, eng *situate.Engine, onDone func(*situate.Prepared, situate.Change, error)) *committer {
	c := &committer{eng: eng, in: make(chan *situate.Prepared, commitBatchDocs), done: make(chan struct{}), onDone: onDone}
	go c.loop(ctx)
	return c
}

func (c *committer) add(p *situate.Prepared) { c.in <- p }

// close commits what is left and waits for it.
func (c *committer) close() {
	close(c.in)
	<-c.done
}

func (c *committer) loop(ctx context.Context) {
	defer close(c.done)
	var batch []*situate.Prepared
	timer := time.NewTimer(commitInterval)
	defer timer.Stop()
	flush := func() {
		if len(batch) == 0 {
			return
		}
		// A commit is not interrupted by the run's cancellation: what was
		// prepared is either committed whole or not at all.
		changes, err := c.eng.Commit(context.WithoutCancel(ctx), batch)
		for i, p := range batch {
			if i < len(changes) {
				// Stored, even when a later document of the batch failed.
				c.onDone(p, changes[i], nil)
			} else {
				c.onDone(p, situate.Unchanged, err)
			}
		}
		batch = batch[:0]
	}
	for {
		select {
		case p, ok := <-c.in:
			if !ok {
				flush()
				return
			}
			batch = append(batch, p)
			if len(batch) >= commitBatchDocs {
				flush()
			}
		case <-timer.C:
			flush()
			timer.Reset(commitInterval)
		}
	}
}
