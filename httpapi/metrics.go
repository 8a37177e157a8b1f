package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"

	dto "github.com/prometheus/client_model/go"

	"github.com/situate/situate"
)

// metrics are the server's Prometheus metrics. Every series about a
// tenant's data carries a tenant label; /metrics shows a tenant's
// administrator only its own tenant's series (and the unlabelled ones), and
// other keys nothing, since counts would reveal documents they may not read.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.HistogramVec
	jobs     *prometheus.CounterVec
	calls    *prometheus.CounterVec
	tokens   *prometheus.CounterVec
	spend    *prometheus.CounterVec
}

func newMetrics(s *Server, reg *prometheus.Registry) (*metrics, error) {
	m := &metrics{
		reg: reg,
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "situate_http_request_duration_seconds",
			Help:    "HTTP request latency by route, status and tenant (\"\" before the key is known).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route", "status", "tenant"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "situate_jobs_finished_total", Help: "Indexing jobs finished, by final state.",
		}, []string{"tenant", "state"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "situate_llm_calls_total", Help: "LLM call events by kind (start, done, retry, fail, fallback).",
		}, []string{"tenant", "kind"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "situate_llm_tokens_total", Help: "LLM tokens by kind (input, cache_read, cache_write, output).",
		}, []string{"tenant", "kind"}),
		spend: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "situate_llm_spend_usd_total", Help: "LLM spend in US dollars, from the configured price table.",
		}, []string{"tenant"}),
	}
	waiting := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "situate_search_queue_waiting", Help: "Searches waiting for their turn (Limits.MaxSearches run at once).",
	}, func() float64 { return float64(s.search.waiting.Load()) })
	rejected := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "situate_search_queue_rejected_total", Help: "Searches answered 503 overloaded: they waited longer than the search queue timeout.",
	}, func() float64 { return float64(s.search.rejected.Load()) })
	for _, c := range []prometheus.Collector{m.requests, m.jobs, m.calls, m.tokens, m.spend, waiting, rejected, &stateCollector{s: s}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	// The process and Go runtime collectors may already be registered by
	// the caller's registry.
	reg.Register(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)))
	reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m, nil
}

func (m *metrics) observeCall(tenant string, ev situate.CallEvent) {
	m.calls.WithLabelValues(tenant, ev.Kind).Inc()
	u := ev.Usage
	for kind, n := range map[string]int{"input": u.InputTokens, "cache_read": u.CacheReadTokens,
		"cache_write": u.CacheWriteTokens, "output": u.OutputTokens} {
		if n > 0 {
			m.tokens.WithLabelValues(tenant, kind).Add(float64(n))
		}
	}
	if u.CostUSD > 0 {
		m.spend.WithLabelValues(tenant).Add(u.CostUSD)
	}
}

var (
	descDocs   = prometheus.NewDesc("situate_index_documents", "Documents indexed.", []string{"tenant"}, nil)
	descChunks = prometheus.NewDesc("situate_index_chunks", "Chunks indexed.", []string{"tenant"}, nil)
	descTerms  = prometheus.NewDesc("situate_index_terms", "Unique terms in the BM25 language arm.", []string{"tenant"}, nil)
	descQueue  = prometheus.NewDesc("situate_jobs", "Jobs by state (queued is the queue depth).", []string{"tenant", "state"}, nil)
	descShare  = prometheus.NewDesc("situate_llm_cache_read_share", "Share of LLM input tokens read from the provider's prompt cache since start.", []string{"tenant"}, nil)
)

// stateCollector reads index sizes and queue depths at scrape time.
type stateCollector struct{ s *Server }

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descDocs, descChunks, descTerms, descQueue, descShare} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, t := range c.s.openTenants() {
		docs := t.Engine.Documents()
		chunks := 0
		for _, d := range docs {
			chunks += d.Chunks
		}
		ch <- prometheus.MustNewConstMetric(descDocs, prometheus.GaugeValue, float64(len(docs)), t.name)
		ch <- prometheus.MustNewConstMetric(descChunks, prometheus.GaugeValue, float64(chunks), t.name)
		ch <- prometheus.MustNewConstMetric(descTerms, prometheus.GaugeValue, float64(t.Engine.IndexStats().Terms), t.name)
		if t.Jobs != nil {
			if counts, err := t.Jobs.JobCounts(ctx); err == nil {
				for _, st := range []string{situate.JobQueued, situate.JobRunning, situate.JobDone, situate.JobFailed} {
					ch <- prometheus.MustNewConstMetric(descQueue, prometheus.GaugeValue, float64(counts[st]), t.name, st)
				}
			}
		}
		var read, total float64
		for _, kind := range []string{"input", "cache_read", "cache_write"} {
			var m dto.Metric
			if err := c.s.metrics.tokens.WithLabelValues(t.name, kind).Write(&m); err == nil {
				total += m.GetCounter().GetValue()
				if kind == "cache_read" {
					read = m.GetCounter().GetValue()
				}
			}
		}
		share := 0.0
		if total > 0 {
			share = read / total
		}
		ch <- prometheus.MustNewConstMetric(descShare, prometheus.GaugeValue, share, t.name)
	}
}

// handleMetrics serves the Prometheus text format: everything without keys
// (the local tenant) and to a server key (NewServerKey); a tenant's own
// series, and no process-wide one, to its administrator; nothing to other
// keys.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request, c *Caller) *apiError {
	if !c.Admin {
		return &apiError{status: http.StatusForbidden, code: "forbidden", msg: "metrics need a tenant administrator key or a server key"}
	}
	all := s.opts.Keys == nil || c.Server
	families, err := s.metrics.reg.Gather()
	if err != nil {
		return internalError(err)
	}
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	w.Header().Set("Content-Type", string(format))
	enc := expfmt.NewEncoder(w, format)
	for _, f := range families {
		kept := f.Metric[:0:0]
		for _, m := range f.Metric {
			if all || metricTenant(m) == c.Tenant {
				kept = append(kept, m)
			}
		}
		if len(kept) == 0 {
			continue
		}
		f.Metric = kept
		if err := enc.Encode(f); err != nil {
			return nil // the client went away
		}
	}
	return nil
}

func metricTenant(m *dto.Metric) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == "tenant" {
			return l.GetValue()
		}
	}
	return ""
}
