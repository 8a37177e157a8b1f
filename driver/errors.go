package driver

import "errors"

// Sentinel errors. Adapters wrap them with %w; only httpapi and cmd map them to
// statuses and exit codes.
var (
	ErrNotFound       = errors.New("situate: not found")
	ErrInvalid        = errors.New("situate: invalid input")
	ErrStoreTooNew    = errors.New("situate: store was written by a newer version of situate")
	ErrPromptTooLarge = errors.New("situate: prompt does not fit the model's context window")
	// ErrLocked: another writer holds the store for longer than
	// Options.LockWait; the error names it. Readers never see it.
	ErrLocked = errors.New("situate: store is locked by another writer")
	// ErrReadOnly is returned by the writes of an Engine opened with
	// the OpenReader mode.
	ErrReadOnly = errors.New("situate: engine is open read-only")
	// ErrNeedsRebuild: a read-only Engine was opened with options that
	// index differently from the indexes on disk (fields, analyzer, arms);
	// only a writer (situate index) rebuilds them. The error says which.
	ErrNeedsRebuild = errors.New("situate: the options need the index rebuilt")
	// ErrDuplicateID: an index run was given a second document with an id
	// it already had (two directories holding the same relative path, a
	// JSONL file repeating an id); the second is skipped, not indexed over
	// the first.
	ErrDuplicateID = errors.New("situate: duplicate document id in one run")

	// ErrUnauthorized is what a provider error matches (errors.Is) when the
	// provider refused the credentials or the permission (HTTP 401, 403):
	// repeating the call cannot help, so a run stops at the first one.
	ErrUnauthorized = errors.New("situate: provider refused the credentials")
	// ErrModelNotFound is what a provider error matches when the provider
	// does not serve the model asked for (HTTP 404 on the model): a run stops
	// at the first one.
	ErrModelNotFound = errors.New("situate: provider does not serve the model")
)

// ErrProviderFailing is what a contextualizer's error matches when its
// provider failed every recent call (unreachable, or answering only errors):
// the run stops instead of degrading every remaining chunk to a fallback,
// and a rerun resumes.
var ErrProviderFailing = errors.New("situate: provider is failing every call")
