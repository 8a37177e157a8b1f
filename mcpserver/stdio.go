package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLine bounds one line of the stdio transport (a JSON-RPC message).
const DefaultMaxLine = 4 << 20

// DefaultDrainTimeout bounds how long the stdio transport waits, at the end
// of its input, for the answers to the requests it has read.
const DefaultDrainTimeout = 2 * time.Minute

// StdioTransport is MCP's stdio transport (newline-delimited JSON-RPC) made
// robust to bad clients, where the SDK's IOTransport ends the session at the
// first bad line and drops the answers still in flight when its input ends:
//   - a line that is not JSON gets a parse error (-32700, id null), and one
//     that is JSON but not a JSON-RPC message gets an invalid-request error
//     (-32600, with its id when it has one); the server reads on;
//   - a line longer than MaxLine gets a parse error and is skipped;
//   - at the end of input every request read is answered before the session
//     ends, so `printf '...' | situate mcp` prints its replies.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLine bounds a line (0: DefaultMaxLine).
	MaxLine int
	// DrainTimeout bounds the wait for answers at the end of input
	// (0: DefaultDrainTimeout).
	DrainTimeout time.Duration
}

var _ mcp.Transport = (*StdioTransport)(nil)

// Connect starts reading the input.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.Writer, pending: map[any]int{}, msgs: make(chan readResult), closed: make(chan struct{}),
		maxLine: t.MaxLine, drain: t.DrainTimeout}
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLine
	}
	if c.drain <= 0 {
		c.drain = DefaultDrainTimeout
	}
	c.idle = sync.NewCond(&c.pendMu)
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10))
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is the connection of a StdioTransport.
type lineConn struct {
	w       io.Writer
	writeMu sync.Mutex
	maxLine int
	drain   time.Duration

	// pending counts the requests read and not yet answered, by id.
	pendMu  sync.Mutex
	pending map[any]int
	idle    *sync.Cond

	msgs      chan readResult
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case r := <-c.msgs:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcp stdio: encode: %w", err)
	}
	if err := c.writeLine(b); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		c.pendMu.Lock()
		if c.pending[resp.ID.Raw()]--; c.pending[resp.ID.Raw()] <= 0 {
			delete(c.pending, resp.ID.Raw())
		}
		c.idle.Broadcast()
		c.pendMu.Unlock()
	}
	return nil
}

func (c *lineConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("mcp stdio: write: %w", err)
	}
	return nil
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.pendMu.Lock()
		c.idle.Broadcast()
		c.pendMu.Unlock()
	})
	return nil
}

// readLoop reads lines until the input ends, then waits for the answers of
// the requests read, and reports the end.
func (c *lineConn) readLoop(in *bufio.Reader) {
	for {
		line, tooLong, err := readLine(in, c.maxLine)
		if tooLong {
			c.writeError(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: a line longer than %d bytes", c.maxLine))
		} else if len(bytes.TrimSpace(line)) > 0 {
			c.handleLine(bytes.TrimSpace(line))
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.send(readResult{err: fmt.Errorf("mcp stdio: read: %w", err)})
				return
			}
			c.waitAnswered()
			c.send(readResult{err: io.EOF})
			return
		}
	}
}

// readLine reads one line of at most max bytes; a longer one is read to
// its end and reported too long.
func readLine(in *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		part, err := in.ReadSlice('\n')
		if len(line)+len(part) > max {
			tooLong = true
		} else {
			line = append(line, part...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			line = nil
		}
		return line, tooLong, err
	}
}

func (c *lineConn) handleLine(line []byte) {
	if line[0] == '[' { // a batch: each message on its own
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			c.writeError(nil, jsonrpc.CodeParseError, "parse error: "+err.Error())
			return
		}
		if len(batch) == 0 {
			c.writeError(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")
		}
		for _, m := range batch {
			c.handleMessage(m)
		}
		return
	}
	c.handleMessage(line)
}

func (c *lineConn) handleMessage(raw []byte) {
	if !json.Valid(raw) {
		c.writeError(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
		return
	}
	// A request has a method; a response (to a call of the server's) a
	// result or an error. Anything else gets -32600, with its id when that
	// is a string or a number (null otherwise, as JSON-RPC says).
	var probe struct {
		ID     any             `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	isObject := json.Unmarshal(raw, &probe) == nil && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))
	switch probe.ID.(type) {
	case string, float64:
	default:
		probe.ID = nil
	}
	const want = `want a JSON-RPC 2.0 request: {"jsonrpc":"2.0","method":...,"id":...}`
	if !isObject || probe.Method == nil && probe.Result == nil && probe.Error == nil {
		c.writeError(probe.ID, jsonrpc.CodeInvalidRequest, "invalid request: "+want)
		return
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		c.writeError(probe.ID, jsonrpc.CodeInvalidRequest, "invalid request: "+want)
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.pendMu.Lock()
		c.pending[req.ID.Raw()]++
		c.pendMu.Unlock()
	}
	c.send(readResult{msg: msg})
}

func (c *lineConn) send(r readResult) {
	select {
	case c.msgs <- r:
	case <-c.closed:
	}
}

// waitAnswered waits until every request read is answered, the connection
// closes, or the drain timeout passes.
func (c *lineConn) waitAnswered() {
	timer := time.AfterFunc(c.drain, func() {
		c.pendMu.Lock()
		c.pending = map[any]int{}
		c.idle.Broadcast()
		c.pendMu.Unlock()
	})
	defer timer.Stop()
	c.pendMu.Lock()
	defer c.pendMu.Unlock()
	for len(c.pending) > 0 {
		select {
		case <-c.closed:
			return
		default:
		}
		c.idle.Wait()
	}
}

// writeError answers a line the server could not take with a JSON-RPC
// error (id null when the line has none).
func (c *lineConn) writeError(id any, code int64, msg string) {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err == nil {
		_ = c.writeLine(b)
	}
}
