package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Defaults of ModelOptions.
const (
	DefaultLayers        = 2
	DefaultEmbedding     = 64
	DefaultFeedForward   = 128
	DefaultHeads         = 4
	DefaultContextLength = 32768
	DefaultSeed          = 1
	// DefaultChatTemplate is ChatML, which llama.cpp recognises by name; it
	// is set when the vocabulary file has no tokenizer.chat_template. The
	// user message comes right after a fixed header, so two prompts that
	// share a leading text share a token prefix.
	DefaultChatTemplate = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

// ModelOptions describe a tiny random-weight llama-architecture model.
type ModelOptions struct {
	// Vocab is a vocabulary-only GGUF file (llama.cpp's
	// models/ggml-vocab-*.gguf) whose tokenizer.* metadata is copied.
	// Required.
	Vocab string
	// Name is general.name; default "situate-tiny-llama".
	Name string
	// Layers, Embedding, FeedForward, Heads and ContextLength shape the
	// model; Embedding must be a multiple of Heads with an even head size.
	Layers, Embedding, FeedForward, Heads, ContextLength int
	// Seed makes the weights reproducible.
	Seed uint64
	// ChatTemplate overrides tokenizer.chat_template; empty keeps the
	// vocabulary's own or, when it has none, DefaultChatTemplate.
	ChatTemplate string
}

func (o *ModelOptions) defaults() error {
	if o.Vocab == "" {
		return fmt.Errorf("gguf: model options: Vocab: empty")
	}
	if o.Name == "" {
		o.Name = "situate-tiny-llama"
	}
	set := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	set(&o.Layers, DefaultLayers)
	set(&o.Embedding, DefaultEmbedding)
	set(&o.FeedForward, DefaultFeedForward)
	set(&o.Heads, DefaultHeads)
	set(&o.ContextLength, DefaultContextLength)
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Layers", o.Layers}, {"Embedding", o.Embedding}, {"FeedForward", o.FeedForward}, {"Heads", o.Heads}, {"ContextLength", o.ContextLength}} {
		if f.v < 0 || f.v > 1<<20 {
			return fmt.Errorf("gguf: model options: %s %d: out of range", f.name, f.v)
		}
	}
	if o.Embedding%o.Heads != 0 || (o.Embedding/o.Heads)%2 != 0 {
		return fmt.Errorf("gguf: model options: Embedding %d: must be a multiple of Heads %d with an even head size", o.Embedding, o.Heads)
	}
	return nil
}

// tensor is one tensor to write: ggml dims (ne0 first) and how to fill it.
type tensor struct {
	name string
	dims []uint64
	ones bool // norm weights
}

func (t tensor) elems() uint64 {
	n := uint64(1)
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// Model describes a written model.
type Model struct {
	Path      string
	VocabSize int
	Params    uint64
	Bytes     int64
}

// WriteModelFile writes the model to path (atomically: a temporary file is
// renamed into place).
func WriteModelFile(path string, opts ModelOptions) (Model, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gguf-*")
	if err != nil {
		return Model{}, fmt.Errorf("gguf: write model: %w", err)
	}
	defer os.Remove(tmp.Name())
	m, err := WriteModel(tmp, opts)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("gguf: write model %s: %w", path, cerr)
	}
	if err != nil {
		return m, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return m, fmt.Errorf("gguf: write model: %w", err)
	}
	m.Path = path
	return m, nil
}

