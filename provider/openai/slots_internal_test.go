package openai

import (
	"bytes"
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

// FuzzReadStream: the SSE reader never panics or hangs, and text is only
// returned without error when the stream ended properly.
func FuzzReadStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("error: {\"code\":500,\"message\":\"x\",\"type\":\"server_error\"}\n\n"))
	f.Add([]byte(": ping\r\n\r\ndata: {\"choices\":[]}\r\n"))
	c, _ := New(Options{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := c.readStream(context.Background(), bytes.NewReader(data), "", nil)
		if err == nil && len(data) == 0 {
			t.Fatalf("empty stream accepted: %+v", res)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not an *Error", err)
		}
	})
}
