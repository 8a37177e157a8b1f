package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/situate/situate/driver"
)

// Template placeholders.
const (
	DocumentPlaceholder = "{{WHOLE_DOCUMENT}}"
	ChunkPlaceholder    = "{{CHUNK_CONTENT}}"
)

// ReferencePrompt is Anthropic's contextual-retrieval prompt, verbatim; it is
// the English template.
const ReferencePrompt = `<document>
{{WHOLE_DOCUMENT}}
</document>
Here is the chunk we want to situate within the whole document
<chunk>
{{CHUNK_CONTENT}}
</chunk>
Please give a short succinct context to situate this chunk within the overall document for the purposes of improving search retrieval of the chunk. Answer only with the succinct context and nothing else.`

// The built-in templates: the reference prompt with its instruction
// translated and an answer asked for in the document's language.
var builtinTemplates = map[string]string{
	driver.LangEnglish: ReferencePrompt,
	driver.LangGerman: `<document>
{{WHOLE_DOCUMENT}}
</document>
Hier ist der Abschnitt, den wir innerhalb des gesamten Dokuments einordnen wollen
<chunk>
{{CHUNK_CONTENT}}
</chunk>
Bitte gib einen kurzen, prägnanten Kontext auf Deutsch, der diesen Abschnitt innerhalb des gesamten Dokuments einordnet, um das Auffinden des Abschnitts bei der Suche zu verbessern. Antworte nur mit dem prägnanten Kontext und nichts anderem.`,
	driver.LangSpanish: `<document>
{{WHOLE_DOCUMENT}}
</document>
Este es el fragmento que queremos situar dentro del documento completo
<chunk>
{{CHUNK_CONTENT}}
</chunk>
Por favor, da un contexto breve y conciso en español que sitúe este fragmento dentro del documento completo, con el fin de mejorar la recuperación del fragmento en las búsquedas. Responde solo con el contexto conciso y nada más.`,
	driver.LangRussian: `<document>
{{WHOLE_DOCUMENT}}
</document>
Вот фрагмент, который мы хотим расположить в контексте всего документа
<chunk>
{{CHUNK_CONTENT}}
</chunk>
Пожалуйста, дай короткий ёмкий контекст на русском языке, который помещает этот фрагмент в контекст всего документа, чтобы улучшить поиск этого фрагмента. Ответь только этим кратким контекстом и ничем больше.`,
	driver.LangChinese: `<document>
{{WHOLE_DOCUMENT}}
</document>
以下是我们希望在整个文档中定位的文本块
<chunk>
{{CHUNK_CONTENT}}
</chunk>
请用中文给出一段简短精炼的上下文，说明这个文本块在整个文档中的位置，以便改进对该文本块的检索。只回答这段简短的上下文，不要回答其他任何内容。`,
}

// excerptNotes open the document part of a prompt that shows only an excerpt.
var excerptNotes = map[string]string{
	driver.LangEnglish: "<document excerpt> The document is too long to show in full: shown are its beginning and the part leading up to the chunk; [...] marks omitted text.",
	driver.LangGerman:  "<document excerpt> Das Dokument ist zu lang, um es vollständig zu zeigen: gezeigt werden sein Anfang und der Teil, der zum Abschnitt hinführt; [...] markiert ausgelassenen Text.",
	driver.LangSpanish: "<document excerpt> El documento es demasiado largo para mostrarlo completo: se muestran su comienzo y la parte que precede al fragmento; [...] marca el texto omitido.",
	driver.LangRussian: "<document excerpt> Документ слишком длинный, чтобы показать его целиком: показаны его начало и часть, предшествующая фрагменту; [...] обозначает пропущенный текст.",
	driver.LangChinese: "<document excerpt> 文档太长，无法完整显示：这里显示的是文档的开头和该文本块之前的部分；[...] 表示省略的文本。",
}

// Omission marks a gap in a document excerpt.
const Omission = "[...]"

// glossaryHeaders introduce the glossary block.
var glossaryHeaders = map[string]string{
	driver.LangEnglish: "Terms defined in other documents:",
	driver.LangGerman:  "In anderen Dokumenten definierte Begriffe:",
	driver.LangSpanish: "Términos definidos en otros documentos:",
	driver.LangRussian: "Термины, определённые в других документах:",
	driver.LangChinese: "其他文档中定义的术语：",
}

func knownLang(l string) bool {
	_, ok := builtinTemplates[l]
	return ok
}

// Template is a prompt template split at the cache boundary.
//
// The prefix part runs from the start of the template through the line
// holding {{WHOLE_DOCUMENT}} and, if the next line is a closing tag ("</..."),
// that line too. Everything after is the suffix part, which must hold
// {{CHUNK_CONTENT}}. For the reference prompt the prefix is
// "<document>\n{{WHOLE_DOCUMENT}}\n</document>\n".
type Template struct {
	// Name is the file the template came from, or "builtin:<lang>".
	Name string
	// Text is the whole template.
	Text string
	// Hash is the hex sha256 of Text; it is part of every cache key.
	Hash string

	before, after string // prefix part around the document placeholder
	suffixA       string // suffix part before the chunk placeholder
	suffixB       string // suffix part after the chunk placeholder
}