// WriteModel writes a GGUF v3 llama model: the vocabulary's tokenizer
// metadata, the architecture's hyperparameters, and f32 tensors with
// seeded random weights (normal, std 0.02; norms 1). The output projection
// is tied to the token embedding (no output.weight).
func WriteModel(w io.Writer, opts ModelOptions) (Model, error) {
	if err := opts.defaults(); err != nil {
		return Model{}, err
	}
	vocab, err := ReadFile(opts.Vocab)
	if err != nil {
		return Model{}, fmt.Errorf("gguf: model options: Vocab: %w", err)
	}
	tokens, ok := vocab.Lookup("tokenizer.ggml.tokens")
	arr, isArr := tokens.(Array)
	if !ok || !isArr || len(arr.Values) == 0 {
		return Model{}, fmt.Errorf("gguf: model options: Vocab %s: no tokenizer.ggml.tokens", opts.Vocab)
	}
	nVocab := uint64(len(arr.Values))

	const arch = "llama"
	kv := []KV{
		{"general.architecture", TypeString, arch},
		{"general.name", TypeString, opts.Name},
		{"general.alignment", TypeUint32, uint32(DefaultAlignment)},
		{"general.file_type", TypeUint32, uint32(0)}, // all F32
		{arch + ".context_length", TypeUint32, uint32(opts.ContextLength)},
		{arch + ".embedding_length", TypeUint32, uint32(opts.Embedding)},
		{arch + ".block_count", TypeUint32, uint32(opts.Layers)},
		{arch + ".feed_forward_length", TypeUint32, uint32(opts.FeedForward)},
		{arch + ".attention.head_count", TypeUint32, uint32(opts.Heads)},
		{arch + ".attention.head_count_kv", TypeUint32, uint32(opts.Heads)},
		{arch + ".rope.dimension_count", TypeUint32, uint32(opts.Embedding / opts.Heads)},
		{arch + ".attention.layer_norm_rms_epsilon", TypeFloat32, float32(1e-5)},
		{arch + ".vocab_size", TypeUint32, uint32(nVocab)},
	}
	hasTemplate := false
	for _, x := range vocab.KV {
		if !strings.HasPrefix(x.Key, "tokenizer.") {
			continue
		}
		if x.Key == "tokenizer.chat_template" {
			if opts.ChatTemplate != "" {
				continue
			}
			hasTemplate = true
		}
		kv = append(kv, x)
	}
	if opts.ChatTemplate != "" {
		kv = append(kv, KV{"tokenizer.chat_template", TypeString, opts.ChatTemplate})
	} else if !hasTemplate {
		kv = append(kv, KV{"tokenizer.chat_template", TypeString, DefaultChatTemplate})
	}

	d, ff := uint64(opts.Embedding), uint64(opts.FeedForward)
	tensors := []tensor{{name: "token_embd.weight", dims: []uint64{d, nVocab}}}
	for l := range opts.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		tensors = append(tensors,
			tensor{name: p + "attn_norm.weight", dims: []uint64{d}, ones: true},
			tensor{name: p + "attn_q.weight", dims: []uint64{d, d}},
			tensor{name: p + "attn_k.weight", dims: []uint64{d, d}},
			tensor{name: p + "attn_v.weight", dims: []uint64{d, d}},
			tensor{name: p + "attn_output.weight", dims: []uint64{d, d}},
			tensor{name: p + "ffn_norm.weight", dims: []uint64{d}, ones: true},
			tensor{name: p + "ffn_gate.weight", dims: []uint64{d, ff}},
			tensor{name: p + "ffn_down.weight", dims: []uint64{ff, d}},
			tensor{name: p + "ffn_up.weight", dims: []uint64{d, ff}},
		)
	}
	tensors = append(tensors, tensor{name: "output_norm.weight", dims: []uint64{d}, ones: true})

	bw := bufio.NewWriterSize(w, 1<<16)
	e := &encoder{w: bw}
	e.u32(Magic)
	e.u32(Version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kv)))
	for _, x := range kv {
		e.str(x.Key)
		e.u32(uint32(x.Type))
		e.value(x.Type, x.Value)
	}
	var offset, params uint64
	for _, t := range tensors {
		e.str(t.name)
		e.u32(uint32(len(t.dims)))
		for _, dim := range t.dims {
			e.u64(dim)
		}
		e.u32(TensorTypeF32)
		e.u64(offset)
		size := t.elems() * 4
		params += t.elems()
		offset += align(size)
	}
	e.pad()
	rng := rand.New(rand.NewPCG(opts.Seed, 0x5e7a7e))
	buf := make([]byte, 0, 1<<16)
	for _, t := range tensors {
		n := t.elems()
		for i := uint64(0); i < n; i++ {
			v := float32(1)
			if !t.ones {
				v = float32(rng.NormFloat64() * 0.02)
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			if len(buf) == cap(buf) {
				e.write(buf)
				buf = buf[:0]
			}
		}
		e.write(buf)
		buf = buf[:0]
		e.pad()
	}
	if e.err == nil {
		e.err = bw.Flush()
	}
	if e.err != nil {
		return Model{}, fmt.Errorf("gguf: write model: %w", e.err)
	}
	return Model{VocabSize: int(nVocab), Params: params, Bytes: e.n}, nil
}

func align(n uint64) uint64 {
	return (n + DefaultAlignment - 1) / DefaultAlignment * DefaultAlignment
}

func (e *encoder) pad() {
	if r := uint64(e.n) % DefaultAlignment; r != 0 {
		e.write(make([]byte, DefaultAlignment-r))
	}
}
