package openai

import (
	"context"
	"sync"
)

// Slot assignment for llama.cpp (Options.Slots).
const (
	// SlotsHash (the default) pins a document to Slot(DocID, total_slots)
	// and lets one of this client's requests run per slot at a time, a
	// request for the slot's current document first: see slotGate.
	SlotsHash = "hash"
	// SlotsServer sends no id_slot: llama-server picks a slot by prompt
	// similarity (--slot-prompt-similarity).
	SlotsServer = "server"
)

// slotGate queues this client's requests per llama.cpp slot: a slot runs
// one at a time (llama-server would defer the others anyway), and when it
// frees up, a waiting request for the document the slot last served goes
// before requests for other documents, which then wait in arrival order.
// A slot keeps only its last prompt's KV cache (unless llama.cpp's
// --cache-ram host cache holds more), so serving a document's waiting
// chunks before switching saves recomputing its prefix.
type slotGate struct {
	mu    sync.Mutex
	slots []slotState
	home  func(doc string) int
}

type slotState struct {
	doc     string
	busy    bool
	waiters []*slotWaiter
}

type slotWaiter struct {
	doc     string
	ready   chan struct{}
	granted bool
}

func newSlotGate(n int, home func(doc string) int) *slotGate {
	return &slotGate{slots: make([]slotState, n), home: home}
}

// acquire waits until doc's slot is free for this request and returns it.
func (g *slotGate) acquire(ctx context.Context, doc string) (int, error) {
	i := g.home(doc)
	g.mu.Lock()
	s := &g.slots[i]
	if !s.busy && len(s.waiters) == 0 {
		s.busy, s.doc = true, doc
		g.mu.Unlock()
		return i, nil
	}
	w := &slotWaiter{doc: doc, ready: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return i, nil
	case <-ctx.Done():
		g.mu.Lock()
		if w.granted {
			g.mu.Unlock()
			g.release(i)
			return 0, ctx.Err()
		}
		for j, x := range s.waiters {
			if x == w {
				s.waiters = append(s.waiters[:j:j], s.waiters[j+1:]...)
				break
			}
		}
		g.mu.Unlock()
		return 0, ctx.Err()
	}
}

// release frees slot i and grants it to the next waiter: one for the
// slot's current document first.
func (g *slotGate) release(i int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := &g.slots[i]
	s.busy = false
	if len(s.waiters) == 0 {
		return
	}
	j := 0
	for k, w := range s.waiters {
		if w.doc == s.doc {
			j = k
			break
		}
	}
	w := s.waiters[j]
	s.waiters = append(s.waiters[:j:j], s.waiters[j+1:]...)
	s.busy, s.doc, w.granted = true, w.doc, true
	close(w.ready)
}
