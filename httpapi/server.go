package httpapi

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/situate/situate/driver"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/situate/situate"
)

// Defaults for Limits.
const (
	DefaultMaxBodyBytes   = 1 << 20  // a JSON request
	DefaultMaxUploadBytes = 32 << 20 // a multipart file upload
	DefaultMaxQueryBytes  = 4096
	DefaultMaxK           = 100
	DefaultMaxListLimit   = 1000
	DefaultListLimit      = 100
	DefaultRequestTimeout = 30 * time.Second
	DefaultWorkers        = 2
	// NoWorkers as Options.Workers runs no job in the server: other
	// processes (situate worker) run the jobs of a shared store.
	NoWorkers = -1
	// DefaultJobLease is how long a claimed job stays claimed without news
	// from its worker; a worker renews it while it runs.
	DefaultJobLease = situate.DefaultJobLease
	// DefaultMaxAttempts is how often a job is tried before it fails.
	DefaultMaxAttempts = situate.DefaultMaxAttempts
	// DefaultSyncInterval is how often a tenant over a shared store
	// (situate.Options.SharedStore) brings its indexes up to the store.
	DefaultSyncInterval = 2 * time.Second
	// LocalTenant is the tenant a server without keys serves.
	LocalTenant = "local"
)

// Limits bound what one request may ask for.
type Limits struct {
	MaxBodyBytes   int64
	MaxUploadBytes int64
	MaxQueryBytes  int
	MaxK           int
	MaxListLimit   int
	RequestTimeout time.Duration
	// RatePerSecond and Burst limit each key's requests (a token bucket);
	// 0 disables the limit.
	RatePerSecond float64
	Burst         int
	// MaxSearches is how many lexical searches run at once; the others
	// wait in arrival order (see admission.go). 0 means GOMAXPROCS,
	// UnlimitedSearches no limit.
	MaxSearches int
	// SearchQueueTimeout is how long a search waits for its turn before it
	// is answered 503 overloaded; 0 means DefaultSearchQueueTimeout.
	SearchQueueTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxUploadBytes <= 0 {
		l.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if l.MaxQueryBytes <= 0 {
		l.MaxQueryBytes = DefaultMaxQueryBytes
	}
	if l.MaxK <= 0 {
		l.MaxK = DefaultMaxK
	}
	if l.MaxListLimit <= 0 {
		l.MaxListLimit = DefaultMaxListLimit
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = DefaultRequestTimeout
	}
	if l.SearchQueueTimeout <= 0 {
		l.SearchQueueTimeout = DefaultSearchQueueTimeout
	}
	if l.RatePerSecond > 0 && l.Burst <= 0 {
		l.Burst = max(1, int(l.RatePerSecond))
	}
	return l
}

// Tenant is one tenant's engine and durable state. Tenants are isolated by
// construction: each has its own store, indexes and caches.
type Tenant struct {
	Engine *situate.Engine
	// Jobs keeps the tenant's uploaded sources and its job queue.
	Jobs driver.JobStore
	// Close releases the engine and the store; it may be nil.
	Close func() error
}

// Parser turns an uploaded source into a document (any ingest format).
type Parser func(ctx context.Context, src driver.Upload) (situate.Document, error)

// Mount is a handler served under a path of the server.
type Mount struct {
	// Pattern is an http.ServeMux pattern ("/mcp", "GET /{path...}").
	Pattern string
	Handler http.Handler
	// Public mounts skip authentication (a web page's static assets); the
	// others see the authenticated caller through CallerFrom.
	Public bool
}

// Options configure a Server.
type Options struct {
	// OpenTenant opens a tenant's engine and store; the server calls it at
	// most once per tenant name and closes what it returns on Close.
	OpenTenant func(ctx context.Context, name string) (*Tenant, error)
	// Tenants are opened when the server starts, so that their queued jobs
	// run without waiting for a request.
	Tenants []string
	// Keys authenticates requests. Nil serves LocalTenant to everyone,
	// unauthenticated, as its administrator: only for a loopback address.
	Keys driver.KeyStore
	// Parse turns uploaded sources into documents; nil accepts JSON text
	// only (no file uploads).
	Parse  Parser
	Limits Limits
	// Workers is how many jobs of each tenant run at once (0:
	// DefaultWorkers, NoWorkers: none).
	Workers int
	// JobLease and MaxAttempts tune the job queue (0: defaults).
	JobLease    time.Duration
	MaxAttempts int
	// SyncInterval is how often a tenant whose engine is over a shared
	// store syncs its indexes with the store (what other servers and
	// workers committed); 0: DefaultSyncInterval.
	SyncInterval time.Duration
	Mounts       []Mount
	Logger       *slog.Logger
	// Registry receives the server's metrics; nil makes a new one.
	Registry *prometheus.Registry
}

// Server is the HTTP service. Create it with New, serve Handler, and Close
// it after the http.Server has shut down.
type Server struct {
	opts    Options
	limits  Limits
	log     *slog.Logger
	handler http.Handler
	metrics *metrics
	rates   *rateLimiter
	search  *admission
	keys    keyCache

	mu      sync.Mutex
	tenants map[string]*tenantState
	closed  bool

	workCtx  context.Context
	stopWork context.CancelFunc
	workers  sync.WaitGroup
	ready    bool
}

// New builds a server and opens Options.Tenants (LocalTenant without keys),
// whose queued jobs start running at once.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.OpenTenant == nil {
		return nil, fmt.Errorf("httpapi: Options.OpenTenant: must be set: %w", situate.ErrInvalid)
	}
	switch {
	case opts.Workers == NoWorkers:
		opts.Workers = 0
	case opts.Workers <= 0:
		opts.Workers = DefaultWorkers
	}
	if opts.JobLease <= 0 {
		opts.JobLease = DefaultJobLease
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.SyncInterval <= 0 {
		opts.SyncInterval = DefaultSyncInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	s := &Server{opts: opts, limits: opts.Limits.withDefaults(), log: opts.Logger, tenants: map[string]*tenantState{}}
	s.workCtx, s.stopWork = context.WithCancel(context.Background())
	s.rates = newRateLimiter(s.limits.RatePerSecond, s.limits.Burst)
	s.search = newAdmission(maxSearches(s.limits.MaxSearches), s.limits.SearchQueueTimeout)
	var err error
	if s.metrics, err = newMetrics(s, opts.Registry); err != nil {
		return nil, err
	}
	names := opts.Tenants
	if opts.Keys == nil {
		names = []string{LocalTenant}
	}
	for _, n := range names {
		t, err := s.tenant(ctx, n)
		if err != nil {
			s.Close()
			return nil, err
		}
		if !t.Engine.Options().SharedStore {
			// Before the server reports ready, so that a load balancer
			// sends it searches only once they are fast.
			s.warm(ctx, t)
		}
	}
	s.handler = s.routes()
	s.mu.Lock()
	s.ready = true
	s.mu.Unlock()
	return s, nil
}

// Handler serves every route.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the job workers (a running job is put back in the queue and
// resumes on the next start, its finished LLM calls cached) and closes
// every tenant. Shut the http.Server down first so in-flight requests
// finish.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed, s.ready = true, false
	s.mu.Unlock()
	s.stopWork()
	s.workers.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for _, t := range s.tenants {
		if t.Close != nil {
			err = errors.Join(err, t.Close())
		}
	}
	s.tenants = map[string]*tenantState{}
	return err
}

