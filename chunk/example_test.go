package chunk_test

import (
	"fmt"
	"strings"

	"github.com/situate/situate/chunk"
)

func ExampleSplit() {
	doc := "# Brightwater Logistics\n\n" +
		"Brightwater Logistics runs barges on the Elbe.\n\n" +
		"## Results\n\n" +
		strings.Repeat("Revenue grew 3% in the third quarter. ", 8)
	spans, err := chunk.Split(doc, chunk.Options{Size: 40, Overlap: 10, Format: chunk.FormatMarkdown})
	if err != nil {
		panic(err)
	}
	for _, s := range spans {
		fmt.Printf("%q (%d tokens): %.40q...\n", s.Heading, s.Tokens, doc[s.Start:s.End])
	}
	// Output:
	// "Brightwater Logistics" (16 tokens): "# Brightwater Logistics\n\nBrightwater Log"...
	// "Brightwater Logistics > Results" (33 tokens): "## Results\n\nRevenue grew 3% in the third"...
	// "Brightwater Logistics > Results" (40 tokens): "Revenue grew 3% in the third quarter. Re"...
	// "Brightwater Logistics > Results" (30 tokens): "Revenue grew 3% in the third quarter. Re"...
}

func ExampleSplit_code() {
	src := "package config\n\n// Load reads the file.\nfunc Load(path string) error {\n\treturn nil\n}\n\ntype Config struct{ Path string }\n"
	spans, _ := chunk.Split(src, chunk.Options{Size: 20, Format: chunk.FormatCode, Path: "config.go"})
	for _, s := range spans {
		fmt.Printf("%s: %q\n", s.Heading, src[s.Start:s.End])
	}
	// Output:
	// func Load: "package config\n\n// Load reads the file.\nfunc Load(path string) error {\n\treturn nil\n}"
	// type Config struct: "type Config struct{ Path string }"
}

func ExampleCountTokens() {
	fmt.Println(chunk.CountTokens("Contextual retrieval situates every chunk."))
	// Output:
	// 8
}

func ExampleOptions_Validate() {
	err := chunk.Options{Size: 100, Overlap: 80}.Validate()
	fmt.Println(err)
	// Output:
	// chunk options: Overlap: 80 exceeds half of Size (100)
}
