package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/situate/situate/driver"
)

// passageOf extracts the candidate from a rendered rerank suffix.
func passageOf(suffix string) string {
	_, rest, _ := strings.Cut(suffix, "<passage>\n")
	p, _, _ := strings.Cut(rest, "\n</passage>")
	return p
}

// overlapAnswer plays a relevance judge: 10 times the share of query words
// in the passage, as an integer.
func overlapAnswer(p driver.Prompt) string {
	_, rest, _ := strings.Cut(p.Prefix, "<query>\n")
	q, _, _ := strings.Cut(rest, "\n</query>")
	words := strings.Fields(strings.ToLower(q))
	passage := strings.ToLower(passageOf(p.Suffix))
	hit := 0
	for _, w := range words {
		if strings.Contains(passage, w) {
			hit++
		}
	}
	return fmt.Sprint(10 * hit / len(words))
}

func TestRerankScoresInOrderWithSharedPrefix(t *testing.T) {
	f := newFake()
	f.answer = overlapAnswer
	log := &usageLog{}
	r := NewReranker(f, RerankOptions{Concurrency: 3, Usage: log})
	if r.Name() != "llm:fake:model" {
		t.Errorf("Name = %q", r.Name())
	}
	texts := []string{"nothing relevant", "the capital of france is paris", "france", "paris capital", "capital"}
	scores, err := r.Rerank(context.Background(), "capital france paris", texts)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 0.3, 0.6, 0.3}
	for i := range want {
		if scores[i] != want[i] {
			t.Errorf("score[%d] = %v, want %v (%q)", i, scores[i], want[i], texts[i])
		}
	}
	calls := f.snapshot()
	if len(calls) != len(texts) {
		t.Fatalf("%d calls, want %d", len(calls), len(texts))
	}
	for i, c := range calls {
		if c.Prefix != calls[0].Prefix || c.DocID != calls[0].DocID || !strings.Contains(c.Prefix, "capital france paris") {
			t.Errorf("call %d: prefix or DocID differs", i)
		}
		if c.Prefix != RerankPrefix("capital france paris", "") || passageOf(c.Suffix) == "" {
			t.Errorf("call %d: prefix is not the query part alone, or the suffix lacks the passage", i)
		}
		if i > 0 && (c.StartSeq < calls[0].StartedSeq || !c.CacheRead) {
			t.Errorf("call %d started before the first call had the prefix cached", i)
		}
	}
	if f.maxIn > 3 {
		t.Errorf("%d calls in flight, Concurrency 3", f.maxIn)
	}
	if st := r.Stats(); st.Calls != 5 || st.Scored != 5 || st.Unparsed != 0 {
		t.Errorf("stats %+v", st)
	}
	if len(log.us) != 5 || log.us[0].Operation != "rerank" || log.us[0].Provider != "fake" || log.us[0].Model != "model" {
		t.Errorf("usage %+v", log.us)
	}
}

func TestParseRerankScore(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"7", 7, true},
		{" 10\n", 10, true},
		{"Score: 8/10", 8, true},
		{"**9**", 9, true},
		{"Relevance: 4 out of 10.", 4, true},
		{"On a scale of 0 to 10, I'd rate it 6.", 6, true},
		{"Auf einer Skala von 0 bis 10: 3", 3, true},
		{"Оценка: 7", 7, true},
		{"评分:8", 8, true},
		{"<think>Maybe 2? The passage names 3 cities.</think>\n9", 9, true},
		{"7,5", 7.5, true},
		{"0", 0, true},
		{"85", 0, false},
		{"I cannot judge this.", 0, false},
		{"", 0, false},
		{"<think>still thinking about 5", 0, false},
	}
	for _, tc := range cases {
		got, ok := ParseRerankScore(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRerankScore(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRerankUnparsableScoresZero(t *testing.T) {
	f := newFake()
	f.answer = func(p driver.Prompt) string {
		if strings.Contains(p.Suffix, "odd") {
			return "The passage is somewhat relevant."
		}
		return "6"
	}
	r := NewReranker(f, RerankOptions{})
	scores, err := r.Rerank(context.Background(), "q", []string{"a", "odd one", "b", "odd two"})
	if err != nil {
		t.Fatal(err)
	}
	if scores[0] != 0.6 || scores[1] != 0 || scores[2] != 0.6 || scores[3] != 0 {
		t.Errorf("scores %v", scores)
	}
	if st := r.Stats(); st.Unparsed != 2 || st.Scored != 4 {
		t.Errorf("stats %+v, want 2 unparsed of 4", st)
	}
}

func TestRerankRetriesAndFails(t *testing.T) {
	f := newFake()
	f.answer = func(driver.Prompt) string { return "5" }
	var mu sync.Mutex
	failed := map[string]int{}
	f.fail = func(_ int, p driver.Prompt) error {
		mu.Lock()
		defer mu.Unlock()
		c := passageOf(p.Suffix)
		if c == "flaky" && failed[c] == 0 {
			failed[c]++
			return &providerError{status: 429, after: time.Millisecond}
		}
		if c == "broken" {
			return &providerError{status: 400}
		}
		return nil
	}
	log := &usageLog{}
	r := NewReranker(f, RerankOptions{BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Usage: log})
	scores, err := r.Rerank(context.Background(), "q", []string{"a", "flaky", "b"})
	if err != nil || scores[1] != 0.5 {
		t.Fatalf("scores %v, err %v", scores, err)
	}
	if st := r.Stats(); st.Calls != 4 {
		t.Errorf("%d calls, want 4 (one retry)", st.Calls)
	}
	retried := false
	for _, u := range log.us {
		retried = retried || (u.Retries == 1 && u.Error == "")
	}
	if !retried {
		t.Errorf("no usage record of the retried call: %+v", log.us)
	}
	_, err = r.Rerank(context.Background(), "q", []string{"a", "b", "broken", "c"})
	var pe *providerError
	if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), "text 2") {
		t.Fatalf("err = %v, want the provider error naming text 2", err)
	}
	if _, err := r.Rerank(context.Background(), " ", []string{"a"}); !errors.Is(err, driver.ErrInvalid) {
		t.Errorf("empty query: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Rerank(ctx, "q", []string{"a", "b"}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

// A local chat model reranks; the best passage scores highest.
func ExampleReranker() {
	model := newFake()
	model.answer = overlapAnswer
	r := NewReranker(model, RerankOptions{})
	scores, _ := r.Rerank(context.Background(), "capital of france",
		[]string{"Berlin is a city.", "Paris is the capital of France."})
	fmt.Println(r.Name(), scores)
	// Output: llm:fake:model [0 1]
}
