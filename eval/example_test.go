package eval_test

import (
	"fmt"
	"os"

	"github.com/situate/situate/eval"
)

// A dataset with two pre-chunked documents and two queries, scored for two
// configurations and printed in Anthropic's table shape.
func Example() {
	ds := &eval.Dataset{
		Docs: []eval.Doc{
			{ID: "pay", Chunks: []eval.Chunk{{Index: 0, Text: "Refunds take 5 days."}, {Index: 1, Text: "It ships in 2 days."}}},
			{ID: "faq", Chunks: []eval.Chunk{{Index: 0, Text: "Contact support by mail."}}},
		},
		Queries: []eval.Query{
			{ID: "q1", Text: "how long do refunds take", Golden: []eval.ChunkRef{{DocID: "pay", Index: 0}}, GoldenText: []string{"Refunds take 5 days."}},
			{ID: "q2", Text: "how do I reach support", Golden: []eval.ChunkRef{{DocID: "faq", Index: 0}}, GoldenText: []string{"Contact support by mail."}},
		},
	}
	// Ranked lists per query, best first; the chunk text is looked up in the
	// dataset when Ranked.Text is empty.
	raw := eval.Run{
		"q1": {{DocID: "pay", Chunk: 1}, {DocID: "pay", Chunk: 0}},
		"q2": {{DocID: "pay", Chunk: 1}},
	}
	contextual := eval.Run{
		"q1": {{DocID: "pay", Chunk: 0}},
		"q2": {{DocID: "faq", Chunk: 0}},
	}
	var results []eval.Result
	for _, c := range []struct {
		name string
		run  eval.Run
	}{{"raw chunks", raw}, {"contextual", contextual}} {
		res, perQuery := eval.Evaluate(ds, c.run)
		res.Name = c.name
		results = append(results, res)
		fmt.Printf("%s: q2 missed %v\n", c.name, perQuery[1].Missed)
	}
	eval.WriteTable(os.Stdout, results)
	// Output:
	// raw chunks: q2 missed [faq#0]
	// contextual: q2 missed []
	// configuration  Pass@5  Pass@10  Pass@20  failure@20  reduction
	// raw chunks      50.00    50.00    50.00      50.00%   baseline
	// contextual     100.00   100.00   100.00       0.00%     100.0%
}

// Metrics on one ranked list with trec_eval semantics.
func ExampleAveragePrecision() {
	rel := eval.Judgments{"CACM-1410": 1, "CACM-1572": 1, "CACM-1605": 1}
	ranked := []string{"CACM-1410", "CACM-0001", "CACM-1605"}
	fmt.Printf("AP %.4f  P@30 %.4f  recall@20 %.4f  MRR@10 %.4f\n",
		eval.AveragePrecision(rel, ranked), eval.Precision(rel, ranked, 30),
		eval.Recall(rel, ranked, 20), eval.ReciprocalRank(rel, ranked, 10))
	// Output:
	// AP 0.5556  P@30 0.0667  recall@20 0.6667  MRR@10 1.0000
}
