package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
)

// Caller is an authenticated request's identity: its tenant and what it may
// read and write.
type Caller struct {
	// Tenant names the caller's tenant.
	Tenant string
	// KeyID is the id of the key used ("" without authentication).
	KeyID string
	// Principals are the principals and groups the caller reads as: it
	// reads a document whose access list is empty or names one of them.
	Principals []string
	// Admin reads every document of the tenant, may write, and sees the
	// tenant's metrics and usage.
	Admin bool
	// Server is the server's operator (a key of NewServerKey): it sees
	// every tenant's metrics and the process-wide ones, and no document.
	Server bool
	// Write may upsert and delete documents, and so reads every document
	// of the tenant: document ids are one namespace per tenant, so a key
	// that may create documents would otherwise learn from a refused
	// create that an id it may not read is taken. NewKey refuses
	// principals for a write key.
	Write bool

	tenant *tenantState
}

// Engine is the caller's tenant's engine. Front ends mounted with
// Options.Mounts search it through the caller's Filter.
func (c *Caller) Engine() *situate.Engine { return c.tenant.Engine }

// Filter is the access part of every search the caller makes: nil
// principals for an administrator, the caller's (never nil) otherwise.
func (c *Caller) Filter() situate.Filter {
	if c.ReadsAll() {
		return situate.Filter{}
	}
	p := c.Principals
	if p == nil {
		p = []string{}
	}
	return situate.Filter{Principals: p}
}

// CanRead reports whether the caller may read a document with this access
// list. A document it may not read must look exactly like one that does
// not exist.
func (c *Caller) CanRead(access []string) bool {
	if c.ReadsAll() || len(access) == 0 {
		return true
	}
	return slices.ContainsFunc(access, func(a string) bool { return slices.Contains(c.Principals, a) })
}

func (c *Caller) canWrite() bool { return c.Admin || c.Write }

// ReadsAll reports whether the caller reads every document of its tenant:
// administrators and keys that may write.
func (c *Caller) ReadsAll() bool { return c.Admin || c.Write }

// errWriterPrincipals refuses principals for a key that may write.
var errWriterPrincipals = fmt.Errorf("principals: a key that may write reads every document of its tenant "+
	"(document ids are one namespace per tenant, and a refused create would reveal a taken id); "+
	"give a write key no principals, or put principals that must not see each other's documents in separate tenants: %w", situate.ErrInvalid)

type callerKey struct{}

// CallerFrom returns the authenticated caller of a request served by a
// Server (also in handlers mounted with Options.Mounts).
func CallerFrom(ctx context.Context) (*Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(*Caller)
	return c, ok && c != nil
}

// keyPrefix starts every key: "sk_<id>_<secret>".
const keyPrefix = "sk_"

// ServerTenant is the tenant of a server key (NewServerKey): no tenant can
// be named so (ValidTenant refuses it).
const ServerTenant = "*"

// NewServerKey makes a key for the server's operator: it reads /metrics
// with every tenant's series and the process-wide ones (Go runtime,
// process), and nothing else, no document of any tenant.
func NewServerKey(name string) (string, driver.APIKey, error) {
	return newKey(ServerTenant, name, nil, true, false)
}

// NewKey makes a key for tenant: the full key to show once, and the record
// to store (its secret only as a SHA-256 hash).
func NewKey(tenant, name string, principals []string, admin, write bool) (string, driver.APIKey, error) {
	if err := ValidTenant(tenant); err != nil {
		return "", driver.APIKey{}, err
	}
	return newKey(tenant, name, principals, admin, write)
}

func newKey(tenant, name string, principals []string, admin, write bool) (string, driver.APIKey, error) {
	if (write || admin) && len(principals) > 0 {
		return "", driver.APIKey{}, errWriterPrincipals
	}
	for _, p := range principals {
		if err := validPrincipal(p); err != nil {
			return "", driver.APIKey{}, err
		}
	}
	var idb [8]byte
	var secret [32]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return "", driver.APIKey{}, err
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return "", driver.APIKey{}, err
	}
	id := hex.EncodeToString(idb[:])
	sec := base64.RawURLEncoding.EncodeToString(secret[:])
	h := sha256.Sum256([]byte(sec))
	k := driver.APIKey{ID: id, Name: name, Tenant: tenant, Principals: principals, Admin: admin, Write: write || admin,
		Hash: h[:], CreatedAt: time.Now()}
	return keyPrefix + id + "_" + sec, k, nil
}

// parseKey splits "sk_<id>_<secret>".
func parseKey(s string) (id, secret string, ok bool) {
	rest, ok := strings.CutPrefix(s, keyPrefix)
	if !ok {
		return "", "", false
	}
	id, secret, ok = strings.Cut(rest, "_")
	if !ok || len(id) != 16 || secret == "" {
		return "", "", false
	}
	return id, secret, true
}

var errUnauthenticated = errors.New("unauthenticated")

