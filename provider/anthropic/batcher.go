package anthropic

import (
	"context"
	"errors"
	"fmt"

	"github.com/situate/situate/driver"
)

// Batcher is the client seen through package llm's BatchClient interface
// (Submit, Poll, Results...), which speaks only the root package's types:
// llm.NewBatch runs the batch workflow of situate index --batch over it.
type Batcher struct{ *Client }

// Submit creates one Message Batch of prompts under their custom ids.
func (b Batcher) Submit(ctx context.Context, customIDs []string, prompts []driver.Prompt) (string, error) {
	if len(customIDs) != len(prompts) {
		return "", fmt.Errorf("anthropic: batches.create: %d custom ids for %d prompts: %w", len(customIDs), len(prompts), driver.ErrInvalid)
	}
	reqs := make([]BatchRequest, len(prompts))
	for i := range prompts {
		reqs[i] = BatchRequest{CustomID: customIDs[i], Prompt: prompts[i]}
	}
	return b.SubmitBatch(ctx, reqs)
}

// Poll reports whether the batch has ended and its request counts.
func (b Batcher) Poll(ctx context.Context, id string) (bool, string, error) {
	st, err := b.PollBatch(ctx, id)
	if err != nil {
		return false, "", err
	}
	rc := st.RequestCounts
	return st.Ended(), fmt.Sprintf("%s, %d processing, %d succeeded, %d errored", st.ProcessingStatus, rc.Processing, rc.Succeeded, rc.Errored), nil
}

// Results streams an ended batch's results (BatchResults).
func (b Batcher) Results(ctx context.Context, id string, fn func(customID string, c driver.Completion, err error) error) error {
	return b.BatchResults(ctx, id, fn)
}

// Expired reports whether a batch result's error is a request that was
// canceled or expired before it ran.
func (b Batcher) Expired(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Type == "canceled" || e.Type == "expired")
}

// CustomID is BatchCustomID.
func (b Batcher) CustomID(docID string, chunk int) string { return BatchCustomID(docID, chunk) }

// MaxRequests is MaxBatchRequests.
func (b Batcher) MaxRequests() int { return MaxBatchRequests }

// CacheTTL is BatchCacheTTL.
func (b Batcher) CacheTTL() string { return BatchCacheTTL }
