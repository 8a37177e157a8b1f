package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/situate/situate/driver"
)

// Settings are what a Contextualizer's contexts depend on beyond the
// document and the chunk: the model (as its server names it), the prompt
// template's content, the output budget, the context bound and the forced
// language. A store keeps the Settings it was built with, so that a change
// can be named ("prompt template changed") and status can tell stale from
// fresh without asking the model's server.
type Settings struct {
	// Model is "provider:model" with the model's own name where the server
	// says it (llama.cpp, vLLM, Ollama), else the configured one.
	Model string `json:"model"`
	// ModelDigest tells apart models of the same name (see
	// situate.ModelIdentity); empty when the server says nothing more.
	ModelDigest string `json:"model_digest,omitempty"`
	// Template is "builtin" or the custom template's file name;
	// TemplateHash is the hash of its text (for the built-in templates, of
	// all of them).
	Template     string `json:"template"`
	TemplateHash string `json:"template_hash"`
	// MaxTokens is the output budget of a call, MaxContextTokens the bound
	// on a kept context.
	MaxTokens        int `json:"max_tokens"`
	MaxContextTokens int `json:"max_context_tokens"`
	// Language is the forced prompt language ("" = each document's own).
	Language string `json:"language,omitempty"`
	// Extra is Options.Extra, Glossary Options.GlossaryID.
	Extra    string `json:"extra,omitempty"`
	Glossary string `json:"glossary,omitempty"`
	// CallWholeDocuments: documents of one chunk are asked too (see
	// Options.CallWholeDocuments).
	CallWholeDocuments bool `json:"call_whole_documents,omitempty"`
	// Fingerprint hashes all of the above; it is the Contextualizer's
	// Fingerprint and part of every context's cache key.
	Fingerprint string `json:"fingerprint"`
}

// settingsVersion changes when the meaning of a cache key changes.
const settingsVersion = "situate-llm-settings-v2"

