//go:build ignore

// Package tidepool keeps a bounded pool of reusable buffers for the
// Tidepool telemetry collector, which gathers readings from tide gauges
// along the coast and forwards them in batches.
package tidepool

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// DefaultCapacity is the number of buffers a pool keeps when the
// configuration does not say.
const DefaultCapacity = 64

// Config is read from a "key=value" file, one setting per line.
type Config struct {
	// Capacity is the maximum number of idle buffers kept.
	Capacity int
	// BufferSize is the size of each buffer in bytes.
	BufferSize int
	// Station names the tide gauge whose readings the pool carries.
	Station string
}

// ErrEmptyStation is returned when a configuration names no station.
var ErrEmptyStation = errors.New("tidepool: station must not be empty")

// ParseConfig reads a configuration. Unknown keys are an error, so a typo
// never silently falls back to a default. A missing capacity means
// DefaultCapacity; a missing buffer size means 4096 bytes.
func ParseConfig(text string) (Config, error) {
	c := Config{Capacity: DefaultCapacity, BufferSize: 4096}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return Config{}, fmt.Errorf("tidepool config: line %d: want key=value", n+1)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "capacity", "buffer_size":
			v, err := strconv.Atoi(value)
			if err != nil || v <= 0 {
				return Config{}, fmt.Errorf("tidepool config: line %d: %s must be a positive integer", n+1, key)
			}
			if key == "capacity" {
				c.Capacity = v
			} else {
				c.BufferSize = v
			}
		case "station":
			c.Station = value
		default:
			return Config{}, fmt.Errorf("tidepool config: line %d: unknown key %q", n+1, key)
		}
	}
	if c.Station == "" {
		return Config{}, ErrEmptyStation
	}
	return c, nil
}

// Pool hands out buffers and takes them back. It is safe for concurrent
// use.
type Pool struct {
	mu   sync.Mutex
	free [][]byte
	cfg  Config
	// Misses counts Get calls that had to allocate.
	Misses int
}

// New returns an empty pool for cfg.
func New(cfg Config) *Pool {
	return &Pool{cfg: cfg, free: make([][]byte, 0, cfg.Capacity)}
}

// Get returns a buffer of the configured size, reusing an idle one when
// the pool has any.
func (p *Pool) Get() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b[:p.cfg.BufferSize]
	}
	p.Misses++
	return make([]byte, p.cfg.BufferSize)
}

// Put gives a buffer back. Buffers of the wrong size are dropped, and so
// are buffers beyond the pool's capacity, so the pool never grows past
// Capacity idle buffers.
func (p *Pool) Put(b []byte) {
	if cap(b) < p.cfg.BufferSize {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < p.cfg.Capacity {
		p.free = append(p.free, b)
	}
}
