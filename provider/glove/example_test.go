package glove_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/situate/situate/driver"
	"github.com/situate/situate/provider/glove"
)

func Example() {
	// A hand-made 4-d vectors file in GloVe's text format; real use points
	// Path at the wink vectors fetched by scripts/fetch-glove.sh.
	dir, _ := os.MkdirTemp("", "glove-example")
	defer os.RemoveAll(dir)
	data, _ := os.ReadFile("testdata/tiny.txt")
	path := filepath.Join(dir, "tiny.txt")
	_ = os.WriteFile(path, data, 0o644)

	e, err := glove.New(glove.Options{Path: path})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := e.Embed(context.Background(), []string{"the cat", "a kitten", "the desk"}, driver.InputDocument)
	cos := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	fmt.Println(e.Name(), e.Dim())
	fmt.Printf("cat~kitten %.2f, cat~desk %.2f\n", cos(v[0], v[1]), cos(v[0], v[2]))
	// Output:
	// glove:tiny 4
	// cat~kitten 0.96, cat~desk -0.75
}
