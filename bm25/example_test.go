package bm25_test

import (
	"fmt"

	"github.com/situate/situate/bm25"
)

func Example() {
	ix, err := bm25.New(bm25.Options{}) // in memory; bm25.Open(dir, opts) persists
	if err != nil {
		panic(err)
	}
	defer ix.Close()
	// Each document (group) is replaced as a whole; each chunk has its own ID.
	ix.Replace("guide.md", []bm25.Doc{
		{ID: "guide.md#0", Lang: "en", Fields: map[string]string{"text": "Installing the server on Debian."}},
		{ID: "guide.md#1", Lang: "en", Fields: map[string]string{"text": "The server listens on port 8080."}},
	})
	ix.Replace("anleitung.md", []bm25.Doc{
		{ID: "anleitung.md#0", Lang: "de", Fields: map[string]string{"text": "Der Server lauscht auf Port 8080."}},
	})
	// The query is analysed per language: the German chunk matches "server"
	// and "port" too, scored with the German partition's statistics.
	res, _ := ix.Search(bm25.Query{Text: "which port does the server listen on", K: 3})
	for _, r := range res {
		fmt.Printf("%s %.4f\n", r.ID, r.Score)
	}
	// Search only German documents.
	res, _ = ix.Search(bm25.Query{Text: "Server Port", Lang: "de"})
	fmt.Println(len(res), res[0].ID)
	// Output:
	// guide.md#1 0.6736
	// anleitung.md#0 0.2615
	// guide.md#0 0.0880
	// 1 anleitung.md#0
}
