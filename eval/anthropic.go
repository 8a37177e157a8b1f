package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// anthropicDoc is one element of codebase_chunks.json.
type anthropicDoc struct {
	DocID   string  `json:"doc_id"`
	UUID    string  `json:"original_uuid"`
	Content *string `json:"content"`
	Chunks  []struct {
		ChunkID       string  `json:"chunk_id"`
		OriginalIndex *int    `json:"original_index"`
		Content       *string `json:"content"`
	} `json:"chunks"`
}

// anthropicContext is one element of contexts_claude3haiku.json.
type anthropicContext struct {
	DocID         string  `json:"doc_id"`
	UUID          string  `json:"original_uuid"`
	ChunkID       string  `json:"chunk_id"`
	OriginalIndex *int    `json:"original_index"`
	Context       *string `json:"context"`
}

// anthropicQuery is one line of evaluation_set.jsonl (fields the cookbook's
// evaluate_retrieval reads).
type anthropicQuery struct {
	Query            string              `json:"query"`
	Answer           string              `json:"answer"`
	GoldenChunkUUIDs [][]json.RawMessage `json:"golden_chunk_uuids"`
	GoldenDocuments  []struct {
		UUID   string `json:"uuid"`
		Chunks []struct {
			Index   int    `json:"index"`
			Content string `json:"content"`
		} `json:"chunks"`
	} `json:"golden_documents"`
}

// LoadAnthropic loads the Anthropic cookbook's Contextual Embeddings set:
// chunksPath is codebase_chunks.json, queriesPath evaluation_set.jsonl and
// contextsPath (optional, "" for none) a contexts file such as
// contexts_claude3haiku.json.
//
// Documents keep their doc_id ("doc_1") as ID; golden chunks, given in the
// file by document uuid, are resolved to ChunkRef{doc_id, original_index}.
// As in the cookbook's evaluate_retrieval, a golden chunk's text is taken from
// the query's own golden_documents and stripped; a golden pair that cannot be
// resolved is skipped, and a query left without golden chunks is skipped
// (the cookbook would still count it, as 0, in its average; the real set has
// none). Every comparison Pass@k makes is on these stripped texts, so
// duplicated chunks (the licence headers) count as found whichever copy is
// retrieved, exactly as in the cookbook.
// Query ids are "q" plus the line number in queriesPath.
func LoadAnthropic(chunksPath, queriesPath, contextsPath string) (*Dataset, error) {
	ds := &Dataset{Name: "anthropic-codebase"}
	byUUID, err := ds.loadAnthropicChunks(chunksPath)
	if err != nil {
		return nil, err
	}
	if contextsPath != "" {
		if err := ds.loadAnthropicContexts(contextsPath, byUUID); err != nil {
			return nil, err
		}
	}
	if err := ds.loadAnthropicQueries(queriesPath, byUUID); err != nil {
		return nil, err
	}
	return ds, nil
}

func (ds *Dataset) loadAnthropicChunks(path string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load anthropic chunks: %w", err)
	}
	ln := newLines(data)
	byUUID := map[string]int{} // uuid -> index in ds.Docs
	byID := map[string]bool{}
	_, err = eachArrayElement(path, data, 0, ln, func(line int, raw json.RawMessage) {
		var d anthropicDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			ds.skip(path, line, "document: %s", describeJSON(err))
			return
		}
		switch {
		case d.DocID == "":
			ds.skip(path, line, "document: missing doc_id")
			return
		case d.Content == nil:
			ds.skip(path, line, "document %s: missing content", d.DocID)
			return
		case byID[d.DocID]:
			ds.skip(path, line, "document %s: duplicate doc_id", d.DocID)
			return
		case d.UUID != "" && byUUID[d.UUID] > 0:
			ds.skip(path, line, "document %s: duplicate original_uuid %s", d.DocID, d.UUID)
			return
		}
		doc := Doc{ID: d.DocID, Text: *d.Content, Lang: "en"}
		seen := map[int]bool{}
		from := 0
		for i, c := range d.Chunks {
			switch {
			case c.Content == nil:
				ds.skip(path, line, "document %s: chunk %d (%s): missing content", d.DocID, i, c.ChunkID)
				continue
			case c.OriginalIndex == nil:
				ds.skip(path, line, "document %s: chunk %d (%s): missing original_index", d.DocID, i, c.ChunkID)
				continue
			case seen[*c.OriginalIndex]:
				ds.skip(path, line, "document %s: chunk %d (%s): duplicate original_index %d", d.DocID, i, c.ChunkID, *c.OriginalIndex)
				continue
			}
			seen[*c.OriginalIndex] = true
			start := locate(doc.Text, *c.Content, from)
			ch := Chunk{ID: c.ChunkID, Index: *c.OriginalIndex, Text: *c.Content, Start: start, End: -1}
			if start >= 0 {
				ch.End = start + len(ch.Text)
				from = start
			}
			doc.Chunks = append(doc.Chunks, ch)
		}
		byID[d.DocID] = true
		ds.Docs = append(ds.Docs, doc)
		if d.UUID != "" {
			byUUID[d.UUID] = len(ds.Docs) // 1-based so that 0 means absent
		}
	})
	if err != nil {
		return nil, fmt.Errorf("load anthropic chunks: %w", err)
	}
	if len(ds.Docs) == 0 {
		return nil, fmt.Errorf("load anthropic chunks: %s: no documents", path)
	}
	return byUUID, nil
}