func (s Settings) fingerprint() string {
	h := sha256.New()
	for _, f := range []string{settingsVersion, s.Model, s.ModelDigest, s.TemplateHash,
		fmt.Sprint(s.MaxTokens), fmt.Sprint(s.MaxContextTokens), s.Language} {
		fmt.Fprintf(h, "%d:%s\n", len(f), f)
	}
	// Added later: only when set, so stores built before keep their
	// fingerprint.
	for _, f := range [][2]string{{"extra", s.Extra}, {"glossary", s.Glossary}} {
		if f[1] != "" {
			fmt.Fprintf(h, "%s %d:%s\n", f[0], len(f[1]), f[1])
		}
	}
	if s.CallWholeDocuments {
		// Only when set, so that stores built before the option keep
		// their fingerprint.
		fmt.Fprintf(h, "call-whole-documents\n")
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Changes names what differs from old, the settings a store was built
// with, in words a user can act on: "model changed (llamacpp:a.gguf →
// llamacpp:b.gguf)", "prompt template changed", "max tokens changed (256 →
// 128)", "language changed (each document's → de)". Empty when nothing
// that the contexts depend on changed.
func (s Settings) Changes(old Settings) []string {
	var out []string
	switch {
	case s.Model != old.Model:
		out = append(out, fmt.Sprintf("model changed (%s → %s)", orNone(old.Model), s.Model))
	case s.ModelDigest != old.ModelDigest:
		out = append(out, fmt.Sprintf("model changed (another model file named %s)", s.Model))
	}
	if s.TemplateHash != old.TemplateHash {
		if s.Template != old.Template {
			out = append(out, fmt.Sprintf("prompt template changed (%s → %s)", orNone(old.Template), s.Template))
		} else {
			out = append(out, "prompt template changed")
		}
	}
	if s.MaxTokens != old.MaxTokens {
		out = append(out, fmt.Sprintf("max tokens changed (%d → %d)", old.MaxTokens, s.MaxTokens))
	}
	if s.MaxContextTokens != old.MaxContextTokens {
		out = append(out, fmt.Sprintf("context bound changed (%d → %d tokens)", old.MaxContextTokens, s.MaxContextTokens))
	}
	if s.Language != old.Language {
		out = append(out, fmt.Sprintf("language changed (%s → %s)", langName(old.Language), langName(s.Language)))
	}
	if s.Extra != old.Extra {
		out = append(out, fmt.Sprintf("request fields changed (%s → %s)", orNone(old.Extra), orNone(s.Extra)))
	}
	if s.Glossary != old.Glossary {
		name := func(id string) string { n, _, _ := strings.Cut(id, "@"); return orNone(n) }
		if name(old.Glossary) != name(s.Glossary) {
			out = append(out, fmt.Sprintf("glossary changed (%s → %s)", name(old.Glossary), name(s.Glossary)))
		} else {
			out = append(out, "glossary changed")
		}
	}
	if s.CallWholeDocuments != old.CallWholeDocuments {
		from, to := "offline context", "model call"
		if old.CallWholeDocuments {
			from, to = to, from
		}
		out = append(out, fmt.Sprintf("documents of one chunk changed (%s → %s)", from, to))
	}
	if len(out) == 0 && s.Fingerprint != old.Fingerprint {
		out = append(out, "contextualizer settings changed")
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func langName(l string) string {
	if l == "" {
		return "each document's own"
	}
	return l
}

// builtinTemplatesHash hashes every built-in template, so that a new
// release's prompt wording re-situates what the old one wrote.
func builtinTemplatesHash() string {
	h := sha256.New()
	for _, l := range []string{driver.LangEnglish, "de", "es", "ru", "zh"} {
		fmt.Fprintf(h, "%s:%s\n", l, BuiltinTemplate(l).Hash)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// settingsFor computes the settings of a model name and digest.
func (c *Contextualizer) settingsFor(model, digest string) Settings {
	s := Settings{Model: model, ModelDigest: digest, Template: "builtin", TemplateHash: builtinTemplatesHash(),
		MaxTokens: c.opts.MaxTokens, MaxContextTokens: c.opts.MaxContextTokens, Language: c.opts.Language,
		Extra: c.opts.Extra, Glossary: c.opts.GlossaryID,
		CallWholeDocuments: c.opts.CallWholeDocuments}
	if c.custom != nil {
		s.Template, s.TemplateHash = filepath.Base(c.custom.Name), c.custom.Hash
	}
	s.Fingerprint = s.fingerprint()
	return s
}

// Settings returns what the contexts depend on (see Settings). Before
// Identify, Model is the configured name.
func (c *Contextualizer) Settings() Settings {
	c.idMu.RLock()
	defer c.idMu.RUnlock()
	return c.settings
}

// Fingerprint implements situate.Fingerprinter: a change of the model,
// the template, the output budget or the language changes it, and the
// Engine then re-processes every document (cached contexts whose prompts
// did not change are reused without a call).
func (c *Contextualizer) Fingerprint() string { return c.Settings().Fingerprint }

// Identify asks the model's server which model it serves (when the model
// implements situate.ModelIdentifier) and names the contexts after it:
// Name becomes "provider:<served model>" and the served model's digest
// enters the Fingerprint and the cache keys, so two models behind the same
// URL are told apart. Every replica must serve the same model. Call it
// before the Contextualizer is handed to an Engine; without it, the
// configured name is used.
func (c *Contextualizer) Identify(ctx context.Context) error {
	var first driver.ModelIdentity
	identified := false
	for i, m := range c.pool {
		mi, ok := m.(driver.ModelIdentifier)
		if !ok {
			continue
		}
		id, err := mi.ModelIdentity(ctx)
		if err != nil {
			return fmt.Errorf("llm: ask %s which model it serves: %w", m.Name(), err)
		}
		if id.Name == "" {
			return fmt.Errorf("llm: ask %s which model it serves: the server names no model: %w", m.Name(), driver.ErrInvalid)
		}
		if identified && id != first {
			return fmt.Errorf("llm: replica %d serves %s (%s), the first serves %s (%s): replicas must serve one model: %w",
				i, id.Name, id.Digest, first.Name, first.Digest, driver.ErrInvalid)
		}
		first, identified = id, true
	}
	if !identified {
		return nil
	}
	provider, _ := splitName(c.configured)
	name := first.Name
	if provider != "" {
		name = provider + ":" + first.Name
	}
	c.idMu.Lock()
	c.name = name
	c.settings = c.settingsFor(name, first.Digest)
	c.idMu.Unlock()
	c.price, c.hasPrice = c.prices.Lookup(name)
	if !c.hasPrice {
		c.price, c.hasPrice = c.prices.Lookup(c.configured)
	}
	return nil
}

// modelName is the current name (after Identify, the served model's).
func (c *Contextualizer) modelName() string {
	c.idMu.RLock()
	defer c.idMu.RUnlock()
	return c.name
}
