package llm

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/situate/situate/driver"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// The reference prompt as published in Anthropic's contextual retrieval
// guide; the English template must be exactly this.
const publishedPrompt = "<document>\n{{WHOLE_DOCUMENT}}\n</document>\nHere is the chunk we want to situate within the whole document\n<chunk>\n{{CHUNK_CONTENT}}\n</chunk>\nPlease give a short succinct context to situate this chunk within the overall document for the purposes of improving search retrieval of the chunk. Answer only with the succinct context and nothing else."

func TestReferencePrompt(t *testing.T) {
	if ReferencePrompt != publishedPrompt {
		t.Fatal("ReferencePrompt differs from the published prompt")
	}
	tm := BuiltinTemplate("en")
	doc, chunk := "Line one.\nLine two.", "Line two."
	want := strings.NewReplacer(DocumentPlaceholder, doc, ChunkPlaceholder, chunk).Replace(publishedPrompt)
	if got := tm.Prefix(doc, "") + tm.Suffix(chunk); got != want {
		t.Errorf("rendered prompt:\n%s\nwant:\n%s", got, want)
	}
	if p := tm.Prefix(doc, ""); p != "<document>\n"+doc+"\n</document>\n" {
		t.Errorf("prefix = %q", p)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n%s", path, got)
	}
}

func promptsFor(t *testing.T, o Options, doc driver.Document, chunks []driver.Chunk) []fakeCall {
	t.Helper()
	f := newFake()
	f.ttft, f.latency = 0, 0
	c := mustNew(t, f, o)
	if _, err := c.Contextualize(context.Background(), doc, chunks); err != nil {
		t.Fatal(err)
	}
	calls := f.snapshot()
	// Order by chunk for stable goldens.
	byChunk := map[string]fakeCall{}
	for _, c := range calls {
		byChunk[c.Chunk] = c
	}
	out := make([]fakeCall, 0, len(chunks))
	for _, ch := range chunks {
		out = append(out, byChunk[ch.Text])
	}
	return out
}

func render(calls []fakeCall) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteString("\n======== next call ========\n")
		}
		b.WriteString(c.Prefix)
		b.WriteString("-------- cache boundary --------\n")
		b.WriteString(c.Suffix)
	}
	return b.String()
}

var sampleDocs = map[string]struct{ text, chunk2 string }{
	"en": {"ACME Corp annual report 2023.\n\nRevenue grew by 3% over the previous quarter.", "Revenue grew by 3% over the previous quarter."},
	"de": {"Jahresbericht der ACME GmbH 2023.\n\nDer Umsatz stieg gegenüber dem Vorquartal um 3 %.", "Der Umsatz stieg gegenüber dem Vorquartal um 3 %."},
	"es": {"Informe anual de ACME S.A. 2023.\n\nLos ingresos crecieron un 3 % respecto al trimestre anterior.", "Los ingresos crecieron un 3 % respecto al trimestre anterior."},
	"ru": {"Годовой отчёт ООО «АКМЕ» за 2023 год.\n\nВыручка выросла на 3 % по сравнению с предыдущим кварталом.", "Выручка выросла на 3 % по сравнению с предыдущим кварталом."},
	"zh": {"ACME公司2023年年度报告。\n\n收入比上一季度增长了3%。", "收入比上一季度增长了3%。"},
}

func sampleDoc(lang string) (driver.Document, []driver.Chunk) {
	s := sampleDocs[lang]
	i := strings.Index(s.text, s.chunk2)
	doc := driver.Document{ID: "report-" + lang, Text: s.text, Lang: lang}
	return doc, []driver.Chunk{
		{DocID: doc.ID, Index: 0, Start: 0, End: strings.IndexByte(s.text, '\n'), Text: s.text[:strings.IndexByte(s.text, '\n')]},
		{DocID: doc.ID, Index: 1, Start: i, End: len(s.text), Text: s.chunk2},
	}
}

func TestPromptGolden(t *testing.T) {
	for _, lang := range []string{"en", "de", "es", "ru", "zh"} {
		t.Run(lang, func(t *testing.T) {
			doc, chunks := sampleDoc(lang)
			calls := promptsFor(t, testOptions(), doc, chunks)
			if calls[0].Prefix != calls[1].Prefix {
				t.Error("prefix differs between the chunks of one document")
			}
			golden(t, "prompt_"+lang, render(calls))
		})
	}
}

func TestPromptGlossaryGolden(t *testing.T) {
	doc, chunks := sampleDoc("en")
	o := testOptions()
	o.Glossary = func(driver.Document) []Term {
		return []Term{{"Widget", "ACME's main product, sold since 1998."}, {"ARR", "annual recurring revenue"}}
	}
	calls := promptsFor(t, o, doc, chunks)
	if calls[0].Prefix != calls[1].Prefix {
		t.Error("prefix differs between chunks")
	}
	if !strings.HasSuffix(calls[0].Prefix, "</document>\n<glossary>\nTerms defined in other documents:\n- ARR: annual recurring revenue\n- Widget: ACME's main product, sold since 1998.\n</glossary>\n") {
		t.Errorf("glossary not after the document in the prefix: %q", calls[0].Prefix)
	}
	golden(t, "prompt_glossary", render(calls))
}

