package situate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/situate/situate/chunk"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/vector"
)

const (
	vectorDirName = "vectors"
	metaEmbedder  = "engine.embedder"
	// FlagEmbedShortened marks a context shortened (or a chunk whose tail
	// was cut) to fit the embedder's input limit; the BM25 arm still sees
	// the whole text.
	FlagEmbedShortened = "embed-shortened"
)

// storedVectors embeds a stored document's chunks again (through the
// embedder, whose cache usually has them).
func (e *Engine) storedVectors(ctx context.Context, rec DocumentRecord) ([]vector.Item, error) {
	chunks, err := e.store.Chunks(ctx, rec.ID)
	if err != nil {
		return nil, err
	}
	vecs, err := e.storedEmbeddings(ctx, chunks)
	if err != nil {
		return nil, err
	}
	return vectorItems(rec.ID, vecs), nil
}

// storedEmbeddings are the vectors of stored chunks, embedded again
// through the embedder, whose cache usually has them.
func (e *Engine) storedEmbeddings(ctx context.Context, chunks []StoredChunk) ([][]float32, error) {
	if len(chunks) == 0 {
		return nil, nil
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i], _ = e.embedText(c.Context.Text, c.Text)
	}
	return e.embed(ctx, chunks[0].DocID, texts)
}

func vectorItems(docID string, vecs [][]float32) []vector.Item {
	items := make([]vector.Item, len(vecs))
	for i, v := range vecs {
		items[i] = vector.Item{ID: chunkKey(docID, i), Group: docID, Vector: v}
	}
	return items
}

// embed calls the embedder and checks its answer.
func (e *Engine) embed(ctx context.Context, docID string, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vecs, err := e.opts.Embedder.Embed(ctx, texts, driver.InputDocument)
	if err != nil {
		return nil, fmt.Errorf("embed %s: %w", docID, err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embed %s: %s returned %d vectors for %d texts", docID, e.opts.Embedder.Name(), len(vecs), len(texts))
	}
	return vecs, nil
}

// embedText is the text the dense arm embeds: the context prepended to the
// chunk, shortened to the embedder's input limit when one is set — the
// context first, then the chunk's tail — never silently.
func (e *Engine) embedText(context, text string) (string, bool) {
	full := driver.Contextualize(context, text)
	max := e.opts.EmbedMaxTokens
	count := e.opts.EmbedTokenCounter
	if count == nil {
		count = chunk.CountTokens
	}
	if max <= 0 || count(full) <= max {
		return full, false
	}
	words := strings.Fields(context)
	for len(words) > 0 {
		words = words[:len(words)/2]
		if s := driver.Contextualize(strings.Join(words, " "), text); count(s) <= max {
			return s, true
		}
	}
	// The chunk alone is too long: keep the longest prefix that fits.
	runes := []rune(text)
	lo, hi := 0, len(runes)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if count(string(runes[:mid])) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(runes[:lo]), true
}

// embedPrepared embeds a prepared document's contextualized chunks.
func (e *Engine) embedPrepared(ctx context.Context, p *Prepared) error {
	if e.opts.Embedder == nil {
		return nil
	}
	texts := make([]string, len(p.chunks))
	for i, c := range p.chunks {
		var shortened bool
		texts[i], shortened = e.embedText(p.contexts[i].Text, c.Text)
		if shortened && !slices.Contains(p.contexts[i].Flags, FlagEmbedShortened) {
			p.contexts[i].Flags = append(slices.Clone(p.contexts[i].Flags), FlagEmbedShortened)
		}
	}
	vecs, err := e.embed(ctx, p.doc.ID, texts)
	if err != nil {
		return err
	}
	p.vectors = vecs
	return nil
}

// replaceVectors replaces the vectors of whole documents, creating the index
// on first use with the dimension of the first vector.
func (e *Engine) replaceVectors(batch map[string][]vector.Item) error {
	e.vecMu.Lock()
	defer e.vecMu.Unlock()
	if e.vec == nil {
		dim := 0
		for _, items := range batch {
			if len(items) > 0 {
				dim = len(items[0].Vector)
				break
			}
		}
		if dim == 0 {
			return nil // nothing to index yet
		}
		var err error
		vo := e.vectorOptions(dim)
		if e.vecDir == "" {
			e.vec, err = vector.New(vo)
		} else {
			e.vec, err = vector.Open(e.vecDir, vo)
		}
		if err != nil {
			return fmt.Errorf("vector index: %w", err)
		}
	}
	return e.vec.ReplaceBatch(batch)
}

func (e *Engine) deleteVectors(id string) error {
	e.vecMu.Lock()
	defer e.vecMu.Unlock()
	if e.vec == nil {
		return nil
	}
	return e.vec.Delete(id)
}

// vectorOptions are the vector index's options (dim 0: the stored one).
// With a reranker, the fused top RerankCandidates all reach it, so the
// first pass's error bound protects that many dense results instead of
// vector.DefaultBoundDepth: the reranker can only promote what it sees.
func (e *Engine) vectorOptions(dim int) vector.Options {
	o := vector.Options{Dim: dim, QuantizeAbove: e.opts.VectorQuantizeAbove}
	if e.opts.Reranker != nil {
		o.BoundDepth = max(e.opts.RerankCandidates, vector.DefaultBoundDepth)
	}
	return o
}
