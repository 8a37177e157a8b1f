package httpapi_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/situate/situate/httpapi"
)

// TestIsolation is a property test over random documents, access lists,
// metadata, callers and queries in two tenants: no search, fetch, listing,
// job status, status or metrics reply reveals a document its caller may not
// read, and a filtered search returns min(k, readable matches) results.
func TestIsolation(t *testing.T) {
	cases, perTenant := 3000, 50
	if testing.Short() {
		cases, perTenant = 300, 20
	}
	rng := rand.New(rand.NewPCG(11, 12))
	e := newEnv(t, envOptions{auth: true})
	words := strings.Fields("harbour tide ledger beacon granite orchard falcon copper lantern meadow quarry signal")
	principals := []string{"alice", "bob", "carol", "eng", "ops"}
	subset := func(p float64) []string {
		var out []string
		for _, x := range principals {
			if rng.Float64() < p {
				out = append(out, x)
			}
		}
		return out
	}
	type docInfo struct {
		tenant, id, marker string
		access             []string
		meta               map[string]string
		job                int64
	}
	type keyInfo struct {
		tenant, secret string
		principals     []string
		admin          bool
	}
	var (
		docs []docInfo
		keys []keyInfo
	)
	canRead := func(k keyInfo, d docInfo) bool {
		if k.tenant != d.tenant {
			return false
		}
		if k.admin || len(d.access) == 0 {
			return true
		}
		return slices.ContainsFunc(d.access, func(a string) bool { return slices.Contains(k.principals, a) })
	}
	for _, tenant := range []string{"t1", "t2"} {
		admin := keyInfo{tenant: tenant, secret: e.key(tenant, nil, true, false), admin: true}
		keys = append(keys, admin)
		for range 5 {
			p := subset(0.35)
			keys = append(keys, keyInfo{tenant: tenant, secret: e.key(tenant, p, false, false), principals: p})
		}
		for i := range perTenant {
			d := docInfo{tenant: tenant, id: fmt.Sprintf("d%02d/%s.md", i, words[rng.IntN(len(words))]),
				marker: fmt.Sprintf("zq%sx%dz", tenant, i), access: subset(0.3),
				meta: map[string]string{"year": strconv.Itoa(2015 + rng.IntN(11)), "team": []string{"a", "b", "c"}[rng.IntN(3)]}}
			if rng.IntN(5) == 0 {
				delete(d.meta, "team")
			}
			n := 5 + rng.IntN(20)
			if rng.IntN(8) == 0 {
				n = 700 // several chunks
			}
			var text strings.Builder
			text.WriteString(d.marker)
			for range n {
				text.WriteString(" " + words[rng.IntN(len(words))])
			}
			d.job = e.upsert(admin.secret, d.id, httpapi.DocumentRequest{Text: text.String(), Access: d.access, Metadata: d.meta})
			docs = append(docs, d)
		}
		for _, d := range docs {
			if d.tenant == tenant {
				e.wait(admin.secret, d.job)
			}
		}
	}
	byID := map[string][]docInfo{}
	for _, d := range docs {
		byID[d.id] = append(byID[d.id], d)
	}
	adminOf := map[string]keyInfo{}
	for _, k := range keys {
		if k.admin {
			adminOf[k.tenant] = k
		}
	}
	randomFilter := func() (*httpapi.Filter, func(map[string]string) bool) {
		switch rng.IntN(6) {
		case 0:
			return nil, func(map[string]string) bool { return true }
		case 1:
			team := []string{"a", "b", "c"}[rng.IntN(3)]
			return &httpapi.Filter{Metadata: map[string]httpapi.Condition{"team": {Eq: &team}}},
				func(m map[string]string) bool { return m["team"] == team }
		case 2:
			lo := 2015 + rng.IntN(11)
			return &httpapi.Filter{Metadata: map[string]httpapi.Condition{"year": {Gte: num(float64(lo)), Lt: num(float64(lo + 3))}}},
				func(m map[string]string) bool { y, _ := strconv.Atoi(m["year"]); return y >= lo && y < lo+3 }
		case 3:
			in := []string{"a", "c"}
			return &httpapi.Filter{Metadata: map[string]httpapi.Condition{"team": {In: in}}},
				func(m map[string]string) bool { v, ok := m["team"]; return ok && slices.Contains(in, v) }
		case 4:
			ne := "b"
			return &httpapi.Filter{Metadata: map[string]httpapi.Condition{"team": {Ne: &ne}}},
				func(m map[string]string) bool { return m["team"] != "b" }
		default:
			absent := false
			return &httpapi.Filter{Metadata: map[string]httpapi.Condition{"team": {Exists: &absent}}},
				func(m map[string]string) bool { _, ok := m["team"]; return !ok }
		}
	}
	leaks := func(k keyInfo, body []byte, what string) {
		t.Helper()
		for _, d := range docs {
			if !canRead(k, d) && strings.Contains(string(body), d.marker) {
				t.Fatalf("%s as %+v reveals %s (%s): %s", what, k, d.id, d.tenant, truncate(body))
			}
		}
	}
	var searches, fetches, jobs, filtered int
	for i := range cases {
		k := keys[rng.IntN(len(keys))]
		switch i % 4 {
		case 0, 1: // search, checked against the administrator's unfiltered ranking
			q := words[rng.IntN(len(words))]
			if rng.IntN(2) == 0 {
				q += " " + words[rng.IntN(len(words))]
			}
			kk := 1 + rng.IntN(20)
			f, match := randomFilter()
			r := e.do(call{method: "POST", path: "/v1/search", key: k.secret, body: httpapi.SearchRequest{Query: q, K: kk, Filters: f}})
			if r.status != 200 {
				t.Fatalf("search: %d %s", r.status, r.body)
			}
			leaks(k, r.body, "search")
			var got httpapi.SearchResponse
			r.json(t, &got)
			all := e.search(adminOf[k.tenant].secret, httpapi.SearchRequest{Query: q, K: 100})
			readable := 0
			for _, res := range all.Results {
				for _, d := range byID[res.Doc] {
					if d.tenant == k.tenant && canRead(k, d) && match(d.meta) {
						readable++
					}
				}
			}
			if len(got.Results) != min(kk, readable) {
				t.Fatalf("search %q k=%d filter %+v as %+v: %d results, want min(k, %d readable matches)", q, kk, f, k, len(got.Results), readable)
			}
			for _, res := range got.Results {
				ok := false
				for _, d := range byID[res.Doc] {
					ok = ok || d.tenant == k.tenant && canRead(k, d) && match(d.meta)
				}
				if !ok {
					t.Fatalf("search as %+v returned %s, which it may not read or the filter excludes", k, res.Doc)
				}
			}
			searches++
			if f != nil {
				filtered++
			}
		case 2: // fetch any document of either tenant, and a made-up one
			d := docs[rng.IntN(len(docs))]
			r := e.do(call{method: "GET", path: "/v1/documents/" + d.id + "?chunks=true", key: k.secret})
			leaks(k, r.body, "fetch")
			readable := slices.ContainsFunc(byID[d.id], func(x docInfo) bool { return canRead(k, x) })
			if readable != (r.status == 200) {
				t.Fatalf("fetch %s (%s) as %+v: %d", d.id, d.tenant, k, r.status)
			}
			if !readable {
				missing := e.do(call{method: "GET", path: "/v1/documents/no-such/" + d.id + "?chunks=true", key: k.secret})
				if missing.status != r.status || withoutRequestID(missing.body) != withoutRequestID(r.body) {
					t.Fatalf("unreadable %s and a missing id differ: %s vs %s", d.id, r.body, missing.body)
				}
			}
			fetches++
		case 3: // job status by id, in the caller's tenant's numbering
			id := 1 + rng.IntN(55)
			r := e.do(call{method: "GET", path: "/v1/jobs/" + strconv.Itoa(id), key: k.secret})
			leaks(k, r.body, "job")
			if r.status == 200 {
				var j httpapi.JobView
				r.json(t, &j)
				if !slices.ContainsFunc(byID[j.Document], func(x docInfo) bool { return canRead(k, x) }) {
					t.Fatalf("job %d of %s shown to %+v", id, j.Document, k)
				}
			} else if r.status != 404 {
				t.Fatalf("job %d: %d", id, r.status)
			}
			jobs++
		}
	}
	// Listings, status and metrics, once per key.
	for _, k := range keys {
		want := 0
		for _, d := range docs {
			if canRead(k, d) {
				want++
			}
		}
		r := e.do(call{method: "GET", path: "/v1/documents?limit=1000", key: k.secret})
		leaks(k, r.body, "list")
		var l httpapi.DocumentList
		r.json(t, &l)
		if len(l.Documents) != want {
			t.Errorf("list as %+v: %d documents, want %d", k, len(l.Documents), want)
		}
		var st httpapi.Status
		e.do(call{method: "GET", path: "/v1/status", key: k.secret}).json(t, &st)
		if st.Documents != want {
			t.Errorf("status as %+v: %d documents, want %d", k, st.Documents, want)
		}
		m := e.do(call{method: "GET", path: "/metrics", key: k.secret})
		switch {
		case !k.admin && m.status != http.StatusForbidden:
			t.Errorf("metrics as reader %+v: %d", k, m.status)
		case k.admin && (m.status != 200 || strings.Contains(string(m.body), `tenant="`+other(k.tenant)+`"`) ||
			!strings.Contains(string(m.body), `situate_index_documents{tenant="`+k.tenant+`"} `+strconv.Itoa(perTenant))):
			t.Errorf("metrics as admin of %s: %d, shows the other tenant or lacks its own", k.tenant, m.status)
		}
	}
	t.Logf("%d searches (%d filtered), %d fetches, %d job lookups, %d keys; %d requests validated against openapi.json",
		searches, filtered, fetches, jobs, len(keys), e.validatedReq)
}

func other(tenant string) string {
	if tenant == "t1" {
		return "t2"
	}
	return "t1"
}

func withoutRequestID(b []byte) string {
	s := string(b)
	if i := strings.Index(s, `"request_id"`); i >= 0 {
		return s[:i]
	}
	return s
}
