package apiclient

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/situate/situate/driver"
)

// Settings are the options the hosted adapters (cohere, voyage, gemini)
// have alike.
type Settings struct {
	// APIKey is required unless KeyOptional (a server of one's own may
	// run without a key); KeyEnv names the environment variable the
	// "empty" message points to.
	APIKey, KeyEnv string
	KeyOptional    bool
	// BaseURL "" means DefaultBaseURL.
	BaseURL, DefaultBaseURL string
	// Dimensions, MaxInputTokens, BatchSize, BatchTokens and Timeout must
	// not be negative (0 means the adapter's default).
	Dimensions, MaxInputTokens, BatchSize, BatchTokens int
	Timeout                                            time.Duration
	// Model, HTTPClient and Usage are passed on by Hosted (not checked).
	Model      string
	HTTPClient *http.Client
	Usage      driver.UsageRecorder
}

// Check validates s in field order and returns the parsed base URL
// (without a trailing slash). An error names the field and the problem
// ("APIKey: empty (set CO_API_KEY)", "BatchSize: must be >= 0, got -1")
// for the adapter to wrap with its name and its sentinel.
func (s Settings) Check() (*url.URL, error) {
	if strings.TrimSpace(s.APIKey) == "" && !s.KeyOptional {
		return nil, fmt.Errorf("APIKey: empty (set %s)", s.KeyEnv)
	}
	base := s.BaseURL
	if base == "" {
		base = s.DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("BaseURL: %q: want http(s)://host[/path]", base)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Dimensions", s.Dimensions}, {"MaxInputTokens", s.MaxInputTokens}, {"BatchSize", s.BatchSize}, {"BatchTokens", s.BatchTokens}} {
		if f.v < 0 {
			return nil, fmt.Errorf("%s: must be >= 0, got %d", f.name, f.v)
		}
	}
	if s.Timeout < 0 {
		return nil, fmt.Errorf("Timeout: must be >= 0, got %s", s.Timeout)
	}
	return u, nil
}

// Describe is s as an adapter's Options prints it (name is
// "cohere.Options"): the fields a caller sets, with the key shown only as
// <redacted> or <unset>, so that %v and %#v of Options never print it.
func (s Settings) Describe(name string) string {
	key := "<unset>"
	if s.APIKey != "" {
		key = "<redacted>"
	}
	return fmt.Sprintf("%s{APIKey:%s BaseURL:%q Model:%q Dimensions:%d MaxInputTokens:%d BatchSize:%d BatchTokens:%d Timeout:%s}",
		name, key, s.BaseURL, s.Model, s.Dimensions, s.MaxInputTokens, s.BatchSize, s.BatchTokens, s.Timeout)
}

// NewHTTPClient is the adapters' default client: http.DefaultTransport's
// settings, keeping maxIdle idle connections per host.
func NewHTTPClient(maxIdle int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = maxIdle
	return &http.Client{Transport: tr}
}
