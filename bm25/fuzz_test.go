package bm25

import (
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// FuzzSegment damages a valid segment, fixes its checksum (as a malicious
// or buggy writer could), and checks that opening and searching it never
// panics: the checksum guards against accidents, the decoder against the rest.
func FuzzSegment(f *testing.F) {
	ix, err := New(Options{Analyzer: "english", Fields: []Field{{"text", 1}, {"title", 2}}})
	if err != nil {
		f.Fatal(err)
	}
	var docs []Doc
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	for i := 0; i < 300; i++ {
		text := ""
		for j := 0; j < 1+i%17; j++ {
			text += words[(i*j+j)%len(words)] + " "
		}
		docs = append(docs, Doc{ID: string(rune('a'+i%26)) + string(rune('0'+i/26)), Group: "g", Attrs: map[string]string{"k": "v"},
			Fields: map[string]string{"text": text, "title": words[i%len(words)]}})
	}
	analyzed, err := ix.analyzeDocs(docs)
	if err != nil {
		f.Fatal(err)
	}
	valid, err := buildSegment([]string{"text", "title"}, analyzed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(100), byte(0xff), uint32(0))
	f.Add(uint32(len(valid)-40), byte(3), uint32(0))
	f.Add(uint32(len(valid)/2), byte(0), uint32(7))
	f.Fuzz(func(t *testing.T, pos uint32, val byte, cut uint32) {
		data := append([]byte(nil), valid...)
		tableOff := int(binary.LittleEndian.Uint64(data[len(data)-footerSize:]))
		data[int(pos)%tableOff] = val
		if c := int(cut) % 64; c > 0 && c < tableOff-len(segMagic) {
			// Drop c bytes before the block table (the table then
			// covers fewer bytes than it says, unless resealed below
			// with the new offset).
			data = append(data[:tableOff-c], data[tableOff:]...)
			tableOff -= c
			binary.LittleEndian.PutUint64(data[len(data)-footerSize:], uint64(tableOff))
		}
		data = reseal(data, tableOff, crcBlockSize)
		seg, err := openSegment("fuzz", data)
		if err == nil {
			seg.name = "fuzz.seg" // verified lazily like a file
		}
		if err != nil {
			return
		}
		snap := newSnapshot(ix, []snapSeg{{seg: seg}}, 1)
		ix.snap.Store(snap)
		ix.Stats()
		for _, q := range []string{"alpha beta", "theta eta zeta", "epsilon"} {
			ix.Search(Query{Text: q, K: 5})
			ix.Search(Query{Text: q, K: 1000, Filter: &Filter{Accept: func(id, g string, a map[string]string) bool { return true }}})
		}
	})
}

// reseal rewrites the block checksum table and the footer of a format 2
// segment whose bytes before tableOff changed, as a buggy or malicious
// writer could: the checksums then guard nothing and the decoder must.
func reseal(data []byte, tableOff, bsize int) []byte {
	out := append([]byte(nil), data[:tableOff]...)
	for lo := 0; lo < tableOff; lo += bsize {
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out[lo:min(lo+bsize, tableOff)], castagnoli))
	}
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out[tableOff:], castagnoli))
	foot := data[len(data)-footerSize:]
	out = append(out, foot[:16]...)
	binary.LittleEndian.PutUint64(out[len(out)-16:], uint64(tableOff))
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
	return append(out, footMagic...)
}
