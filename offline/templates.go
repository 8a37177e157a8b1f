package offline

// template holds the connecting words of a context in one language. Every
// field is a fmt format with one %s, unless noted.
type template struct {
	from    string // prose: the document ("From %s")
	about   string // prose: appended entity the document is about (" (%s)")
	section string // prose: appended heading path (", section %s")
	colon   string // before the summary (no %s)
	stop    string // ends a sentence (no %s)
	file    string // code: the file ("File %s")
	code    string // code: the language when there is no file name ("%s code")
	pkg     string // code: appended package or namespace (", package %s")
	defines string // code: what the file defines ("Defines %s")
	in      string // code: the chunk's enclosing declarations ("This chunk is in %s")
	andDef  string // code: appended after in ("and defines %s")
	chunk   string // code: what the chunk defines, without in ("This chunk defines %s")
	list    string // separates list items (no %s)
	path    string // separates nested declarations (no %s)
}

// templates maps an ISO 639-1 code to its wording. Unknown languages use en.
var templates = map[string]template{
	"en": {
		from: "From %s", about: " (%s)", section: ", section %s", colon: ": ", stop: ".",
		file: "File %s", code: "%s code", pkg: ", package %s",
		defines: "Defines %s", in: "This chunk is in %s", andDef: " and defines %s",
		chunk: "This chunk defines %s", list: ", ", path: " > ",
	},
	"de": {
		from: "Aus %s", about: " (%s)", section: ", Abschnitt %s", colon: ": ", stop: ".",
		file: "Datei %s", code: "%s-Code", pkg: ", Paket %s",
		defines: "Definiert %s", in: "Dieser Abschnitt liegt in %s", andDef: " und definiert %s",
		chunk: "Dieser Abschnitt definiert %s", list: ", ", path: " > ",
	},
	"es": {
		from: "De %s", about: " (%s)", section: ", sección %s", colon: ": ", stop: ".",
		file: "Archivo %s", code: "Código %s", pkg: ", paquete %s",
		defines: "Define %s", in: "Este fragmento está en %s", andDef: " y define %s",
		chunk: "Este fragmento define %s", list: ", ", path: " > ",
	},
	"ru": {
		from: "Из «%s»", about: " (%s)", section: ", раздел «%s»", colon: ": ", stop: ".",
		file: "Файл %s", code: "Код на %s", pkg: ", пакет %s",
		defines: "Определяет %s", in: "Этот фрагмент находится в %s", andDef: " и определяет %s",
		chunk: "Этот фрагмент определяет %s", list: ", ", path: " > ",
	},
	"zh": {
		from: "出自《%s》", about: "（%s）", section: "，章节“%s”", colon: "：", stop: "。",
		file: "文件 %s", code: "%s 代码", pkg: "，包 %s",
		defines: "定义了 %s", in: "本段位于 %s", andDef: "，并定义了 %s",
		chunk: "本段定义了 %s", list: "、", path: " > ",
	},
}

func templateFor(lang string) template {
	if t, ok := templates[lang]; ok {
		return t
	}
	return templates["en"]
}
