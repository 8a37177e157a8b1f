package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// wireUsage is the usage object of a chat completion.
type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type wireTimings struct {
	CacheN      int     `json:"cache_n"`
	PromptN     int     `json:"prompt_n"`
	PromptMS    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
}

// wireChunk is a chat.completion.chunk (streaming) or a chat.completion
// (whole answer); llama.cpp adds timings.
type wireChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int    `json:"index"`
		FinishReason string `json:"finish_reason"`
		Delta        *struct {
			Content *string `json:"content"`
		} `json:"delta"`
		Message *struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
	Timings *wireTimings `json:"timings"`
	// Error is set when a server reports a failure inside a 200 stream
	// (OpenAI, vLLM: data: {"error":{...}}).
	Error *wireError `json:"error"`
}

// Body builds the JSON request body for p, as Complete sends it. The
// document prefix and the chunk part go into ONE user message whose
// content is the single string Prefix+Suffix, so the bytes before the
// chunk are identical for every chunk of a document on every server: the
// chat template puts only a fixed header ("<|im_start|>user\n", ...)
// before it, and prefix caches (OpenAI's 128-token increments, vLLM's
// hashed blocks, llama.cpp's per-slot longest common token prefix) reuse
// everything up to the last token before the chunk. Two content parts are
// not used: vLLM and llama.cpp join text parts with a newline that is not
// in the prompt, and some servers reject part arrays.
func (c *Client) Body(p driver.Prompt) (map[string]any, error) {
	if p.Prefix == "" && p.Suffix == "" {
		return nil, fmt.Errorf("openai: chat: prompt for document %q: Prefix and Suffix are empty: %w", p.DocID, driver.ErrInvalid)
	}
	if p.MaxTokens < 0 {
		return nil, fmt.Errorf("openai: chat: prompt for document %q: MaxTokens %d: must be >= 0: %w", p.DocID, p.MaxTokens, driver.ErrInvalid)
	}
	maxTokens := p.MaxTokens
	if maxTokens == 0 {
		maxTokens = c.maxTokens
	}
	body := map[string]any{
		"messages":       []map[string]string{{"role": "user", "content": p.Prefix + p.Suffix}},
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
	}
	if c.model != "" {
		body["model"] = c.model
	}
	switch c.flavor {
	case FlavorOpenAI:
		// max_tokens is deprecated and rejected by reasoning models.
		body["max_completion_tokens"] = maxTokens
		if c.promptCacheKey && p.DocID != "" {
			body["prompt_cache_key"] = cacheKey(p.DocID)
		}
	case FlavorVLLM:
		body["max_tokens"] = maxTokens
		if c.cacheSalt != "" {
			body["cache_salt"] = c.cacheSalt
		}
	case FlavorLlamaCpp:
		body["max_tokens"] = maxTokens
		body["cache_prompt"] = true
		// Every chunk carries timings, so an answer that fails mid-stream
		// still says what the server processed (usage of failed attempts).
		body["timings_per_token"] = true
	default:
		body["max_tokens"] = maxTokens
	}
	for k, v := range c.extra {
		body[k] = v
	}
	if p.Sample > 0 {
		// Another sample of a rejected answer: another seed, and for
		// local servers a warmer temperature and a repetition penalty
		// (OpenAI's reasoning models accept no temperature but 1).
		body["seed"] = p.Sample
		if c.flavor != FlavorOpenAI {
			if t, ok := body["temperature"].(float64); !ok || t < 0.7 {
				body["temperature"] = 0.7 + 0.1*float64(min(p.Sample, 3))
			}
		}
		switch c.flavor {
		case FlavorLlamaCpp:
			body["repeat_penalty"] = 1.3
		case FlavorVLLM:
			body["repetition_penalty"] = 1.3
		}
	}
	return body, nil
}

// Complete sends p to POST /chat/completions as a stream. p.Started is
// called when the first chunk arrives. Usage: prompt_tokens minus
// prompt_tokens_details.cached_tokens is InputTokens, cached_tokens is
// CacheReadTokens, completion_tokens is OutputTokens. On error the
// Completion still carries what was seen. An empty answer is empty text,
// not an error.
func (c *Client) Complete(ctx context.Context, p driver.Prompt) (driver.Completion, error) {
	comp, _, err := c.CompleteTimings(ctx, p)
	return comp, err
}

