package offline_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/offline"
)

func Example() {
	doc := situate.Document{
		ID:    "reports/acme-2023.md",
		Title: "ACME Corp annual report 2023",
		Text: "# ACME Corp annual report 2023\n\nACME Corp makes rocket skates in Phoenix, Arizona.\n\n" +
			"## Revenue\n\nThe company's revenue grew 3% over the previous quarter.",
		Format: situate.FormatMarkdown,
		Lang:   "en",
	}
	start := strings.Index(doc.Text, "The company's")
	chunk := situate.Chunk{DocID: doc.ID, Start: start, End: len(doc.Text), Text: doc.Text[start:],
		Heading: "ACME Corp annual report 2023 > Revenue"}

	c := offline.New(offline.DefaultOptions())
	contexts, err := c.Contextualize(context.Background(), doc, []situate.Chunk{chunk})
	if err != nil {
		panic(err)
	}
	fmt.Println(contexts[0].Source)
	fmt.Println(driver.Contextualize(contexts[0].Text, chunk.Text))
	// Output:
	// offline
	// From ACME Corp annual report 2023, section Revenue: ACME Corp.
	//
	// The company's revenue grew 3% over the previous quarter.
}
