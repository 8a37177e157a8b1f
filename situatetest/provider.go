package situatetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// EmbedderHarness makes the embedders TestEmbedder runs against.
type EmbedderHarness struct {
	// New returns an embedder that works (against the backend's fake
	// server, configured with Key), recording its usage to rec if it
	// records usage.
	New func(t *testing.T, rec driver.UsageRecorder) situate.Embedder
	// Fault returns an embedder configured with Key whose server answers
	// as srv does (FaultServer with the provider's error body); nil
	// skips the fault checks (an embedder without a server).
	Fault func(t *testing.T, srv string, rec driver.UsageRecorder) situate.Embedder
	// ErrorBody writes the provider's error answer, for FaultServer.
	ErrorBody ErrorBody
}

// TestEmbedder runs the Embedder conformance suite: one vector per text
// in order, one dimension, finite values, query and document inputs,
// batches larger than one request, empty input, unicode, concurrent use,
// cancellation and typed, key-free errors.
func TestEmbedder(t *testing.T, h EmbedderHarness) {
	ctx := t.Context()
	t.Run("Embed", func(t *testing.T) {
		e := h.New(t, &Recorder{})
		checkName(t, e.Name())
		texts := append([]string{"The capital of France is Paris.", "Bananas are yellow fruit."}, unicodeTexts...)
		for _, in := range []driver.InputType{driver.InputDocument, driver.InputQuery} {
			vs, err := e.Embed(ctx, texts, in)
			if err != nil {
				t.Fatalf("Embed(input %d): %v", in, err)
			}
			checkVectors(t, vs, len(texts))
			// The same text embeds the same way alone and in a batch, in
			// any position.
			rev := make([]string, len(texts))
			for i := range texts {
				rev[len(texts)-1-i] = texts[i]
			}
			vr, err := e.Embed(ctx, rev, in)
			if err != nil {
				t.Fatal(err)
			}
			for i := range texts {
				if c := cosine(vs[i], vr[len(texts)-1-i]); c < 0.99 {
					t.Errorf("text %d embeds differently in another position (cosine %.3f): vectors are not in input order", i, c)
				}
			}
			one, err := e.Embed(ctx, texts[1:2], in)
			if err != nil || len(one) != 1 || cosine(one[0], vs[1]) < 0.99 {
				t.Errorf("one text alone: %d vectors, %v", len(one), err)
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		e := h.New(t, &Recorder{})
		vs, err := e.Embed(ctx, nil, driver.InputDocument)
		if err != nil || len(vs) != 0 {
			t.Errorf("no texts: %d vectors, %v; want none and no error", len(vs), err)
		}
		vs, err = e.Embed(ctx, []string{"fine", ""}, driver.InputDocument)
		if err == nil {
			checkVectors(t, vs, 2)
		} else if !errors.Is(err, situate.ErrInvalid) {
			t.Errorf("an empty text: %v, want vectors or an error wrapping situate.ErrInvalid", err)
		}
	})
	t.Run("Batches", func(t *testing.T) {
		e := h.New(t, &Recorder{})
		texts := make([]string, 300)
		for i := range texts {
			texts[i] = fmt.Sprintf("text number %d about %s", i, unicodeTexts[i%len(unicodeTexts)])
		}
		vs, err := e.Embed(ctx, texts, driver.InputDocument)
		if err != nil {
			t.Fatal(err)
		}
		checkVectors(t, vs, len(texts))
		last, err := e.Embed(ctx, texts[299:], driver.InputDocument)
		if err != nil || cosine(last[0], vs[299]) < 0.99 {
			t.Errorf("the last of 300 texts does not match it embedded alone: %v", err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		e := h.New(t, &Recorder{})
		concurrently(t, 6, 5, func(i, j int) error {
			texts := []string{fmt.Sprintf("goroutine %d round %d", i, j), "shared text"}
			vs, err := e.Embed(ctx, texts, driver.InputQuery)
			if err != nil {
				return err
			}
			if len(vs) != 2 {
				return fmt.Errorf("%d vectors for 2 texts", len(vs))
			}
			return nil
		})
	})
	t.Run("Canceled", func(t *testing.T) {
		e := h.New(t, &Recorder{})
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := e.Embed(cctx, []string{"a text"}, driver.InputDocument)
		checkCanceled(t, err)
	})
	t.Run("Faults", func(t *testing.T) {
		if h.Fault == nil {
			t.Skip("no server: no faults to provoke")
		}
		for _, f := range Faults {
			t.Run(f.String(), func(t *testing.T) {
				rec := &Recorder{}
				e := h.Fault(t, FaultServer(t, f, h.ErrorBody).URL, rec)
				fctx, cancel := faultContext(t, f)
				defer cancel()
				var err error
				timed(t, "embed against "+f.String(), 10*time.Second, func() {
					_, err = e.Embed(fctx, []string{"a text"}, driver.InputDocument)
				})
				checkFault(t, f, "Embed", err, usageErrors(rec)...)
			})
		}
	})
}

// RerankerHarness makes the rerankers TestReranker runs against.
type RerankerHarness struct {
	New       func(t *testing.T, rec driver.UsageRecorder) situate.Reranker
	Fault     func(t *testing.T, srv string, rec driver.UsageRecorder) situate.Reranker
	ErrorBody ErrorBody
}

// TestReranker runs the Reranker conformance suite: one finite score per
// text in the order given, relevance ordering, empty input, many texts,
// concurrent use, cancellation and typed, key-free errors.
func TestReranker(t *testing.T, h RerankerHarness) {
	ctx := t.Context()
	const query = "capital of France"
	texts := []string{"Bananas are yellow fruit.", "Paris is the capital of France.", "Москва — столица России.", "北京是中国的首都。"}
	t.Run("Rerank", func(t *testing.T) {
		r := h.New(t, &Recorder{})
		checkName(t, r.Name())
		s, err := r.Rerank(ctx, query, texts)
		if err != nil {
			t.Fatal(err)
		}
		checkScores(t, s, len(texts))
		if len(s) == len(texts) && s[1] <= s[0] {
			t.Errorf("scores %v: the relevant text (1) does not score above the irrelevant one (0)", s)
		}
		rev := []string{texts[3], texts[2], texts[1], texts[0]}
		sr, err := r.Rerank(ctx, query, rev)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			if i < len(sr) && math.Abs(sr[len(texts)-1-i]-s[i]) > 1e-3*max(1, math.Abs(s[i])) {
				t.Errorf("text %d scores %v in one order and %v in another: scores are not in input order", i, s[i], sr[len(texts)-1-i])
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		r := h.New(t, &Recorder{})
		s, err := r.Rerank(ctx, query, nil)
		if err != nil || len(s) != 0 {
			t.Errorf("no texts: %d scores, %v; want none and no error", len(s), err)
		}
	})
	t.Run("Many", func(t *testing.T) {
		r := h.New(t, &Recorder{})
		many := make([]string, 250)
		for i := range many {
			many[i] = fmt.Sprintf("candidate %d: %s", i, unicodeTexts[i%len(unicodeTexts)])
		}
		many[137] = "Paris is the capital of France."
		s, err := r.Rerank(ctx, query, many)
		if err != nil {
			t.Fatal(err)
		}
		checkScores(t, s, len(many))
		for i, v := range s {
			if i != 137 && v >= s[137] {
				t.Errorf("candidate %d scores %v >= the relevant candidate's %v", i, v, s[137])
				break
			}
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		r := h.New(t, &Recorder{})
		concurrently(t, 6, 5, func(i, j int) error {
			s, err := r.Rerank(ctx, query, texts[:1+(i+j)%len(texts)])
			if err == nil && len(s) != 1+(i+j)%len(texts) {
				err = fmt.Errorf("%d scores for %d texts", len(s), 1+(i+j)%len(texts))
			}
			return err
		})
	})
	t.Run("Canceled", func(t *testing.T) {
		r := h.New(t, &Recorder{})
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := r.Rerank(cctx, query, texts)
		checkCanceled(t, err)
	})
	t.Run("Faults", func(t *testing.T) {
		if h.Fault == nil {
			t.Skip("no server: no faults to provoke")
		}
		for _, f := range Faults {
			t.Run(f.String(), func(t *testing.T) {
				rec := &Recorder{}
				r := h.Fault(t, FaultServer(t, f, h.ErrorBody).URL, rec)
				fctx, cancel := faultContext(t, f)
				defer cancel()
				var err error
				timed(t, "rerank against "+f.String(), 10*time.Second, func() {
					_, err = r.Rerank(fctx, query, texts)
				})
				checkFault(t, f, "Rerank", err, usageErrors(rec)...)
			})
		}
	})
}

// LLMHarness makes the chat models TestLLM runs against.
type LLMHarness struct {
	// New returns a model that works, against the backend's fake server.
	New func(t *testing.T) driver.LLM
	// Requests returns the bodies of the requests New's server received
	// so far, for the prompt checks; nil skips them.
	Requests func(t *testing.T, m driver.LLM) [][]byte
	// Fault returns a model configured with Key whose server is srv.
	Fault     func(t *testing.T, srv string) driver.LLM
	ErrorBody ErrorBody
}

// TestLLM runs the LLM conformance suite: Name, Complete with the answer
// and its usage filled in, the prompt's prefix sent byte-identical ahead
// of its suffix (so prompt caches can pay for it once), Started, unicode,
// concurrent use, cancellation, typed and key-free errors, and
// TokenCounter and ContextWindower when implemented.
func TestLLM(t *testing.T, h LLMHarness) {
	ctx := t.Context()
	prefix := "<document>\nBrightwater Logistics reported third quarter revenue of 4.2 million euros. Größe, Москва, 北京.\n</document>\n"
	prompt := func(chunk string) driver.Prompt {
		return driver.Prompt{DocID: "reports/q3.md", Prefix: prefix, MaxTokens: 16,
			Suffix: "Here is the chunk we want to situate within the whole document\n<chunk>\n" + chunk + "\n</chunk>\nAnswer only with the context."}
	}
	t.Run("Complete", func(t *testing.T) {
		m := h.New(t)
		checkName(t, m.Name())
		started := 0
		p := prompt("Revenue rose 12% to 4.2 million euros.")
		p.Started = func() { started++ }
		c, err := m.Complete(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(c.Text) == "" {
			t.Errorf("empty answer")
		}
		u := c.Usage
		if u.Provider+":"+u.Model != m.Name() || u.Operation != "context" || u.DocID != p.DocID || u.Time.IsZero() || u.Error != "" {
			t.Errorf("usage %+v: want Provider:Model = %q, Operation context, DocID %q, Time set, no Error", u, m.Name(), p.DocID)
		}
		if u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens <= 0 || u.OutputTokens <= 0 {
			t.Errorf("usage %+v: input and output tokens must be counted", u)
		}
		if started != 1 {
			t.Errorf("Started called %d times, want once", started)
		}
	})
	t.Run("Prompt", func(t *testing.T) {
		if h.Requests == nil {
			t.Skip("the harness does not show requests")
		}
		m := h.New(t)
		for _, chunk := range []string{"First chunk: revenue.", "Второй фрагмент: выручка."} {
			if _, err := m.Complete(ctx, prompt(chunk)); err != nil {
				t.Fatal(err)
			}
		}
		reqs := h.Requests(t, m)
		if len(reqs) < 2 {
			t.Fatalf("%d requests seen, want 2", len(reqs))
		}
		a, b := reqs[len(reqs)-2], reqs[len(reqs)-1]
		pre, suf := jsonText(prefix), jsonText(prompt("Второй фрагмент: выручка.").Suffix)
		ip, is := strings.Index(string(b), pre), strings.Index(string(b), suf)
		if ip < 0 || is < 0 {
			t.Fatalf("request does not carry the prefix (%v) and the suffix (%v) verbatim:\n%s", ip >= 0, is >= 0, b)
		}
		if is < ip+len(pre) {
			t.Errorf("the suffix is sent before the end of the prefix")
		}
		common := 0
		for common < len(a) && common < len(b) && a[common] == b[common] {
			common++
		}
		if common < ip+len(pre) {
			t.Errorf("two chunks of one document differ at byte %d, before the end of the prefix (byte %d): a prompt cache cannot reuse it\n%s\n%s",
				common, ip+len(pre), a[:min(len(a), ip+len(pre))], b[:min(len(b), ip+len(pre))])
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		m := h.New(t)
		concurrently(t, 4, 2, func(i, j int) error {
			c, err := m.Complete(ctx, prompt(fmt.Sprintf("chunk %d.%d", i, j)))
			if err == nil && strings.TrimSpace(c.Text) == "" {
				err = errors.New("empty answer")
			}
			return err
		})
	})
	t.Run("Canceled", func(t *testing.T) {
		m := h.New(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := m.Complete(cctx, prompt("x"))
		checkCanceled(t, err)
	})
	t.Run("Tokens", func(t *testing.T) {
		m := h.New(t)
		tc, ok := m.(driver.TokenCounter)
		if !ok {
			t.Skip("not a situate.TokenCounter")
		}
		short, err := tc.CountTokens(ctx, "Paris")
		if errors.Is(err, errors.ErrUnsupported) {
			t.Skipf("this configuration cannot count: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		long, err := tc.CountTokens(ctx, strings.Repeat("Paris is the capital of France. ", 50))
		if err != nil {
			t.Fatal(err)
		}
		if short <= 0 || long <= short {
			t.Errorf("CountTokens: %d for one word, %d for 300 words", short, long)
		}
	})
	t.Run("Window", func(t *testing.T) {
		m := h.New(t)
		cw, ok := m.(driver.ContextWindower)
		if !ok {
			t.Skip("not a situate.ContextWindower")
		}
		// 0 is "unknown" (a server that does not say); the contextualizer
		// then sends whole documents.
		if n, err := cw.ContextWindow(ctx); err != nil || n < 0 {
			t.Errorf("ContextWindow = %d, %v", n, err)
		} else if n == 0 {
			t.Logf("ContextWindow: unknown (0)")
		}
	})
	t.Run("Faults", func(t *testing.T) {
		if h.Fault == nil {
			t.Skip("no server: no faults to provoke")
		}
		for _, f := range Faults {
			t.Run(f.String(), func(t *testing.T) {
				m := h.Fault(t, FaultServer(t, f, h.ErrorBody).URL)
				fctx, cancel := faultContext(t, f)
				defer cancel()
				var (
					c   driver.Completion
					err error
				)
				timed(t, "complete against "+f.String(), 10*time.Second, func() { c, err = m.Complete(fctx, prompt("x")) })
				checkFault(t, f, "Complete", err, c.Usage.Error, c.Text)
				if c.Usage.Error != "" && c.Usage.Error != err.Error() {
					t.Logf("Usage.Error %q differs from the error %q", c.Usage.Error, err)
				}
			})
		}
	})
}

func checkName(t *testing.T, name string) {
	t.Helper()
	p, m, ok := strings.Cut(name, ":")
	if !ok || p == "" || m == "" {
		t.Errorf("Name() = %q, want provider:model", name)
	}
}

func checkVectors(t *testing.T, vs [][]float32, n int) {
	t.Helper()
	if len(vs) != n {
		t.Fatalf("%d vectors for %d texts", len(vs), n)
	}
	for i, v := range vs {
		if len(v) == 0 || len(v) != len(vs[0]) {
			t.Fatalf("vector %d has %d dimensions, vector 0 %d", i, len(v), len(vs[0]))
		}
		norm := 0.0
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("vector %d holds %v", i, x)
			}
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			t.Errorf("vector %d is all zeros", i)
		}
	}
}

func checkScores(t *testing.T, s []float64, n int) {
	t.Helper()
	if len(s) != n {
		t.Fatalf("%d scores for %d texts", len(s), n)
	}
	for i, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("score %d is %v", i, v)
		}
	}
}

func checkCanceled(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("under a canceled context: %v, want an error wrapping context.Canceled", err)
	}
	var r retryable
	if errors.As(err, &r) && r.Retryable() {
		t.Errorf("the caller's cancellation %v says it is retryable", err)
	}
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// jsonText is s as a JSON string's content (HTML characters kept).
func jsonText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return r.Replace(s)
}

func usageErrors(r *Recorder) []string {
	var out []string
	for _, u := range r.Usage() {
		out = append(out, u.Error)
	}
	return out
}