// CompleteTimings is Complete that also returns llama.cpp's timings of the
// call (zero for servers that send none): Timings.PromptN is the number
// of prompt tokens the server actually evaluated, CacheN those it reused.
// When llama.cpp ends a stream with an error after it began, the usage is
// what its timings said, and the output tokens are those the slot really
// generated, read from GET /slots (the request carries a seed that names
// it there), so failed attempts count as the server's /metrics do.
func (c *Client) CompleteTimings(ctx context.Context, p driver.Prompt) (driver.Completion, Timings, error) {
	const op = "chat"
	start := time.Now()
	out := driver.Completion{Usage: driver.Usage{Time: start, Provider: c.flavor, Model: c.Name()[len(c.flavor)+1:],
		Operation: "context", DocID: p.DocID}}
	body, err := c.Body(p)
	if err != nil {
		return out, Timings{}, err
	}
	pinned := -1
	if _, set := c.extra["id_slot"]; c.flavor == FlavorLlamaCpp && !set && c.slotMode != SlotsServer {
		// The gate is made with the first /props answer.
		if _, err := c.Props(ctx); err != nil {
			out.Usage.Error = err.Error()
			return out, Timings{}, err
		}
		c.mu.Lock()
		gate := c.gate
		c.mu.Unlock()
		slot, err := gate.acquire(ctx, p.DocID)
		if err != nil {
			err = c.transportError(ctx, op, err)
			out.Usage.Error = err.Error()
			return out, Timings{}, err
		}
		defer gate.release(slot)
		body["id_slot"] = slot
		pinned = slot
		if _, set := body["seed"]; !set {
			// llama-server draws a random seed per request anyway; one
			// drawn here names the attempt in GET /slots (see slotTail).
			body["seed"] = rand.Uint32N(1<<31-1) + 1
		}
	}
	data, err := apiclient.Marshal(body)
	if err != nil {
		return out, Timings{}, fmt.Errorf("openai: %s: encode request: %w", op, err)
	}
	res, err := c.stream(ctx, data, p.Started)
	out.Text = res.text
	if u := res.usage; u != nil {
		cached := 0
		if u.PromptTokensDetails != nil {
			cached = u.PromptTokensDetails.CachedTokens
		}
		out.Usage.InputTokens = max(u.PromptTokens-cached, 0)
		out.Usage.CacheReadTokens = cached
		out.Usage.OutputTokens = u.CompletionTokens
	}
	var t Timings
	if w := res.timings; w != nil {
		t = Timings{CacheN: w.CacheN, PromptN: w.PromptN, PredictedN: w.PredictedN, PromptMS: w.PromptMS, PredictedMS: w.PredictedMS}
		if res.usage == nil {
			// No usage object (the stream failed before it): llama.cpp's
			// timings say what the server processed.
			out.Usage.InputTokens, out.Usage.CacheReadTokens, out.Usage.OutputTokens = t.PromptN, t.CacheN, t.PredictedN
		}
	}
	if err != nil && pinned >= 0 && res.usage == nil && res.timings != nil && ctx.Err() == nil {
		// The server ended the stream with an error (its chat parser
		// refused the answer) or the stream broke: the slot generated
		// tokens the client never saw (llama-server streams nothing after
		// an incomplete UTF-8 sequence, and a slot runs on until the
		// cancel reaches it). The slot itself says how many.
		if n, ok := c.slotTail(ctx, pinned, body["seed"], maxTokensOf(body), *res.timings); ok && n > out.Usage.OutputTokens {
			out.Usage.OutputTokens, t.PredictedN = n, n
		}
	}
	out.Usage.Latency = time.Since(start)
	if err != nil {
		out.Usage.Error = err.Error()
		return out, t, err
	}
	c.mu.Lock()
	c.calls++
	c.timings.CacheN += t.CacheN
	c.timings.PromptN += t.PromptN
	c.timings.PredictedN += t.PredictedN
	c.timings.PromptMS += t.PromptMS
	c.timings.PredictedMS += t.PredictedMS
	c.mu.Unlock()
	return out, t, nil
}

type streamResult struct {
	text    string
	usage   *wireUsage
	timings *wireTimings
}

// stream posts a streaming request and reads the SSE answer.
func (c *Client) stream(ctx context.Context, body []byte, started func()) (streamResult, error) {
	const op = "chat"
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(tctx, http.MethodPost, c.base.JoinPath("/chat/completions").String(), body)
	if err != nil {
		return streamResult{}, fmt.Errorf("openai: %s: %w", op, err)
	}
	req.Header.Set("accept", "text/event-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		return streamResult{}, c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	reqID := resp.Header.Get("x-request-id")
	if resp.StatusCode/100 != 2 {
		return streamResult{}, c.responseError(op, resp)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("content-type"))
	if mt == "application/json" {
		// A server or proxy that ignores "stream": one chat.completion.
		data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return streamResult{}, c.transportError(ctx, op, err)
		}
		var ch wireChunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return streamResult{}, c.streamError(op, reqID, "malformed or truncated chat.completion JSON (%d bytes): %v", len(data), err)
		}
		if w, ok := (errorBody{Error: ch.Error}).wire(); ok {
			return streamResult{}, c.fromWire(op, resp.StatusCode, w, reqID)
		}
		if len(ch.Choices) == 0 {
			return streamResult{}, c.streamError(op, reqID, "chat.completion without choices")
		}
		if started != nil {
			started()
		}
		r := streamResult{usage: ch.Usage, timings: ch.Timings}
		if m := ch.Choices[0].Message; m != nil && m.Content != nil {
			r.text = *m.Content
		}
		return r, nil
	}
	res, err := c.readStream(ctx, resp.Body, reqID, started)
	if err == nil {
		// Read the end of the chunked body so the connection is reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	}
	return res, err
}