// locate finds chunk in text, preferring the first occurrence at or after
// from (chunks come in order and may overlap); -1 if it does not occur.
func locate(text, chunk string, from int) int {
	if from > len(text) {
		from = len(text)
	}
	if i := strings.Index(text[from:], chunk); i >= 0 {
		return from + i
	}
	return strings.Index(text, chunk)
}

func (ds *Dataset) loadAnthropicContexts(path string, byUUID map[string]int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load anthropic contexts: %w", err)
	}
	docIdx := make(map[string]int, len(ds.Docs))
	for i, d := range ds.Docs {
		docIdx[d.ID] = i
	}
	have := map[ChunkRef]bool{}
	_, err = eachArrayElement(path, data, 0, newLines(data), func(line int, raw json.RawMessage) {
		var c anthropicContext
		if err := json.Unmarshal(raw, &c); err != nil {
			ds.skip(path, line, "context: %s", describeJSON(err))
			return
		}
		if c.Context == nil || c.OriginalIndex == nil {
			ds.skip(path, line, "context %s: missing context or original_index", c.ChunkID)
			return
		}
		di, ok := docIdx[c.DocID]
		if !ok && c.UUID != "" {
			if j := byUUID[c.UUID]; j > 0 {
				di, ok = j-1, true
			}
		}
		if !ok {
			ds.skip(path, line, "context %s: unknown document %q", c.ChunkID, c.DocID)
			return
		}
		doc := &ds.Docs[di]
		ref := ChunkRef{doc.ID, *c.OriginalIndex}
		if have[ref] {
			ds.skip(path, line, "context %s: duplicate context for chunk %s", c.ChunkID, ref)
			return
		}
		for k := range doc.Chunks {
			if doc.Chunks[k].Index == ref.Index {
				doc.Chunks[k].Context = *c.Context
				have[ref] = true
				return
			}
		}
		ds.skip(path, line, "context %s: unknown chunk %s", c.ChunkID, ref)
	})
	if err != nil {
		return fmt.Errorf("load anthropic contexts: %w", err)
	}
	for _, d := range ds.Docs {
		for _, c := range d.Chunks {
			if !have[ChunkRef{d.ID, c.Index}] {
				ds.skip(path, 0, "chunk %s#%d (%s) has no context", d.ID, c.Index, c.ID)
			}
		}
	}
	return nil
}

func (ds *Dataset) loadAnthropicQueries(path string, byUUID map[string]int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load anthropic queries: %w", err)
	}
	texts := ds.chunkTexts()
	eachLine(data, func(line int, text []byte) {
		var q anthropicQuery
		if err := json.Unmarshal(text, &q); err != nil {
			ds.skip(path, line, "query: %s", describeJSON(err))
			return
		}
		if strings.TrimSpace(q.Query) == "" {
			ds.skip(path, line, "query: missing query text")
			return
		}
		out := Query{ID: fmt.Sprintf("q%d", line), Text: q.Query, Lang: "en", Answer: q.Answer}
		for i, pair := range q.GoldenChunkUUIDs {
			var uuid string
			var idx int
			if len(pair) != 2 || json.Unmarshal(pair[0], &uuid) != nil || json.Unmarshal(pair[1], &idx) != nil {
				ds.skip(path, line, "query %s: golden_chunk_uuids[%d]: want [uuid, index]", out.ID, i)
				continue
			}
			di := byUUID[uuid]
			if di == 0 {
				ds.skip(path, line, "query %s: golden chunk %s#%d: unknown document", out.ID, uuid, idx)
				continue
			}
			ref := ChunkRef{ds.Docs[di-1].ID, idx}
			if _, ok := texts[ref]; !ok {
				ds.skip(path, line, "query %s: golden chunk %s (%s#%d): unknown chunk", out.ID, ref, uuid, idx)
				continue
			}
			// The cookbook reads the golden content from the query's own
			// golden_documents and drops the pair when it is not there.
			content, found := "", false
			for _, gd := range q.GoldenDocuments {
				if gd.UUID != uuid {
					continue
				}
				for _, gc := range gd.Chunks {
					if gc.Index == idx {
						content, found = gc.Content, true
						break
					}
				}
				break
			}
			if !found {
				ds.skip(path, line, "query %s: golden chunk %s: not in golden_documents", out.ID, ref)
				continue
			}
			out.Golden = append(out.Golden, ref)
			out.GoldenText = append(out.GoldenText, Strip(content))
		}
		if len(out.Golden) == 0 {
			ds.skip(path, line, "query %s: no golden chunk", out.ID)
			return
		}
		ds.Queries = append(ds.Queries, out)
	})
	if len(ds.Queries) == 0 {
		return fmt.Errorf("load anthropic queries: %s: no usable queries (%d skipped)", path, len(ds.Skipped))
	}
	return nil
}