var tenantName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// ValidTenant reports whether name can name a tenant (it names a directory).
func ValidTenant(name string) error {
	if !tenantName.MatchString(name) {
		return fmt.Errorf("tenant %q: must be 1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit: %w", name, situate.ErrInvalid)
	}
	return nil
}

// tenant returns the open tenant name, opening it (and starting its
// workers) on first use.
func (s *Server) tenant(ctx context.Context, name string) (*tenantState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errShuttingDown
	}
	if t, ok := s.tenants[name]; ok {
		return t, nil
	}
	if err := ValidTenant(name); err != nil {
		return nil, err
	}
	t, err := s.opts.OpenTenant(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("open tenant %s: %w", name, err)
	}
	if t == nil || t.Engine == nil {
		return nil, fmt.Errorf("open tenant %s: no engine", name)
	}
	ts := &tenantState{Tenant: *t, name: name, wake: make(chan struct{}, 1)}
	if err := s.startTenant(ctx, ts); err != nil {
		if ts.Close != nil {
			ts.Close()
		}
		return nil, err
	}
	s.tenants[name] = ts
	if s.ready || ts.Engine.Options().SharedStore {
		// A tenant opened by a request, or on a shared store (reading it
		// over the network takes longer): warmed while it serves.
		s.workers.Add(1)
		go func() {
			defer s.workers.Done()
			s.warm(s.workCtx, ts)
		}()
	}
	return ts, nil
}

