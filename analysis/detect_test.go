package analysis

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct{ want, text string }{
		{"en", "The committee will review the proposal and publish its findings in the spring."},
		{"en", "How does the scheduler decide which chunks to contextualize first?"},
		{"de", "Die Häuser am Marktplatz wurden im letzten Jahr vollständig renoviert."},
		{"de", "Wie funktioniert die Suche nach Dokumenten mit dem neuen System?"},
		{"de", "Straße"},
		{"es", "La información de los niños está en el análisis del informe anual."},
		{"es", "¿Cómo funciona la búsqueda de documentos con el nuevo sistema?"},
		{"ru", "Я читал книгу о новой библиотеке, и она мне очень понравилась."},
		{"uk", "Це речення написане українською мовою, і воно має літери ї та є."},
		{"zh", "我们开发了一个信息检索系统，使用BM25和向量搜索。"},
		{"ja", "これは日本語の文章です。検索システムを開発しました。"},
		{"ko", "이것은 한국어 문장입니다. 검색 시스템을 개발했습니다."},
		{"fr", "Le système de recherche est très rapide et il trouve les documents dans la base."},
		{"it", "Il sistema di ricerca è molto veloce e trova i documenti nella base di dati."},
		{"pt", "O sistema de busca é muito rápido e encontra os documentos na base de dados."},
		{"nl", "Het zoeksysteem is erg snel en het vindt de documenten in de database."},
		// Mostly one language with words of another.
		{"zh", "我们在 BM25 index 中使用了 Contextual Retrieval 方法来提高检索的准确率和召回率。"},
		{"en", "The Chinese word 检索 means retrieval, and the system indexes it with bigrams for the search."},
		{"de", "Das Retrieval-Augmented-Generation-System nutzt einen BM25-Index und die Embeddings der Chunks."},
		// Short technical English with code in it (issue 13: Go files and
		// an .rst page read as Portuguese, Spanish and Dutch).
		{"en", "Returns the number of bytes written to os.Stdout and any error."},
		{"en", "Use `os.Open` to read the file; it returns an *os.File and an error."},
		{"en", "Run go test -run TestParse ./... to check the parser in the package."},
		{"", "if e != nil { return a, o }"},
		{"", "`don't` `won't`"},
		{"", "os.Open(x) f(y) --all"},
		// Troff comments (a licence in English above a translated page).
		{"es", ".\\\" Copyright the authors. Permission is granted to make and distribute copies of this manual.\n.\\\" The author has taken care that it is correct, but there will be no warranty of any kind.\n.SH NOMBRE\nls \\- muestra el contenido de los directorios y también los ficheros que hay en ellos"},
		// Unsure: no letters, or no evidence among en/de/es.
		{"", ""},
		{"", "12345 67.89 -- +++"},
		{"", "BM25 TF-IDF"},
		{"", "Καλημέρα κόσμε, αυτό είναι ελληνικό κείμενο."},
	} {
		if got := Detect(c.text); got != c.want {
			t.Errorf("Detect(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestDetectLongTextSampled(t *testing.T) {
	// Only the first DetectSampleBytes count; the cut lands inside a rune.
	text := strings.Repeat("Я читал книгу о новой библиотеке. ", DetectSampleBytes/30) +
		strings.Repeat("The committee will review the proposal. ", 20000)
	if got := Detect(text); got != "ru" {
		t.Errorf("Detect(long) = %q, want ru", got)
	}
}

func TestDetectFormatCode(t *testing.T) {
	for _, c := range []struct{ want, text string }{
		// Go whose identifiers read as Portuguese ("os", "no", "as") and
		// Spanish ("se", "el", "lo") to a prose detector.
		{"en", "package main\n\nimport \"os\"\n\n// Open opens the named file for reading.\nfunc Open(name string) (*os.File, error) {\n\tse, el, lo, no, as := 1, 2, 3, 4, 5\n\treturn os.Open(name)\n}\n"},
		// No comments at all: English, the keywords' language.
		{"en", "def f(o, a, e):\n    return o + a + e\n"},
		// Comments in another language win.
		{"de", "// Öffnet die Datei und gibt sie zurück, wenn sie nicht existiert wird ein Fehler gemeldet.\nfunc Open() {}\n"},
		{"zh", "# 打开文件并返回内容\ndef read(path):\n    return open(path).read()\n"},
		{"es", "/* Abre el fichero y devuelve su contenido, o un error si no existe. */\nint abrir(void);\n"},
		// Comment markers inside strings are not comments.
		{"en", "x := \"// la casa de los niños está en el campo\" // the default greeting\n"},
	} {
		if got := DetectFormat(c.text, "code"); got != c.want {
			t.Errorf("DetectFormat(%q, code) = %q, want %q", c.text, got, c.want)
		}
	}
}
