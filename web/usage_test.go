package web_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/web"
)

func TestUsageHandler(t *testing.T) {
	today := time.Now().UTC().Truncate(24 * time.Hour)
	var gotSince time.Time
	h := web.UsageHandler(func(r *http.Request, since time.Time) ([]web.UsageDay, error) {
		gotSince = since
		if r.Header.Get("X-Test") == "forbidden" {
			return nil, web.ErrForbidden
		}
		if r.Header.Get("X-Test") == "broken" {
			return nil, errors.New("disk on fire")
		}
		return []web.UsageDay{
			{Date: today.AddDate(0, 0, -2).Format(time.DateOnly), Calls: 2, InputTokens: 10, CacheReadTokens: 90, CostUSD: 0.5},
			{Date: today.Format(time.DateOnly), Calls: 1, OutputTokens: 4, CostUSD: 0.25},
		}, nil
	}, nil)
	do := func(query, header string) (*httptest.ResponseRecorder, web.UsageReport) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/v1/usage"+query, nil)
		req.Header.Set("X-Test", header)
		h.ServeHTTP(rec, req)
		var rep web.UsageReport
		json.Unmarshal(rec.Body.Bytes(), &rep)
		return rec, rep
	}
	rec, rep := do("?days=7", "")
	if rec.Code != http.StatusOK || len(rep.Days) != 7 || !gotSince.Equal(today.AddDate(0, 0, -6)) {
		t.Fatalf("days=7: %d, %d days since %v: %s", rec.Code, len(rep.Days), gotSince, rec.Body)
	}
	if rep.Days[6].Date != today.Format(time.DateOnly) || rep.Days[6].Calls != 1 || rep.Days[4].Calls != 2 || rep.Days[5].Calls != 0 {
		t.Errorf("days: %+v", rep.Days)
	}
	if rep.Total.Calls != 3 || rep.Total.InputTokens != 10 || rep.Total.CacheReadTokens != 90 || rep.Total.OutputTokens != 4 || rep.Total.CostUSD != 0.75 {
		t.Errorf("total: %+v", rep.Total)
	}
	if rec, rep := do("", ""); rec.Code != http.StatusOK || len(rep.Days) != web.DefaultUsageDays {
		t.Errorf("default: %d, %d days", rec.Code, len(rep.Days))
	}
	for _, c := range []struct {
		query, header string
		status        int
		want          string
	}{
		{"?days=0", "", 400, `"field":"days"`},
		{"?days=367", "", 400, `"field":"days"`},
		{"?days=x", "", 400, `"field":"days"`},
		{"?since=1", "", 400, `"field":"since"`},
		{"", "forbidden", 403, `"code":"forbidden"`},
		{"", "broken", 500, `"code":"internal"`},
	} {
		rec, _ := do(c.query, c.header)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.want) || strings.Contains(rec.Body.String(), "disk on fire") {
			t.Errorf("%s %s: %d %s, want %d with %s", c.query, c.header, rec.Code, rec.Body, c.status, c.want)
		}
	}
}
