package wiring

import (
	"path/filepath"

	"github.com/situate/situate/driver"
)

// Env is what wiring needs of the process beyond its settings.
type Env struct {
	// Getenv reads the environment (API keys, provider base URLs).
	Getenv func(string) string
	// WorkDir resolves a relative --store.
	WorkDir string
	// CacheSalt is sent to vLLM as cache_salt: vLLM shares cached prompt
	// blocks only between requests with the same salt (serve uses one per
	// tenant).
	CacheSalt string
	// Usage, when set, wraps the store's usage ledger for the LLM
	// contextualizer (a front end's tally of this run's calls).
	Usage func(driver.UsageRecorder) driver.UsageRecorder
	// Stored makes EngineOptions use the contextualizer the store was last
	// indexed with when the settings choose none ("situate status").
	Stored bool
}

func (e Env) getenv(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// StoreDir is the --store directory, relative to env's WorkDir.
func StoreDir(s Settings, env Env) string {
	dir := s.Value("store")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.WorkDir, dir)
	}
	return dir
}
