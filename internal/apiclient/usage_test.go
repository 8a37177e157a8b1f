package apiclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/situate/situate/driver"
)

type recorder struct {
	got []driver.Usage
	ctx []error
	err error
}

func (r *recorder) RecordUsage(ctx context.Context, u driver.Usage) error {
	r.got = append(r.got, u)
	r.ctx = append(r.ctx, ctx.Err())
	return r.err
}

func TestRecord(t *testing.T) {
	if err := Record(context.Background(), nil, driver.Usage{}, nil); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now().Add(-time.Second)
	u := driver.Usage{Time: start, Provider: "voyage", Model: "m", Operation: "embed", InputTokens: 7}
	if err := Record(ctx, rec, u, errors.New("boom")); err != nil {
		t.Fatal(err)
	}
	g := rec.got[0]
	if g.Latency < time.Second || g.Error != "boom" || g.InputTokens != 7 || g.Provider != "voyage" || rec.ctx[0] != nil {
		t.Errorf("recorded %+v, recorder's ctx.Err() %v", g, rec.ctx[0])
	}
	rec.err = errors.New("disk full")
	err := Record(context.Background(), rec, u, nil)
	if err == nil || err.Error() != "voyage: record usage of embed: disk full" || !errors.Is(err, rec.err) {
		t.Errorf("recorder error: %v", err)
	}
	if rec.got[1].Error != "" {
		t.Errorf("success recorded with Error %q", rec.got[1].Error)
	}
}