// authenticate finds the caller of r: the key in "Authorization: Bearer"
// (or X-API-Key), checked against its stored hash in constant time.
func (s *Server) authenticate(r *http.Request) (*Caller, *apiError) {
	if s.opts.Keys == nil {
		t, err := s.tenant(r.Context(), LocalTenant)
		if err != nil {
			return nil, internalError(err)
		}
		return &Caller{Tenant: LocalTenant, Admin: true, Write: true, tenant: t}, nil
	}
	raw := r.Header.Get("X-API-Key")
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return nil, &apiError{status: http.StatusUnauthorized, code: "unauthenticated", field: "Authorization",
				msg: "Authorization: want \"Bearer <key>\""}
		}
		raw = strings.TrimSpace(tok)
	}
	if raw == "" {
		return nil, &apiError{status: http.StatusUnauthorized, code: "unauthenticated", field: "Authorization",
			msg: "Authorization: missing API key (send \"Authorization: Bearer <key>\")"}
	}
	bad := &apiError{status: http.StatusUnauthorized, code: "unauthenticated", field: "Authorization",
		msg: "Authorization: invalid or revoked API key"}
	id, secret, ok := parseKey(raw)
	if !ok {
		return nil, bad
	}
	k, err := s.keys.get(r.Context(), s.opts.Keys, id)
	if errors.Is(err, situate.ErrNotFound) {
		// Compare anyway, so an unknown id costs what a wrong secret does.
		h := sha256.Sum256([]byte(secret))
		subtle.ConstantTimeCompare(h[:], make([]byte, sha256.Size))
		return nil, bad
	}
	if err != nil {
		return nil, internalError(err)
	}
	h := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(h[:], k.Hash) != 1 || !k.RevokedAt.IsZero() {
		return nil, bad
	}
	if k.Tenant == ServerTenant {
		if r.URL.Path != "/metrics" {
			return nil, &apiError{status: http.StatusForbidden, code: "forbidden",
				msg: "a server key reads /metrics only (no tenant's documents)"}
		}
		return &Caller{Tenant: ServerTenant, KeyID: k.ID, Admin: true, Server: true}, nil
	}
	t, err := s.tenant(r.Context(), k.Tenant)
	if err != nil {
		return nil, internalError(err)
	}
	write := k.Write || k.Admin
	if write && !k.Admin && len(k.Principals) > 0 {
		// A write key restricted to principals (stored by an older
		// version): it keeps reading as its principals and loses writing,
		// rather than reading the whole tenant.
		write = false
	}
	return &Caller{Tenant: k.Tenant, KeyID: k.ID, Principals: k.Principals, Admin: k.Admin, Write: write, tenant: t}, nil
}

// keyCache keeps looked-up keys briefly, so a search does not read the key
// store every time. A key revoked through the server's own KeyStore (in
// this process) stops working at once when the store counts revocations
// (situate.KeyRevisioner: the SQLite and PostgreSQL stores do); one revoked
// by another process ("situate keys revoke" while serve runs) keeps working
// for at most KeyCacheTTL.
type keyCache struct {
	mu sync.Mutex
	m  map[string]cachedKey
}

type cachedKey struct {
	k       driver.APIKey
	fetched time.Time
	rev     uint64 // the store's KeyRevision before the fetch
}

// KeyCacheTTL bounds how long a key revoked by another process keeps
// working on a running server.
const KeyCacheTTL = 2 * time.Second

func keyRevision(ks driver.KeyStore) uint64 {
	if r, ok := ks.(driver.KeyRevisioner); ok {
		return r.KeyRevision()
	}
	return 0
}

func (c *keyCache) get(ctx context.Context, ks driver.KeyStore, id string) (driver.APIKey, error) {
	rev := keyRevision(ks)
	c.mu.Lock()
	if e, ok := c.m[id]; ok && e.rev == rev && time.Since(e.fetched) < KeyCacheTTL {
		c.mu.Unlock()
		return e.k, nil
	}
	c.mu.Unlock()
	k, err := ks.Key(ctx, id)
	if err != nil {
		return k, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) > 10000 {
		c.m = map[string]cachedKey{}
	}
	c.m[id] = cachedKey{k, time.Now(), rev}
	c.mu.Unlock()
	return k, nil
}

func validPrincipal(p string) error {
	if p == "" || len(p) > 256 || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ',' }) {
		return fmt.Errorf("principal %q: must be 1-256 characters without control characters or commas: %w", p, situate.ErrInvalid)
	}
	return nil
}

// rateLimiter is a token bucket per key.
type rateLimiter struct {
	rate  float64
	burst float64
	mu    sync.Mutex
	b     map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(rate float64, burst int) *rateLimiter {
	return &rateLimiter{rate: rate, burst: float64(burst), b: map[string]*bucket{}}
}

// allow takes a token from key's bucket; when there is none it returns how
// long until there is.
func (l *rateLimiter) allow(key string) (bool, time.Duration) {
	if l.rate <= 0 {
		return true, 0
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.b[key]
	if !ok {
		if len(l.b) > 100000 {
			l.b = map[string]*bucket{}
		}
		b = &bucket{tokens: l.burst, last: now}
		l.b[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}
