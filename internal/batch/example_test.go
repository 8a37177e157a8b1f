package batch_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/situate/situate/internal/batch"
)

// Seven texts of estimated token counts, at most 3 texts and 100 tokens a
// request; the server refuses the first request as too large, so Run
// halves it.
func Example() {
	tokens := []int{10, 10, 10, 90, 20, 5, 5}
	spans := batch.Plan(tokens, 3, 100)
	fmt.Println(spans)
	errTooLarge := errors.New("too large")
	err := batch.Run(context.Background(), spans, func(_ context.Context, s batch.Span, r batch.Ref) error {
		fmt.Printf("request %d: texts %d-%d\n", r.N, r.First, r.Last)
		if r.N == 1 {
			return errTooLarge
		}
		return nil
	}, func(err error) bool { return errors.Is(err, errTooLarge) })
	fmt.Println(err)
	// Output:
	// [{0 3} {3 4} {4 7}]
	// request 1: texts 0-2
	// request 2: texts 0-0
	// request 3: texts 1-2
	// request 4: texts 3-3
	// request 5: texts 4-6
	// <nil>
}
