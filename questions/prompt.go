package questions

import (
	"strings"

	"github.com/situate/situate/driver"
)

// Prefix is the cached part of every prompt for a document: the whole
// document, byte-identical for all of its chunks. It is the same text as
// the prefix of package llm's built-in contextualization templates, so a
// provider cache warmed by "situate index" serves generation too.
func Prefix(docText string) string {
	return "<document>\n" + docText + "\n</document>\n"
}

// Suffix is the per-chunk part: the chunk and the instruction in the
// document's language (en, de, es, ru, zh); other languages get the English
// instruction asking for the question in the document's language.
func Suffix(lang, chunk string) string {
	in, ok := instructions[lang]
	if !ok {
		// English instructions, but the question in the document's own
		// language (the language check expects it).
		in = instructions[driver.LangEnglish]
		in.ask = strings.Replace(in.ask, "Write the question in English.", "Write the question in the language of the document.", 1)
	}
	return in.intro + "\n<chunk>\n" + chunk + "\n</chunk>\n" + in.ask + "\n" + formatLines
}

// formatLines is the output format every language asks for; the labels
// stay in English so that the parser is the same for all.
const formatLines = "QUESTION: <question>\nANSWER: <passage copied from the chunk>"

type instruction struct{ intro, ask string }

var instructions = map[string]instruction{
	driver.LangEnglish: {
		"Here is a chunk of this document",
		"Write one question that a user of this collection of documents would ask and that this chunk answers. Write the question in English. Do not copy the chunk's wording: use your own words, but name what the question is about (the product, organisation, person, period or number) so that it can be answered from the whole collection. Then copy, character for character, the shortest passage of the chunk that answers it. Answer with exactly these two lines and nothing else:",
	},
	driver.LangGerman: {
		"Hier ist ein Abschnitt dieses Dokuments",
		"Schreibe eine Frage, die ein Nutzer dieser Dokumentensammlung stellen würde und die dieser Abschnitt beantwortet. Schreibe die Frage auf Deutsch. Übernimm nicht den Wortlaut des Abschnitts: formuliere mit eigenen Worten, aber nenne, worum es geht (Produkt, Organisation, Person, Zeitraum oder Zahl), damit die Frage aus der ganzen Sammlung beantwortet werden kann. Kopiere dann Zeichen für Zeichen die kürzeste Stelle des Abschnitts, die sie beantwortet. Antworte mit genau diesen zwei Zeilen und nichts anderem:",
	},
	driver.LangSpanish: {
		"Este es un fragmento de este documento",
		"Escribe una pregunta que un usuario de esta colección de documentos haría y que este fragmento responde. Escribe la pregunta en español. No copies la redacción del fragmento: usa tus propias palabras, pero nombra de qué trata la pregunta (el producto, la organización, la persona, el período o la cifra) para que pueda responderse a partir de toda la colección. Luego copia, carácter por carácter, el pasaje más corto del fragmento que la responde. Responde exactamente con estas dos líneas y nada más:",
	},
	driver.LangRussian: {
		"Вот фрагмент этого документа",
		"Напиши один вопрос, который задал бы пользователь этой коллекции документов и на который отвечает этот фрагмент. Напиши вопрос на русском языке. Не копируй формулировки фрагмента: используй свои слова, но назови, о чём вопрос (продукт, организация, человек, период или число), чтобы на него можно было ответить по всей коллекции. Затем скопируй символ в символ самый короткий отрывок фрагмента, который на него отвечает. Ответь ровно этими двумя строками и ничем больше:",
	},
	driver.LangChinese: {
		"以下是该文档中的一个文本块",
		"请写一个该文档集的用户会提出、并且由这个文本块回答的问题。请用中文写这个问题。不要照抄文本块的措辞：用你自己的话，但要指明问题涉及的对象（产品、机构、人物、时期或数字），使其能够从整个文档集中得到回答。然后逐字复制文本块中回答该问题的最短段落。只用下面这两行回答，不要回答其他任何内容：",
	},
}