func (c *Client) readStream(ctx context.Context, body io.Reader, reqID string, started func()) (streamResult, error) {
	const op = "chat"
	sr := apiclient.NewSSEReader(body, 64<<10)
	var text strings.Builder
	var res streamResult
	finished := false
	n := 0
	for {
		ev, err := sr.Next()
		res.text = text.String()
		if err != nil {
			switch {
			case errors.Is(err, io.EOF) && finished:
				// Some servers omit [DONE] after the finishing chunk.
				return res, nil
			case errors.Is(err, io.EOF):
				return res, c.streamError(op, reqID, "stream ended after %d events without finish_reason or [DONE]", n)
			case errors.Is(err, io.ErrUnexpectedEOF):
				return res, c.streamError(op, reqID, "stream cut off inside event %d", n+1)
			default:
				return res, c.transportError(ctx, op, err)
			}
		}
		n++
		if ev.ErrData != nil {
			var w wireError
			if json.Unmarshal(ev.ErrData, &w) != nil || (w.Message == "" && w.Type == "") {
				var env errorBody
				_ = json.Unmarshal(ev.ErrData, &env)
				if ww, ok := env.wire(); ok {
					w = ww
				} else {
					w = wireError{Type: "server_error", Message: string(ev.ErrData)}
				}
			}
			return res, c.fromWire(op, 0, w, reqID)
		}
		if string(ev.Data) == "[DONE]" {
			return res, nil
		}
		var ch wireChunk
		if err := json.Unmarshal(ev.Data, &ch); err != nil {
			return res, c.streamError(op, reqID, "event %d: malformed or truncated JSON: %v", n, err)
		}
		var env errorBody
		if ch.Error != nil || ch.Object == "error" {
			_ = json.Unmarshal(ev.Data, &env)
			if w, ok := env.wire(); ok {
				return res, c.fromWire(op, 0, w, reqID)
			}
		}
		if started != nil {
			started()
			started = nil
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			if choice.Delta != nil && choice.Delta.Content != nil {
				text.WriteString(*choice.Delta.Content)
			}
			if choice.FinishReason != "" {
				finished = true
			}
		}
		if ch.Usage != nil {
			res.usage = ch.Usage
		}
		if ch.Timings != nil {
			res.timings = ch.Timings
		}
	}
}

// slotTail is how many tokens llama-server's slot generated for the
// attempt that just failed on it, read from GET /slots once the slot is
// idle: the slot keeps the attempt's prompt and every generated token it
// decoded (all but the last sampled one), and the attempt is known by the
// seed it was sent with. ok is false when /slots is disabled (--no-slots),
// the slot stays busy or another request has taken it since.
func (c *Client) slotTail(ctx context.Context, slot int, seed any, maxTokens int, seen wireTimings) (int, bool) {
	// The seed as sent (drawn here, Prompt.Sample, or ExtraBody's JSON
	// number) and as /slots shows it, compared in decimal.
	want, err := json.Marshal(seed)
	if err != nil || seed == nil {
		return 0, false
	}
	var slots []struct {
		ID           int  `json:"id"`
		IsProcessing bool `json:"is_processing"`
		NPrompt      int  `json:"n_prompt_tokens"`
		Params       struct {
			Seed json.Number `json:"seed"`
		} `json:"params"`
	}
	for try := 0; try < 40; try++ {
		if try > 0 {
			select {
			case <-ctx.Done():
				return 0, false
			case <-time.After(25 * time.Millisecond):
			}
		}
		slots = slots[:0]
		if err := c.doJSON(ctx, "slots", http.MethodGet, c.serverURL("/slots"), nil, &slots); err != nil {
			return 0, false
		}
		for _, s := range slots {
			if s.ID != slot {
				continue
			}
			if s.Params.Seed.String() != string(want) {
				return 0, false
			}
			if s.IsProcessing {
				break
			}
			n := s.NPrompt - seen.CacheN - seen.PromptN + 1
			return n, n >= seen.PredictedN && (maxTokens <= 0 || n <= maxTokens)
		}
	}
	return 0, false
}

// maxTokensOf is the request's generation limit (0: none known).
func maxTokensOf(body map[string]any) int {
	switch v := body["max_tokens"].(type) {
	case int:
		return v
	case float64:
		return int(v)
	}
	return 0
}
