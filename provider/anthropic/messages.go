package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/internal/apiclient"
)

// Wire types of the Messages API (only what situate sends and reads).

type wireCacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

type wireBlock struct {
	Type         string            `json:"type"`
	Text         string            `json:"text"`
	CacheControl *wireCacheControl `json:"cache_control,omitempty"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type messageParams struct {
	Model     string        `json:"model"`
	MaxTokens int           `json:"max_tokens"`
	Messages  []wireMessage `json:"messages"`
	Stream    bool          `json:"stream,omitempty"`
}

// wireUsage is Anthropic's usage object. Pointers tell "absent" from 0 so
// that a message_delta only overrides the fields it carries.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreation            *struct {
		Ephemeral5m *int `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h *int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

func (u *wireUsage) merge(o *wireUsage) {
	if o == nil {
		return
	}
	set := func(dst **int, src *int) {
		if src != nil {
			v := *src
			*dst = &v
		}
	}
	set(&u.InputTokens, o.InputTokens)
	set(&u.CacheCreationInputTokens, o.CacheCreationInputTokens)
	set(&u.CacheReadInputTokens, o.CacheReadInputTokens)
	set(&u.OutputTokens, o.OutputTokens)
	if o.CacheCreation != nil {
		u.CacheCreation = o.CacheCreation
	}
}

func val(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// tokens is a usage object read out.
type tokens struct {
	input, cacheWrite, write5m, write1h, cacheRead, output int
}

func (u *wireUsage) tokens(ttl string) tokens {
	t := tokens{input: val(u.InputTokens), cacheWrite: val(u.CacheCreationInputTokens),
		cacheRead: val(u.CacheReadInputTokens), output: val(u.OutputTokens)}
	if u.CacheCreation != nil {
		t.write5m, t.write1h = val(u.CacheCreation.Ephemeral5m), val(u.CacheCreation.Ephemeral1h)
	} else if ttl == "1h" {
		t.write1h = t.cacheWrite
	} else {
		t.write5m = t.cacheWrite
	}
	return t
}

// wireMessageResponse is a complete Message (non-streaming answer, the
// message in message_start, a batch result).
type wireMessageResponse struct {
	ID         string      `json:"id"`
	Type       string      `json:"type"`
	Model      string      `json:"model"`
	Content    []wireBlock `json:"content"`
	StopReason string      `json:"stop_reason"`
	Usage      *wireUsage  `json:"usage"`
}

func (m *wireMessageResponse) text() string {
	var b strings.Builder
	for _, blk := range m.Content {
		if blk.Type == "text" {
			b.WriteString(blk.Text)
		}
	}
	return b.String()
}

// params builds the request for one prompt: the document prefix as a text
// block marked cache_control, the chunk part as a second block.
func (c *Client) params(p driver.Prompt, ttl string, stream bool) (messageParams, error) {
	if p.Prefix == "" && p.Suffix == "" {
		return messageParams{}, fmt.Errorf("anthropic: messages: prompt for document %q: Prefix and Suffix are empty: %w", p.DocID, driver.ErrInvalid)
	}
	if p.MaxTokens < 0 {
		return messageParams{}, fmt.Errorf("anthropic: messages: prompt for document %q: MaxTokens %d: must be >= 0: %w", p.DocID, p.MaxTokens, driver.ErrInvalid)
	}
	maxTokens := p.MaxTokens
	if maxTokens == 0 {
		maxTokens = c.maxTokens
	}
	// Anthropic rejects empty text blocks, so an empty part is left out.
	var blocks []wireBlock
	if p.Prefix != "" {
		cc := &wireCacheControl{Type: "ephemeral"}
		if ttl == "1h" {
			cc.TTL = "1h"
		}
		blocks = append(blocks, wireBlock{Type: "text", Text: p.Prefix, CacheControl: cc})
	}
	if p.Suffix != "" {
		blocks = append(blocks, wireBlock{Type: "text", Text: p.Suffix})
	}
	return messageParams{Model: c.model, MaxTokens: maxTokens, Stream: stream,
		Messages: []wireMessage{{Role: "user", Content: blocks}}}, nil
}

// Complete sends p to POST /v1/messages as a stream. p.Started is called
// when message_start arrives: from then on the prefix is in Anthropic's
// cache. On error the returned Completion still carries the usage seen so
// far (tokens are billed once the answer started). An empty answer is
// returned as empty text, not as an error.
func (c *Client) Complete(ctx context.Context, p driver.Prompt) (driver.Completion, error) {
	start := time.Now()
	out := driver.Completion{Usage: driver.Usage{Time: start, Provider: ProviderName, Model: c.model,
		Operation: "context", DocID: p.DocID}}
	params, err := c.params(p, c.ttl, true)
	if err != nil {
		return out, err
	}
	body, err := apiclient.Marshal(params)
	if err != nil {
		return out, fmt.Errorf("anthropic: messages: encode request: %w", err)
	}
	text, usage, err := c.stream(ctx, body, p.Started)
	out.Text = text
	if usage != nil {
		t := usage.tokens(c.ttl)
		c.fill(&out.Usage, t, false)
	}
	out.Usage.Latency = time.Since(start)
	if err != nil {
		out.Usage.Error = err.Error()
		return out, err
	}
	return out, nil
}

// fill copies token counts into u and prices them.
func (c *Client) fill(u *driver.Usage, t tokens, batch bool) {
	u.InputTokens, u.CacheWriteTokens, u.CacheReadTokens, u.OutputTokens = t.input, t.cacheWrite, t.cacheRead, t.output
	if c.hasPrice {
		u.CostUSD = c.price.cost(t, batch)
	}
}

// stream posts a streaming request and reads the SSE answer.
func (c *Client) stream(ctx context.Context, body []byte, started func()) (string, *wireUsage, error) {
	const op = "messages"
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(tctx, http.MethodPost, "/v1/messages", body)
	if err != nil {
		return "", nil, fmt.Errorf("anthropic: %s: %w", op, err)
	}
	req.Header.Set("accept", "text/event-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		return "", nil, c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	reqID := resp.Header.Get("request-id")
	if resp.StatusCode/100 != 2 {
		return "", nil, c.responseError(op, resp)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("content-type"))
	if mt == "application/json" {
		// A proxy that ignores "stream": a whole Message.
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return "", nil, c.transportError(ctx, op, err)
		}
		var m wireMessageResponse
		if err := json.Unmarshal(data, &m); err != nil || m.Type != "message" {
			return "", nil, c.streamError(op, reqID, "malformed or truncated message JSON (%d bytes)", len(data))
		}
		if started != nil {
			started()
		}
		return m.text(), m.Usage, nil
	}
	text, usage, err := c.readStream(ctx, resp.Body, reqID, started)
	if err == nil {
		// Read the end of the chunked body so the connection is reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	}
	return text, usage, err
}

// streamEvent is the union of the Messages streaming events' payloads.
type streamEvent struct {
	Type         string               `json:"type"`
	Message      *wireMessageResponse `json:"message"`
	ContentBlock *wireBlock           `json:"content_block"`
	Delta        *struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error *wireError `json:"error"`
}

func (c *Client) readStream(ctx context.Context, body io.Reader, reqID string, started func()) (string, *wireUsage, error) {
	const op = "messages"
	sr := apiclient.NewSSEReader(body, 0)
	var text strings.Builder
	var usage *wireUsage
	n := 0
	for {
		ev, err := sr.Next()
		if err != nil {
			switch {
			case errors.Is(err, io.EOF):
				return text.String(), usage, c.streamError(op, reqID, "stream ended after %d events without message_stop", n)
			case errors.Is(err, io.ErrUnexpectedEOF):
				return text.String(), usage, c.streamError(op, reqID, "stream cut off inside event %d", n+1)
			default:
				return text.String(), usage, c.transportError(ctx, op, err)
			}
		}
		n++
		var se streamEvent
		if err := json.Unmarshal(ev.Data, &se); err != nil {
			return text.String(), usage, c.streamError(op, reqID, "event %d (%s): malformed or truncated JSON: %v", n, ev.Name, err)
		}
		typ := se.Type
		if typ == "" {
			typ = ev.Name
		}
		switch typ {
		case "message_start":
			if se.Message == nil {
				return text.String(), usage, c.streamError(op, reqID, "message_start without message")
			}
			if usage == nil {
				usage = &wireUsage{}
			}
			usage.merge(se.Message.Usage)
			if started != nil {
				started()
				started = nil
			}
		case "content_block_start":
			if se.ContentBlock != nil && se.ContentBlock.Type == "text" {
				text.WriteString(se.ContentBlock.Text)
			}
		case "content_block_delta":
			if se.Delta != nil && se.Delta.Type == "text_delta" {
				text.WriteString(se.Delta.Text)
			}
		case "message_delta":
			if usage == nil {
				usage = &wireUsage{}
			}
			usage.merge(se.Usage)
		case "message_stop":
			return text.String(), usage, nil
		case "error":
			we := wireError{Type: "api_error", Message: "error event without error object"}
			if se.Error != nil {
				we = *se.Error
			}
			e := c.fromWire(op, 0, we, reqID)
			return text.String(), usage, e
		}
		// ping, content_block_stop and future event types need nothing.
	}
}
