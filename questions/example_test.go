package questions_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/questions"
)

// echoModel stands in for a chat model: it asks about the year in the
// chunk and answers with the chunk's first sentence.
type echoModel struct{}

func (echoModel) Name() string { return "example:echo" }
func (echoModel) Complete(_ context.Context, p driver.Prompt) (driver.Completion, error) {
	chunk := p.Suffix[strings.Index(p.Suffix, "<chunk>\n")+8 : strings.Index(p.Suffix, "\n</chunk>")]
	first, _, _ := strings.Cut(chunk, ".")
	return driver.Completion{Text: "QUESTION: When did the Halden works get their second furnace?\nANSWER: " + first}, nil
}

func Example() {
	text := "The Halden ironworks opened a second blast furnace in 1871. Output doubled within three years, " +
		"and the workforce grew from two hundred to almost five hundred men, most of them from the valley farms."
	src := questions.Source{Doc: situate.Document{ID: "halden.md", Text: text, Format: situate.FormatMarkdown},
		Chunks: []situate.Chunk{{DocID: "halden.md", Start: 0, End: len(text), Text: text}}}
	res, err := questions.Generate(context.Background(), echoModel{}, []questions.Source{src}, questions.Options{N: 1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	questions.WriteDataset(os.Stdout, res.Items)
	// Output:
	// {"id":"gen-0001","query":"When did the Halden works get their second furnace?","doc":"halden.md","answer":"The Halden ironworks opened a second blast furnace in 1871","lang":"en","start":0,"end":198,"chunk":0,"overlap":0.43}
}
