package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/situate/situate/driver"
)

// CachedContext returns the context cached under key and whether there was one.
func (s *Store) CachedContext(ctx context.Context, key string) (driver.Context, bool, error) {
	var (
		c     driver.Context
		flags string
	)
	err := s.r.QueryRowContext(ctx, `SELECT text, source, flags FROM context_cache WHERE key = ?`, key).
		Scan(&c.Text, &c.Source, &flags)
	if errors.Is(err, sql.ErrNoRows) {
		return driver.Context{}, false, nil
	}
	if err != nil {
		return driver.Context{}, false, s.errorf(fmt.Sprintf("cached context %q", key), err)
	}
	if err := unmarshalList(flags, &c.Flags); err != nil {
		return driver.Context{}, false, s.errorf(fmt.Sprintf("cached context %q: flags", key), err)
	}
	return c, true, nil
}

// CacheContext stores c under key, replacing any previous entry.
func (s *Store) CacheContext(ctx context.Context, key string, c driver.Context) error {
	op := fmt.Sprintf("cache context %q", key)
	if key == "" {
		return s.errorf("cache context", fmt.Errorf("key is empty: %w", driver.ErrInvalid))
	}
	flags, err := marshalList(c.Flags)
	if err != nil {
		return s.errorf(op+": flags", err)
	}
	if _, err := s.stmts.cacheContext.ExecContext(ctx, key, c.Text, c.Source, flags, time.Now().UnixNano()); err != nil {
		return s.errorf(op, err)
	}
	return nil
}

// CachedVector returns the vector cached under key and whether there was one.
func (s *Store) CachedVector(ctx context.Context, key string) ([]float32, bool, error) {
	var (
		dim  int
		blob []byte
	)
	err := s.r.QueryRowContext(ctx, `SELECT dim, vec FROM vector_cache WHERE key = ?`, key).Scan(&dim, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.errorf(fmt.Sprintf("cached vector %q", key), err)
	}
	v, err := decodeVector(dim, blob)
	if err != nil {
		return nil, false, s.errorf(fmt.Sprintf("cached vector %q", key), err)
	}
	return v, true, nil
}

// CacheVector stores v under key as little-endian float32, replacing any
// previous entry.
func (s *Store) CacheVector(ctx context.Context, key string, v []float32) error {
	if key == "" {
		return s.errorf("cache vector", fmt.Errorf("key is empty: %w", driver.ErrInvalid))
	}
	if len(v) == 0 {
		return s.errorf(fmt.Sprintf("cache vector %q", key), fmt.Errorf("vector is empty: %w", driver.ErrInvalid))
	}
	if _, err := s.stmts.cacheVector.ExecContext(ctx, key, len(v), encodeVector(v)); err != nil {
		return s.errorf(fmt.Sprintf("cache vector %q", key), err)
	}
	return nil
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(dim int, b []byte) ([]float32, error) {
	if dim <= 0 || len(b) != 4*dim {
		return nil, fmt.Errorf("blob of %d bytes does not hold %d float32", len(b), dim)
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
