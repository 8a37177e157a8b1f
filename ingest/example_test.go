package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
)

func ExampleWalk() {
	dir, _ := os.MkdirTemp("", "ingest-example")
	defer os.RemoveAll(dir)
	files := map[string]string{
		".gitignore":     "*.log\n",
		"guide.md":       "# User Guide\n\nStart here.\n",
		"notes/todo.txt": "buy milk\n",
		"notes/run.log":  "ignored\n",
		"empty.txt":      "",
		"web/index.html": `<html lang="en"><head><title>Home</title></head><body><nav>menu</nav><main><h1>Welcome</h1><p>Hello.</p></main></body></html>`,
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	err := ingest.Walk(context.Background(), []string{dir}, ingest.Options{}, func(doc situate.Document, err error) error {
		if err != nil {
			var fe *ingest.FileError
			if errors.As(err, &fe) {
				fmt.Printf("skipped %s: %v\n", filepath.Base(fe.Path), fe.Err)
			}
			return nil
		}
		fmt.Printf("%s [%s] %q lang=%q\n", doc.ID, doc.Format, doc.Title, doc.Lang)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// skipped empty.txt: empty file
	// guide.md [markdown] "User Guide" lang=""
	// notes/todo.txt [text] "todo.txt" lang=""
	// web/index.html [html] "Home" lang="en"
}

func ExampleParse() {
	page := `<html><head><title>Prices</title><script>track()</script></head><body>
<header>Shop</header><main><h2>Fruit</h2><table><tr><th>Item</th><th>EUR</th></tr><tr><td>Apple</td><td>0.40</td></tr></table></main>
<footer>© Shop</footer></body></html>`
	doc, err := ingest.Parse(context.Background(), []byte(page), "prices", "prices.html", ingest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Title)
	fmt.Print(doc.Text)
	// Output:
	// Prices
	// ## Fruit
	//
	// | Item | EUR |
	// |---|---|
	// | Apple | 0.40 |
}

func ExampleJSONL() {
	input := strings.NewReader(`{"id": "faq-1", "text": "Returns are free.", "title": "Returns", "metadata": {"team": "support"}}
{"id": "faq-2"}
`)
	ingest.JSONL(context.Background(), input, "faq.jsonl", func(doc situate.Document, err error) error {
		if err != nil {
			fmt.Println(err)
			return nil
		}
		fmt.Println(doc.ID, doc.Title, doc.Metadata["team"])
		return nil
	})
	// Output:
	// faq-1 Returns support
	// parse faq.jsonl:2: invalid record: id "faq-2": field "text": missing
}
