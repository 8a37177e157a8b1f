package weaviate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/situate/situate/driver"
)

// EnvHint is what a Weaviate server needs for exact BM25 top-k lists
// (see checkBM25).
const EnvHint = "USE_BLOCKMAX_WAND=false"

// errNoProbe says checkBM25 could not write its probe (a read-only key).
var errNoProbe = errors.New("weaviate: bm25 check: no permission to write the probe")

// probeCommon is the number of probe objects that hold only the common
// term: more than the 11 a limit-1 query keeps in BlockMax WAND's heap.
const probeCommon = 24

// probeTries and probePause bound how long checkBM25 waits for a lagging
// replica (about 5 s) before it calls a wrong answer the server's fault.
const (
	probeTries = 17
	probePause = 300 * time.Millisecond
)

// checkBM25 makes sure the server's BM25 returns the true top of a
// ranking. Weaviate v1.35.2's BlockMax WAND, its default BM25, gives the
// terms of objects still in the memtable (every recent write, until a flush)
// an upper bound of zero once it has set the query's idf, so as soon as the
// first limit+10 matching objects (in the order they were written) fill its
// heap it stops scoring the rest: a limited BM25 query misses its best
// matches (upstream weaviate/weaviate#11780; flushed segments have their
// own pruning faults, #11779 and #12022). On the codebase evaluation it
// made Weaviate's native BM25 look 63 points of Pass@20 worse than it is
// (EVAL.md). The old WAND (USE_BLOCKMAX_WAND=false on the server) is
// exact.
//
// The probe writes probeCommon objects holding one common term, then one
// holding it and a rare term, into a tenant of its own in class, asks for
// the top 1 of both terms, and drops the tenant. The last object is the only
// right answer. A key that may not write skips the check.
func (x *Index) checkBM25(ctx context.Context, class string) (err error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("weaviate: bm25 check: %w", err)
	}
	tenant := "situate-probe-" + hex.EncodeToString(b[:])
	defer func() {
		if err == errNoProbe {
			err = nil
			return
		}
		if e := x.c.do(context.WithoutCancel(ctx), http.MethodDelete, "/v1/schema/"+class+"/tenants", []string{tenant}, nil); e != nil && !isStatus(e, http.StatusNotFound) && err == nil {
			err = fmt.Errorf("weaviate: bm25 check: drop tenant %s of %s: %w", tenant, class, e)
		}
	}()
	obj := func(i int, terms string) batchObject {
		return batchObject{Class: class, ID: objectID(tenant, i), Tenant: tenant,
			Properties: map[string]any{propDocID: tenant, propChunk: i, termsProp: terms}}
	}
	common := make([]batchObject, probeCommon)
	for i := range common {
		common[i] = obj(i, "probecommon probefiller")
	}
	// Two writes, so the rare object comes last in Weaviate's own order.
	if err := x.batch(ctx, common); err != nil {
		if isStatus(err, http.StatusForbidden) || isStatus(err, http.StatusUnauthorized) {
			// A key that may only read: it cannot probe, and searches
			// what others wrote.
			return errNoProbe
		}
		return fmt.Errorf("weaviate: bm25 check: %w", err)
	}
	if err := x.batch(ctx, []batchObject{obj(probeCommon, "probecommon proberare")}); err != nil {
		return fmt.Errorf("weaviate: bm25 check: %w", err)
	}
	q := fmt.Sprintf(`{Get{%s(tenant: %s%s, limit: 1, bm25: {query: "probecommon proberare", properties: [%s]}){%s}}}`,
		class, gqlString(tenant), x.consistencyArg(), gqlString(termsProp), propChunk)
	type row struct {
		Chunk int `json:"chunk"`
	}
	var rows []row
	// A replica that acknowledged neither write of a QUORUM batch answers
	// without the rare object until replication reaches it (CI saw this on
	// a freshly started 3-node cluster), so a wrong answer is asked again
	// for a few seconds. The BlockMax fault lasts until the tenant's
	// memtable is flushed, minutes later, so it still fails every try.
	for try := range probeTries {
		if try > 0 {
			sleep(ctx, probePause)
		}
		var data struct {
			Get map[string][]row
		}
		if err := x.c.graphql(ctx, q, &data); err != nil {
			return fmt.Errorf("weaviate: bm25 check: %w", err)
		}
		rows = data.Get[class]
		if len(rows) == 1 && rows[0].Chunk == probeCommon {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	got := "nothing"
	if len(rows) > 0 {
		got = fmt.Sprintf("object %d", rows[0].Chunk)
	}
	return fmt.Errorf("weaviate at %s: BM25 returned %s as the best of %d matches where only object %d holds both query terms: "+
		"the server's BlockMax WAND skips recently written objects (Weaviate v1.35.2, weaviate/weaviate#11780), so searches would miss their best matches; "+
		"start weaviate-server with %s (scripts/dev-weaviate.sh does), or accept incomplete BM25 results with Config.SkipBM25Check (situate --weaviate-inexact-bm25): %w",
		strings.Join(x.cfg.URLs, ","), got, probeCommon+1, probeCommon, EnvHint, driver.ErrInvalid)
}
