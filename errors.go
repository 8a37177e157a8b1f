package situate

import "errors"

// Sentinel errors. Adapters wrap them with %w; only httpapi and cmd map them to
// statuses and exit codes.
var (
	ErrNotFound       = errors.New("situate: not found")
	ErrInvalid        = errors.New("situate: invalid input")
	ErrStoreTooNew    = errors.New("situate: store was written by a newer version of situate")
	ErrPromptTooLarge = errors.New("situate: prompt does not fit the model's context window")
)
