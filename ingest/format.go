package ingest

import (
	"path"
	"strings"

	"github.com/situate/situate"
)

// formatBinary marks extensions of formats ingest cannot read (images,
// archives, executables); such files are reported with ErrUnsupported
// without being read.
const formatBinary = "binary"

var extFormats = map[string]string{
	".txt": situate.FormatText, ".text": situate.FormatText, ".log": situate.FormatText,
	".rst": situate.FormatText, ".adoc": situate.FormatText, ".org": situate.FormatText,
	".csv": situate.FormatText, ".tsv": situate.FormatText, ".tex": situate.FormatText,

	".md": situate.FormatMarkdown, ".markdown": situate.FormatMarkdown, ".mdown": situate.FormatMarkdown,
	".mkd": situate.FormatMarkdown, ".mdx": situate.FormatMarkdown,

	".html": situate.FormatHTML, ".htm": situate.FormatHTML, ".xhtml": situate.FormatHTML,

	".pdf":  situate.FormatPDF,
	".docx": situate.FormatDOCX,
}

// codeExts are source and configuration files kept verbatim as FormatCode.
var codeExts = []string{
	".go", ".py", ".pyi", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".java", ".c", ".h",
	".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".rs", ".rb", ".php", ".cs", ".kt", ".kts",
	".swift", ".scala", ".sc", ".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".sql", ".lua",
	".pl", ".pm", ".r", ".m", ".mm", ".dart", ".ex", ".exs", ".erl", ".hrl", ".hs", ".ml",
	".mli", ".fs", ".fsx", ".clj", ".cljs", ".groovy", ".gradle", ".vue", ".svelte", ".zig",
	".nim", ".jl", ".proto", ".graphql", ".css", ".scss", ".less", ".json", ".jsonc", ".jsonl", ".ndjson", ".yaml",
	".yml", ".toml", ".ini", ".cfg", ".xml", ".tf", ".cmake", ".mk", ".asm", ".s", ".v", ".sv",
	".vhd", ".f90", ".cob", ".pas", ".elm", ".rkt", ".scm", ".lisp", ".el", ".vim", ".nix",
}

// codeNames are extensionless file names that are code.
var codeNames = map[string]bool{
	"makefile": true, "dockerfile": true, "containerfile": true, "gnumakefile": true,
	"rakefile": true, "gemfile": true, "justfile": true, "vagrantfile": true, "jenkinsfile": true,
}

var binaryExts = []string{
	".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp", ".ico", ".heic", ".psd",
	".mp3", ".wav", ".flac", ".ogg", ".m4a", ".mp4", ".mkv", ".mov", ".avi", ".webm",
	".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".jar", ".war",
	".exe", ".dll", ".so", ".dylib", ".a", ".o", ".obj", ".class", ".pyc", ".wasm", ".bin",
	".doc", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".epub", ".rtf",
	".ttf", ".otf", ".woff", ".woff2", ".sqlite", ".db", ".parquet", ".pkl", ".npy", ".gguf",
	".safetensors", ".pt", ".onnx", ".iso", ".dmg", ".deb", ".rpm",
}

func init() {
	for _, e := range codeExts {
		extFormats[e] = situate.FormatCode
	}
	for _, e := range binaryExts {
		extFormats[e] = formatBinary
	}
}

// formatOf returns the format a file name's extension declares, or "" when
// the extension is unknown (the content decides).
func formatOf(base string) string {
	if base == "" {
		return ""
	}
	lower := strings.ToLower(base)
	if codeNames[lower] {
		return situate.FormatCode
	}
	return extFormats[path.Ext(lower)]
}

// FormatOf reports the format ingest would give a file of this name by its
// extension alone: one of the situate.Format* constants, or "" when the
// extension is unknown (content sniffing then decides) or unsupported.
func FormatOf(name string) string {
	f := formatOf(path.Base(strings.ReplaceAll(name, "\\", "/")))
	if f == formatBinary {
		return ""
	}
	return f
}
