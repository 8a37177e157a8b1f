package apiclient

import (
	"context"
	"fmt"
	"time"

	"github.com/situate/situate/driver"
)

// Record sends u to rec, if rec is set, after filling in its Latency (from
// u.Time) and its Error (err's text with credentials removed, if err is
// not nil). The recorder runs
// even if ctx has ended, so a canceled call is still counted. A
// recorder's error names the provider and operation.
func Record(ctx context.Context, rec driver.UsageRecorder, u driver.Usage, err error) error {
	if rec == nil {
		return nil
	}
	u.Latency = time.Since(u.Time)
	if err != nil {
		u.Error = Redact(err.Error())
	}
	if rerr := rec.RecordUsage(context.WithoutCancel(ctx), u); rerr != nil {
		return fmt.Errorf("%s: record usage of %s: %w", u.Provider, u.Operation, rerr)
	}
	return nil
}
