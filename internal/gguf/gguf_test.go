package gguf_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/situate/situate/internal/gguf"
)

// vocab writes a small vocabulary-only GGUF like llama.cpp's
// models/ggml-vocab-*.gguf.
func vocab(t testing.TB, n int, template bool) string {
	t.Helper()
	toks := gguf.Array{Elem: gguf.TypeString}
	scores := gguf.Array{Elem: gguf.TypeFloat32}
	types := gguf.Array{Elem: gguf.TypeInt32}
	for i := 0; i < n; i++ {
		toks.Values = append(toks.Values, string(rune('a'+i%26))+strings.Repeat("x", i/26))
		scores.Values = append(scores.Values, float32(-i))
		types.Values = append(types.Values, int32(1))
	}
	kv := []gguf.KV{
		{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"},
		{Key: "tokenizer.ggml.model", Type: gguf.TypeString, Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Type: gguf.TypeArray, Value: toks},
		{Key: "tokenizer.ggml.scores", Type: gguf.TypeArray, Value: scores},
		{Key: "tokenizer.ggml.token_type", Type: gguf.TypeArray, Value: types},
		{Key: "tokenizer.ggml.bos_token_id", Type: gguf.TypeUint32, Value: uint32(1)},
		{Key: "tokenizer.ggml.add_bos_token", Type: gguf.TypeBool, Value: true},
	}
	if template {
		kv = append(kv, gguf.KV{Key: "tokenizer.chat_template", Type: gguf.TypeString, Value: "{{ messages }}"})
	}
	path := filepath.Join(t.TempDir(), "vocab.gguf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := gguf.Write(f, kv); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestWriteModelLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gguf")
	m, err := gguf.WriteModelFile(path, gguf.ModelOptions{Vocab: vocab(t, 100, false), Layers: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Size() != m.Bytes || m.VocabSize != 100 {
		t.Fatalf("model %+v, file %d bytes", m, st.Size())
	}
	// token_embd 64x100, per layer 4 attn 64x64 + 3 ffn 64x128 + 2 norms, output_norm.
	wantParams := uint64(64*100 + 3*(4*64*64+3*64*128+2*64) + 64)
	if m.Params != wantParams {
		t.Errorf("params = %d, want %d", m.Params, wantParams)
	}
	f, err := gguf.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Tensors != 1+3*9+1 {
		t.Errorf("version %d, %d tensors", f.Version, f.Tensors)
	}
	for key, want := range map[string]any{
		"general.architecture":                   "llama",
		"llama.embedding_length":                 uint32(64),
		"llama.block_count":                      uint32(3),
		"llama.attention.head_count":             uint32(4),
		"llama.rope.dimension_count":             uint32(16),
		"llama.vocab_size":                       uint32(100),
		"tokenizer.ggml.bos_token_id":            uint32(1),
		"tokenizer.chat_template":                gguf.DefaultChatTemplate,
		"tokenizer.ggml.add_bos_token":           true,
		"llama.attention.head_count_kv":          uint32(4),
		"llama.context_length":                   uint32(gguf.DefaultContextLength),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
	} {
		if got, ok := f.Lookup(key); !ok || got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	toks, _ := f.Lookup("tokenizer.ggml.tokens")
	if a := toks.(gguf.Array); len(a.Values) != 100 || a.Values[27] != "bx" {
		t.Errorf("tokens not copied: %v", a.Values[:3])
	}
	// Tensor data starts aligned and the file ends on an aligned offset.
	if st.Size()%gguf.DefaultAlignment != 0 {
		t.Errorf("size %d not aligned", st.Size())
	}
}

func TestWriteModelDeterministic(t *testing.T) {
	v := vocab(t, 50, true)
	sum := func(seed uint64) [32]byte {
		var buf bytes.Buffer
		if _, err := gguf.WriteModel(&buf, gguf.ModelOptions{Vocab: v, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(buf.Bytes())
	}
	if sum(1) != sum(1) {
		t.Error("same seed, different files")
	}
	if sum(1) == sum(2) {
		t.Error("different seeds, same file")
	}
	var buf bytes.Buffer
	_, _ = gguf.WriteModel(&buf, gguf.ModelOptions{Vocab: v})
	f, _ := gguf.Read(&buf)
	if tmpl, _ := f.Lookup("tokenizer.chat_template"); tmpl != "{{ messages }}" {
		t.Errorf("vocabulary's own template replaced: %v", tmpl)
	}
}

func TestWriteModelErrors(t *testing.T) {
	v := vocab(t, 10, false)
	for name, o := range map[string]gguf.ModelOptions{
		"Vocab":     {},
		"Embedding": {Vocab: v, Embedding: 60, Heads: 8},
		"Layers":    {Vocab: v, Layers: -1},
		"missing":   {Vocab: filepath.Join(t.TempDir(), "nope.gguf")},
	} {
		if _, err := gguf.WriteModel(io.Discard, o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A vocabulary without tokens.
	path := filepath.Join(t.TempDir(), "empty.gguf")
	f, _ := os.Create(path)
	_ = gguf.Write(f, []gguf.KV{{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"}})
	f.Close()
	if _, err := gguf.WriteModel(io.Discard, gguf.ModelOptions{Vocab: path}); err == nil || !strings.Contains(err.Error(), "tokenizer.ggml.tokens") {
		t.Errorf("vocabulary without tokens: %v", err)
	}
}

func TestReadRejectsCorruptFiles(t *testing.T) {
	var buf bytes.Buffer
	_ = gguf.Write(&buf, []gguf.KV{{Key: "k", Type: gguf.TypeString, Value: "v"}})
	good := buf.Bytes()
	if _, err := gguf.Read(bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(good); i++ {
		if _, err := gguf.Read(bytes.NewReader(good[:i])); err == nil {
			t.Fatalf("truncated at %d: no error", i)
		}
	}
	bad := append([]byte("GGML"), good[4:]...)
	if _, err := gguf.Read(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("bad magic: %v", err)
	}
	huge := append([]byte(nil), good...)
	copy(huge[24:32], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}) // key length
	if _, err := gguf.Read(bytes.NewReader(huge)); err == nil {
		t.Error("huge string length: no error")
	}
	if _, err := gguf.Read(bytes.NewReader(nil)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("empty: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	_ = gguf.Write(&buf, []gguf.KV{{Key: "a", Type: gguf.TypeArray, Value: gguf.Array{Elem: gguf.TypeUint16, Values: []any{uint16(1), uint16(2)}}}})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		f, err := gguf.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := gguf.Write(&out, f.KV); err != nil {
			t.Fatalf("re-writing a parsed file: %v", err)
		}
		g, err := gguf.Read(&out)
		if err != nil || len(g.KV) != len(f.KV) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
