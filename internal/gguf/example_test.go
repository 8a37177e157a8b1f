package gguf_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/situate/situate/internal/gguf"
)

// A vocabulary-only file (here a 3-token one) turned into a loadable
// two-layer llama model.
func Example() {
	dir, _ := os.MkdirTemp("", "gguf-example")
	defer os.RemoveAll(dir)
	var vocab bytes.Buffer
	_ = gguf.Write(&vocab, []gguf.KV{
		{Key: "tokenizer.ggml.model", Type: gguf.TypeString, Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Type: gguf.TypeArray, Value: gguf.Array{Elem: gguf.TypeString, Values: []any{"<unk>", "<s>", "</s>"}}},
	})
	_ = os.WriteFile(filepath.Join(dir, "vocab.gguf"), vocab.Bytes(), 0o644)

	m, err := gguf.WriteModelFile(filepath.Join(dir, "tiny.gguf"), gguf.ModelOptions{Vocab: filepath.Join(dir, "vocab.gguf"), Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, _ := gguf.ReadFile(m.Path)
	arch, _ := f.Lookup("general.architecture")
	d, _ := f.Lookup("llama.embedding_length")
	fmt.Println(arch, d, f.Tensors, "tensors,", m.Params, "parameters")
	// Output:
	// llama 64 20 tensors, 82432 parameters
}
