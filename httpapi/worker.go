package httpapi

import (
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// work runs a tenant's jobs until the server closes: the library's
// JobRunner, with the server's metrics and document locks.
func (s *Server) work(t *tenantState) {
	defer s.workers.Done()
	r := &situate.JobRunner{
		Engine: t.Engine, Jobs: t.Jobs, Lease: s.opts.JobLease, MaxAttempts: s.opts.MaxAttempts,
		Lock:    t.lockDoc,
		Observe: func(ev situate.CallEvent) { s.metrics.observeCall(t.name, ev) },
		Finished: func(j driver.Job, _ time.Duration) {
			s.metrics.jobs.WithLabelValues(t.name, j.State).Inc()
		},
		Wake:   t.wake,
		Logger: s.log.With("tenant", t.name),
	}
	if s.opts.Parse != nil {
		r.Parse = s.opts.Parse
	}
	r.Run(s.workCtx)
}
