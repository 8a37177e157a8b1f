package eval

import (
	"path/filepath"
	"testing"
)

func BenchmarkLoad(b *testing.B) {
	b.Run("set=codebase", func(b *testing.B) {
		d := filepath.Join(dataDir(b), "codebase")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := LoadAnthropic(filepath.Join(d, "codebase_chunks.json"), filepath.Join(d, "evaluation_set.jsonl"), filepath.Join(d, "contexts_claude3haiku.json")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("set=cacm", func(b *testing.B) {
		d := filepath.Join(dataDir(b), "cacm")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := LoadTREC(filepath.Join(d, "cacm.tar.gz"), filepath.Join(d, "topics.cacm.txt"), filepath.Join(d, "qrels.cacm.txt")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("set=xquad-en", func(b *testing.B) {
		p := filepath.Join(dataDir(b), "xquad", "xquad.en.json")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := LoadSQuAD(p, "en"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEvaluate scores a 100-deep run for every codebase query.
func BenchmarkEvaluate(b *testing.B) {
	ds := loadCodebase(b)
	var all []Ranked
	for _, d := range ds.Docs {
		for _, c := range d.Chunks {
			all = append(all, Ranked{DocID: d.ID, Chunk: c.Index, Text: c.Text})
		}
	}
	run := Run{}
	for i, q := range ds.Queries {
		run[q.ID] = all[i%600 : i%600+100]
	}
	b.ReportAllocs()
	for b.Loop() {
		Evaluate(ds, run)
	}
}