func TestLanguageSelection(t *testing.T) {
	doc, chunks := sampleDoc("de")
	calls := promptsFor(t, testOptions(), doc, chunks)
	if !strings.Contains(calls[0].Suffix, "auf Deutsch") {
		t.Error("German document did not get the German template")
	}
	doc.Lang = "" // detected from the text
	calls = promptsFor(t, testOptions(), doc, chunks)
	if !strings.Contains(calls[0].Suffix, "auf Deutsch") {
		t.Error("German text without Lang did not get the German template")
	}
	o := testOptions()
	o.Language = "es"
	calls = promptsFor(t, o, doc, chunks)
	if !strings.Contains(calls[0].Suffix, "en español") {
		t.Error("Options.Language did not force the Spanish template")
	}
	doc.Lang = "fr"
	calls = promptsFor(t, testOptions(), doc, chunks)
	if calls[0].Prefix+calls[0].Suffix != BuiltinTemplate("en").Prefix(doc.Text, "")+BuiltinTemplate("en").Suffix(chunks[0].Text) {
		t.Error("unknown language did not get the reference prompt")
	}
}

func TestParseTemplate(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text, err string
	}{
		{"ok.txt", "Doc:\n{{WHOLE_DOCUMENT}}\nChunk:\n{{CHUNK_CONTENT}}\nContext?", ""},
		{"nodoc.txt", "Chunk:\n{{CHUNK_CONTENT}}", "missing {{WHOLE_DOCUMENT}}"},
		{"nochunk.txt", "<document>\n{{WHOLE_DOCUMENT}}\n</document>\n", "missing {{CHUNK_CONTENT}}"},
		{"order.txt", "{{CHUNK_CONTENT}}\n{{WHOLE_DOCUMENT}}\n", "must come after"},
		{"sameline.txt", "{{WHOLE_DOCUMENT}} {{CHUNK_CONTENT}}\n", "later line"},
		{"closing.txt", "<d>\n{{WHOLE_DOCUMENT}}\n</d>{{CHUNK_CONTENT}}\n", "later line"},
		{"twice.txt", "{{WHOLE_DOCUMENT}}\n{{CHUNK_CONTENT}}\n{{CHUNK_CONTENT}}", "only once"},
	}
	for _, tc := range cases {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		tm, err := LoadTemplate(path)
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			if got := tm.Prefix("D", "") + tm.Suffix("C"); got != "Doc:\nD\nChunk:\nC\nContext?" {
				t.Errorf("%s: rendered %q", tc.name, got)
			}
			if tm.Prefix("D", "") != "Doc:\nD\n" {
				t.Errorf("%s: prefix %q", tc.name, tm.Prefix("D", ""))
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want one naming the file and %q", tc.name, err, tc.err)
		}
		// New reports it under the option's name.
		o := testOptions()
		o.TemplateFile = path
		if _, err := New(newFake(), o); err == nil || !strings.Contains(err.Error(), "TemplateFile") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: New err = %v", tc.name, err)
		}
	}
	// A custom template's hash changes the cache key.
	a, _ := ParseTemplate("a", "{{WHOLE_DOCUMENT}}\n{{CHUNK_CONTENT}}")
	b, _ := ParseTemplate("b", "{{WHOLE_DOCUMENT}}\n\n{{CHUNK_CONTENT}}")
	c := mustNew(t, newFake(), testOptions())
	if c.cacheKey(a.Hash, "en", "d", "", "c", "full") == c.cacheKey(b.Hash, "en", "d", "", "c", "full") {
		t.Error("different templates give the same cache key")
	}
	for _, l := range []string{"en", "de", "es", "ru", "zh"} {
		tm := BuiltinTemplate(l)
		if tm.Prefix("X", "") != "<document>\nX\n</document>\n" {
			t.Errorf("%s: prefix %q", l, tm.Prefix("X", ""))
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := DefaultOptions().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(*Options){
		"MaxTokens":        func(o *Options) { o.MaxTokens = 0 },
		"MaxContextTokens": func(o *Options) { o.MaxContextTokens = -1 },
		"ContextWindow":    func(o *Options) { o.ContextWindow = 100; o.MaxTokens = 200 },
		"Concurrency":      func(o *Options) { o.Concurrency = 0 },
		"Language":         func(o *Options) { o.Language = "fr" },
		"CacheTTL":         func(o *Options) { o.CacheTTL = "10m" },
		"MaxBackoff":       func(o *Options) { o.MaxBackoff = time.Nanosecond },
		"TemplateFile":     func(o *Options) { o.TemplateFile = "/nonexistent/t.txt" },
		"EstimateMargin":   func(o *Options) { o.EstimateMargin = -0.1 },
		"Prices":           func(o *Options) { o.Prices = PriceTable{"m": {Input: -1}} },
	}
	for field, mut := range cases {
		o := DefaultOptions()
		mut(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: err = %v", field, err)
		}
	}
}
