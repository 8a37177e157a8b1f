package questions

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/situate/situate/chunk"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/ingest"
)

// loadSources reads example folders as "situate index" would, chunked
// small (size tokens) so that the few example files give many chunks.
func loadSources(t testing.TB, size int, dirs ...string) []Source {
	t.Helper()
	var srcs []Source
	err := ingest.Walk(context.Background(), dirs, ingest.Options{}, func(doc driver.Document, err error) error {
		if err != nil {
			return err
		}
		spans, err := chunk.Split(doc.Text, chunk.Options{Size: size, Overlap: 0, Format: doc.Format, Path: doc.Path})
		if err != nil {
			return err
		}
		s := Source{Doc: doc}
		for i, sp := range spans {
			s.Chunks = append(s.Chunks, driver.Chunk{DocID: doc.ID, Index: i, Start: sp.Start, End: sp.End,
				Text: doc.Text[sp.Start:sp.End], Heading: sp.Heading, Tokens: sp.Tokens})
		}
		srcs = append(srcs, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

// Scripted behaviours of the fake model, chosen per chunk by a hash of its
// text so that the expected outcome of every item is known in advance.
const (
	kindGood = iota
	kindWrongLang
	kindCopied
	kindNotInChunk
	kindDuplicate
	kindPreamble
	kindMalformed
	numKinds
)

func kindOf(chunkText string) int {
	h := fnv.New32a()
	h.Write([]byte(chunkText))
	k := int(h.Sum32() % (2 * numKinds))
	if k >= numKinds {
		return kindGood // half of the items are good
	}
	return k
}

// goodQuestion is an anchored (number), language-correct question that
// shares little wording with any chunk.
func goodQuestion(lang string, n int) string {
	switch lang {
	case driver.LangGerman:
		return fmt.Sprintf("Welcher Teil der Sammlung erklärt das Thema Nummer %d?", n)
	case driver.LangSpanish:
		return fmt.Sprintf("¿Qué parte de la colección explica el tema número %d?", n)
	case driver.LangRussian:
		return fmt.Sprintf("Какая часть коллекции объясняет тему номер %d?", n)
	case driver.LangChinese:
		return fmt.Sprintf("文档集中哪一部分解释了第%d个主题？", n)
	}
	return fmt.Sprintf("Which part of the collection explains the topic number %d?", n)
}

// langOfSuffix tells the prompt's language from its localized instruction.
func langOfSuffix(suffix string) string {
	for l, in := range instructions {
		if strings.HasPrefix(suffix, in.intro) {
			return l
		}
	}
	return ""
}

// answerSpan is a passage of the chunk: the first line with at least four
// words, cut to 80 bytes on a rune boundary.
func answerSpan(chunkText string) string {
	for _, l := range strings.Split(chunkText, "\n") {
		l = strings.TrimSpace(l)
		if len(strings.Fields(l)) >= 4 || (len([]rune(l)) >= 12 && !strings.ContainsAny(l, " ")) {
			if len(l) > 80 {
				cut := 80
				for cut > 0 && (l[cut]&0xC0) == 0x80 {
					cut--
				}
				l = strings.TrimSpace(l[:cut])
			}
			return strings.Trim(l, "\"“”«»「」")
		}
	}
	return strings.TrimSpace(chunkText)
}

// scripted answers a suffix as the fake model, counting the calls.
type scripted struct {
	mu    sync.Mutex
	calls int
}

func (s *scripted) answer(suffix string) string {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	lang := langOfSuffix(suffix)
	ch := suffix
	if i := strings.Index(ch, "\n<chunk>\n"); i >= 0 {
		ch = ch[i+len("\n<chunk>\n"):]
		ch = ch[:strings.LastIndex(ch, "\n</chunk>\n")]
	}
	h := fnv.New32a()
	h.Write([]byte(ch))
	n := int(h.Sum32()%9000) + 10
	ans := answerSpan(ch)
	switch kindOf(ch) {
	case kindWrongLang:
		q := goodQuestion(driver.LangGerman, n)
		if lang == driver.LangGerman {
			q = goodQuestion(driver.LangEnglish, n)
		}
		return "QUESTION: " + q + "\nANSWER: " + ans
	case kindCopied:
		return "QUESTION: " + strings.Join(strings.Fields(ch), " ") + "?\nANSWER: " + ans
	case kindNotInChunk:
		return "QUESTION: " + goodQuestion(lang, n) + "\nANSWER: zebra quokka 4711 nowhere in the chunk"
	case kindDuplicate:
		return "QUESTION: " + goodQuestion(lang, 999999) + "\nANSWER: " + ans
	case kindPreamble:
		return "Here is a question:\nQUESTION: " + goodQuestion(lang, n) + "\nANSWER: " + ans
	case kindMalformed:
		return "QUESTION: " + goodQuestion(lang, n)
	}
	return "QUESTION: " + goodQuestion(lang, n) + "\nANSWER: " + ans
}

// expectDrops computes the outcome of every pick from the script: the
// reason each is dropped; for duplicates the first of each language is
// kept.
func expectDrops(srcs []Source, picks []Pick) map[string]int {
	want := map[string]int{}
	dupSeen := map[string]bool{}
	for _, p := range picks {
		c := srcs[p.Source].Chunks[p.Chunk].Text
		switch kindOf(c) {
		case kindWrongLang:
			want[ReasonWrongLanguage]++
		case kindCopied:
			want[ReasonCopied]++
		case kindNotInChunk:
			want[ReasonAnswerNotInChunk]++
		case kindDuplicate:
			l := p.Lang
			if _, ok := instructions[l]; !ok {
				l = driver.LangEnglish
			}
			if dupSeen[l] {
				want[ReasonDuplicate]++
			}
			dupSeen[l] = true
		case kindPreamble:
			want[ReasonPreamble]++
		case kindMalformed:
			want[ReasonMalformed]++
		}
	}
	return want
}

func exampleDirs() []string {
	return []string{filepath.Join("..", "examples", "corpus"), filepath.Join("..", "examples", "multilingual")}
}

func checkDrops(t *testing.T, srcs []Source, res *Result, opts Options) {
	t.Helper()
	picks, _ := Sample(srcs, opts.N, opts.Seed, DefaultMinChunkTerms)
	want := expectDrops(srcs, picks)
	for _, why := range Reasons {
		if res.Dropped[why] != want[why] {
			t.Errorf("dropped for %s: %d, want %d", why, res.Dropped[why], want[why])
		}
	}
	for _, why := range []string{ReasonWrongLanguage, ReasonCopied, ReasonAnswerNotInChunk, ReasonDuplicate, ReasonPreamble, ReasonMalformed} {
		if want[why] == 0 {
			t.Errorf("the sample exercises no %s item", why)
		}
	}
	if len(res.All) != len(picks) || len(res.Items)+sum(res.Dropped) != len(picks) {
		t.Errorf("%d picks, %d answered, %d kept + %d dropped", len(picks), len(res.All), len(res.Items), sum(res.Dropped))
	}
	for _, it := range res.Items {
		src := sourceOf(srcs, it.Doc)
		if !strings.Contains(src.Doc.Text[it.Start:it.End], it.Answer) {
			t.Errorf("%s: answer %q not in its span", it.ID, it.Answer)
		}
	}
}

func sourceOf(srcs []Source, id string) Source {
	for _, s := range srcs {
		if s.Doc.ID == id {
			return s
		}
	}
	return Source{}
}

func datasetBytes(t *testing.T, items []Item) []byte {
	var b bytes.Buffer
	if err := WriteDataset(&b, items); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