// ParseTemplate checks and splits a template; name is used in errors.
func ParseTemplate(name, text string) (Template, error) {
	d := strings.Index(text, DocumentPlaceholder)
	c := strings.Index(text, ChunkPlaceholder)
	switch {
	case d < 0:
		return Template{}, fmt.Errorf("template %s: missing %s: %w", name, DocumentPlaceholder, driver.ErrInvalid)
	case c < 0:
		return Template{}, fmt.Errorf("template %s: missing %s: %w", name, ChunkPlaceholder, driver.ErrInvalid)
	case c < d:
		return Template{}, fmt.Errorf("template %s: %s must come after %s (the document is the cached prefix): %w", name, ChunkPlaceholder, DocumentPlaceholder, driver.ErrInvalid)
	case strings.Count(text, DocumentPlaceholder) > 1 || strings.Count(text, ChunkPlaceholder) > 1:
		return Template{}, fmt.Errorf("template %s: each placeholder may appear only once: %w", name, driver.ErrInvalid)
	}
	end := d + len(DocumentPlaceholder)
	if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
		end += nl + 1
		if strings.HasPrefix(text[end:], "</") {
			if nl2 := strings.IndexByte(text[end:], '\n'); nl2 >= 0 {
				end += nl2 + 1
			} else {
				end = len(text)
			}
		}
	} else {
		end = len(text)
	}
	if c < end {
		return Template{}, fmt.Errorf("template %s: %s must be on a later line than %s and its closing tag: %w", name, ChunkPlaceholder, DocumentPlaceholder, driver.ErrInvalid)
	}
	sum := sha256.Sum256([]byte(text))
	return Template{
		Name:    name,
		Text:    text,
		Hash:    hex.EncodeToString(sum[:]),
		before:  text[:d],
		after:   text[d+len(DocumentPlaceholder) : end],
		suffixA: text[end:c],
		suffixB: text[c+len(ChunkPlaceholder):],
	}, nil
}

// LoadTemplate reads and parses a template file.
func LoadTemplate(path string) (Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Template{}, fmt.Errorf("load template: %w", err)
	}
	return ParseTemplate(path, string(b))
}

// BuiltinTemplate returns the built-in template of a language (en, de, es,
// ru, zh); unknown languages get the English reference prompt.
func BuiltinTemplate(lang string) Template {
	if !knownLang(lang) {
		lang = driver.LangEnglish
	}
	t, err := ParseTemplate("builtin:"+lang, builtinTemplates[lang])
	if err != nil {
		panic(err) // the built-in templates are tested
	}
	return t
}

// Prefix renders the cached part: the template's document part with the
// given document text (whole or an excerpt), then the glossary block.
func (t Template) Prefix(docText, glossary string) string {
	var b strings.Builder
	b.Grow(len(t.before) + len(docText) + len(t.after) + len(glossary))
	b.WriteString(t.before)
	b.WriteString(docText)
	b.WriteString(t.after)
	b.WriteString(glossary)
	return b.String()
}

// Suffix renders the per-chunk part.
func (t Template) Suffix(chunk string) string {
	return t.suffixA + chunk + t.suffixB
}

// staticText is the template without its placeholders (for token budgets).
func (t Template) staticText() string {
	return t.before + t.after + t.suffixA + t.suffixB
}

// renderGlossary renders the glossary block in a language, or "" when there
// are no terms. Terms are sorted so the block is deterministic.
func renderGlossary(lang string, terms []Term) string {
	if len(terms) == 0 {
		return ""
	}
	ts := append([]Term(nil), terms...)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Term < ts[j].Term })
	h, ok := glossaryHeaders[lang]
	if !ok {
		h = glossaryHeaders[driver.LangEnglish]
	}
	var b strings.Builder
	b.WriteString("<glossary>\n")
	b.WriteString(h)
	b.WriteByte('\n')
	for _, t := range ts {
		term := strings.Join(strings.Fields(t.Term), " ")
		def := strings.Join(strings.Fields(t.Definition), " ")
		if term == "" {
			continue
		}
		b.WriteString("- ")
		b.WriteString(term)
		if def != "" {
			b.WriteString(": ")
			b.WriteString(def)
		}
		b.WriteByte('\n')
	}
	b.WriteString("</glossary>\n")
	return b.String()
}

func excerptNote(lang string) string {
	if n, ok := excerptNotes[lang]; ok {
		return n
	}
	return excerptNotes[driver.LangEnglish]
}
