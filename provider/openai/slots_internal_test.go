package openai

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func oneSlot(string) int { return 0 }

// TestSlotGateOwnDocumentFirst: while the slot serves A, requests for D
// and then A queue; A's goes first, then D's.
func TestSlotGateOwnDocumentFirst(t *testing.T) {
	g := newSlotGate(1, oneSlot)
	ctx := context.Background()
	s, _ := g.acquire(ctx, "A")
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for n, doc := range []string{"D", "A"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i, err := g.acquire(ctx, doc)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, doc)
			mu.Unlock()
			g.release(i)
		}()
		for { // wait until it is queued, so D queues before A
			g.mu.Lock()
			queued := len(g.slots[0].waiters)
			g.mu.Unlock()
			if queued == n+1 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	g.release(s)
	wg.Wait()
	if len(order) != 2 || order[0] != "A" || order[1] != "D" {
		t.Errorf("grant order %v, want [A D]", order)
	}
}

func TestSlotGateSlotsIndependent(t *testing.T) {
	g := newSlotGate(2, func(doc string) int {
		if doc == "B" {
			return 1
		}
		return 0
	})
	a, _ := g.acquire(context.Background(), "A")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b, err := g.acquire(ctx, "B")
	if err != nil || a != 0 || b != 1 {
		t.Fatalf("A on %d, B on %d (%v): slots must not block each other", a, b, err)
	}
}

func TestSlotGateCancel(t *testing.T) {
	g := newSlotGate(1, oneSlot)
	s, _ := g.acquire(context.Background(), "A")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.acquire(ctx, "B"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire = %v, want deadline exceeded", err)
	}
	g.release(s)
	done := make(chan int)
	go func() {
		i, _ := g.acquire(context.Background(), "C")
		done <- i
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("slot not free after a cancelled waiter")
	}
}