// warm readies a tenant's indexes (Engine.WarmIndexes) and fills its chunk
// cache from its store (Engine.WarmChunkCache).
func (s *Server) warm(ctx context.Context, t *tenantState) {
	start := time.Now()
	switch err := t.Engine.WarmIndexes(); {
	case err != nil && ctx.Err() == nil:
		s.log.Warn("warming the indexes failed; the first searches and write do that work", "tenant", t.name, "err", err)
	case err == nil:
		s.log.Info("warmed the indexes", "tenant", t.name, "took", time.Since(start).Round(time.Millisecond).String())
	}
	start = time.Now()
	n, err := t.Engine.WarmChunkCache(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.Warn("warming the chunk cache failed; hits are read from the store", "tenant", t.name, "err", err)
	case n > 0:
		s.log.Info("warmed the chunk cache", "tenant", t.name, "chunks", n, "took", time.Since(start).Round(time.Millisecond).String())
	}
}

// startTenant requeues a tenant's interrupted and stale jobs and starts its
// workers.
func (s *Server) startTenant(ctx context.Context, ts *tenantState) error {
	name := ts.name
	if ts.Jobs != nil {
		// A store this server owns alone: every running job is one its
		// previous run left, requeued at once. A shared store's running
		// jobs may be other servers' or workers': they are claimed again
		// only when their lease runs out.
		if !ts.Engine.Options().SharedStore {
			if n, err := ts.Jobs.RequeueJobs(ctx); err != nil {
				return fmt.Errorf("open tenant %s: %w", name, err)
			} else if n > 0 {
				s.log.Info("requeued interrupted jobs", "tenant", name, "jobs", n)
			}
		}
		// Documents indexed with other settings (a changed prompt, model or
		// chunking) are re-situated from their stored uploads.
		requeued := 0
		for _, rec := range ts.Engine.Stale() {
			if _, err := ts.Jobs.Upload(ctx, rec.ID); err != nil {
				continue // not uploaded through the API: nothing to re-read
			}
			if _, ok, err := ts.Jobs.EnqueueJob(ctx, rec.ID, rec.Access); err != nil {
				return fmt.Errorf("open tenant %s: %w", name, err)
			} else if ok {
				requeued++
			}
		}
		if requeued > 0 {
			s.log.Info("re-situating documents indexed with other settings", "tenant", name, "documents", requeued)
		}
		for range s.opts.Workers {
			s.workers.Add(1)
			go s.work(ts)
		}
	}
	if ts.Engine.Options().SharedStore {
		s.workers.Add(1)
		go s.sync(ts)
	}
	return nil
}

// sync keeps a tenant's indexes up to a shared store until the server
// closes.
func (s *Server) sync(t *tenantState) {
	defer s.workers.Done()
	tick := time.NewTicker(s.opts.SyncInterval)
	defer tick.Stop()
	for {
		select {
		case <-s.workCtx.Done():
			return
		case <-tick.C:
		}
		res, err := t.Engine.Sync(s.workCtx)
		switch {
		case err != nil && s.workCtx.Err() == nil:
			s.log.Error("sync indexes with the shared store", "tenant", t.name, "err", err)
		case res.Indexed+res.Removed > 0:
			s.log.Info("synced indexes with the shared store", "tenant", t.name, "indexed", res.Indexed, "removed", res.Removed)
		}
	}
}

// openTenants lists the open tenants.
func (s *Server) openTenants() []*tenantState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*tenantState, 0, len(s.tenants))
	for _, t := range s.tenants {
		out = append(out, t)
	}
	return out
}

func (s *Server) isReady() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready
}

var errShuttingDown = errors.New("httpapi: server is shutting down")

// tenantState is an open tenant with what the server keeps for it.
type tenantState struct {
	Tenant
	name string
	// wake nudges the tenant's workers when a job is queued.
	wake chan struct{}
	// docLocks serialize a document's commit against its deletion.
	docLocks sync.Map // doc id -> *sync.Mutex
}

func (t *tenantState) lockDoc(id string) func() {
	m, _ := t.docLocks.LoadOrStore(id, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func (t *tenantState) notify() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}
