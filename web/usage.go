package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// DefaultUsageDays and MaxUsageDays bound the period of the usage view.
const (
	DefaultUsageDays = 30
	MaxUsageDays     = 366
)

// ErrForbidden is what a usage function's error matches when the caller
// may not see its tenant's usage (answered 403).
var ErrForbidden = errors.New("web: forbidden")

// UsageDay is one day of provider usage, as the usage view charts it.
type UsageDay struct {
	// Date is the UTC day, YYYY-MM-DD (empty in a total).
	Date             string  `json:"date,omitempty"`
	Calls            int     `json:"calls"`
	Errors           int     `json:"errors"`
	InputTokens      int64   `json:"input_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// UsageReport is the body of the usage route: every day of the period in
// order, days without calls included, and their total.
type UsageReport struct {
	Since string     `json:"since"`
	Days  []UsageDay `json:"days"`
	Total UsageDay   `json:"total"`
}

// UsageHandler serves GET ?days=N (1 to MaxUsageDays, default
// DefaultUsageDays): the usage of the caller's tenant over the last N UTC
// days, today included. usage returns the days since a time that had calls
// (keyed by Date); an error matching ErrForbidden answers 403, any other 500.
// Mount it behind the server's authentication (situate serve: GET /v1/usage, described in httpapi/openapi.json).
func UsageHandler(usage func(r *http.Request, since time.Time) ([]UsageDay, error), log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		n := DefaultUsageDays
		for k := range r.URL.Query() {
			if k != "days" {
				writeError(w, http.StatusBadRequest, "bad_request", k, fmt.Sprintf("%.40s: unknown query parameter (want days)", k))
				return
			}
		}
		if v := r.URL.Query().Get("days"); v != "" {
			d, err := strconv.Atoi(v)
			if err != nil || d < 1 || d > MaxUsageDays {
				writeError(w, http.StatusBadRequest, "bad_request", "days", fmt.Sprintf("days: want an integer in [1, %d], got %.20q", MaxUsageDays, v))
				return
			}
			n = d
		}
		today := time.Now().UTC().Truncate(24 * time.Hour)
		since := today.AddDate(0, 0, -(n - 1))
		got, err := usage(r, since)
		if errors.Is(err, ErrForbidden) {
			writeError(w, http.StatusForbidden, "forbidden", "", "usage: only a tenant administrator sees the tenant's usage")
			return
		}
		if err != nil {
			log.Error("usage", "err", err)
			writeError(w, http.StatusInternalServerError, "internal", "", "usage: could not read the recorded usage")
			return
		}
		byDate := map[string]UsageDay{}
		for _, d := range got {
			byDate[d.Date] = d
		}
		rep := UsageReport{Since: since.Format(time.DateOnly), Days: make([]UsageDay, 0, n)}
		for day := since; !day.After(today); day = day.AddDate(0, 0, 1) {
			d := byDate[day.Format(time.DateOnly)]
			d.Date = day.Format(time.DateOnly)
			rep.Days = append(rep.Days, d)
			t := &rep.Total
			t.Calls += d.Calls
			t.Errors += d.Errors
			t.InputTokens += d.InputTokens
			t.CacheWriteTokens += d.CacheWriteTokens
			t.CacheReadTokens += d.CacheReadTokens
			t.OutputTokens += d.OutputTokens
			t.CostUSD += d.CostUSD
		}
		writeJSON(w, http.StatusOK, rep)
	})
}

// writeError answers in the API's error shape: {error: {code, message, field}}.
func writeError(w http.ResponseWriter, status int, code, field, msg string) {
	type body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field,omitempty"`
	}
	writeJSON(w, status, struct {
		Error body `json:"error"`
	}{body{code, msg, field}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
