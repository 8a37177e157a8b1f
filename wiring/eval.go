package wiring

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/eval"
	"github.com/situate/situate/harness"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/ingest/pdf"
	"github.com/situate/situate/offline"
	"github.com/situate/situate/sqlite"
)

// EvalConfigs resolves which configurations to run. Without --compare the
// configured contextualizer runs, or the provided contexts when there are.
func EvalConfigs(s Settings, ds *eval.Dataset, compare string, all bool) ([]string, error) {
	applicable := harness.Configs(ds, harness.Available{LLM: s.Value("llm") != "", Embedder: s.Value("embed") != "", Reranker: s.Value("rerank") != ""})
	if all {
		return applicable, nil
	}
	if compare == "" {
		if harness.HasProvidedContexts(ds) && s.Origin("contextualizer") == "default" {
			return []string{harness.Provided}, nil
		}
		name := s.Value("contextualizer")
		if s.Value("llm") != "" && s.Origin("contextualizer") == "default" {
			name = harness.LLM
		}
		if name == "none" {
			name = harness.Raw
		}
		return []string{name}, nil
	}
	var out []string
	for _, name := range SplitList(compare) {
		cfg, err := harness.ParseConfig(name)
		if err != nil {
			return nil, UsageError{err}
		}
		if !slices.Contains(applicable, cfg.Contexts) || (name != cfg.Contexts && s.Value("embed") == "") {
			return nil, usagef("--configs %s: not available for this dataset (available: %s)", name, strings.Join(applicable, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// EvalOptions wires harness.Evaluate: a SQLite store per configuration, the
// engine options of an index run and a search (EngineOptions, with an index
// backend tenant of its own that is dropped when the engine closes), and
// ingest for documents given as files; skip hears of documents left out.
func EvalOptions(s Settings, env Env, pdfx *pdf.Extractor, docFormat string, depth int, log *slog.Logger, skip func(id string, err error)) harness.Options {
	return harness.Options{
		Depth: depth, DocFormat: docFormat,
		NewStore: func(ctx context.Context, dir string) (driver.Store, error) {
			return sqlite.Open(ctx, filepath.Join(dir, StoreFile))
		},
		EngineOptions: func(cfg harness.Config, store driver.Store) (situate.Options, error) {
			st := store.(*sqlite.Store)
			opts, err := EngineOptions(s, env, st, st, log)
			if err == nil {
				// A Weaviate tenant of its own, dropped when the engine closes.
				err = WithBackend(context.Background(), s, env, &opts, "", true)
			}
			if err == nil && cfg.Contexts == harness.Offline {
				opts.Contextualizer = offline.New(offline.DefaultOptions())
			}
			return opts, err
		},
		Read: func(ctx context.Context, path, id string) (situate.Document, error) {
			return ingest.ParseFile(ctx, path, id, ingest.Options{PDF: pdfx})
		},
		Skip: skip,
	}
}
