package ingest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/situate/situate"
)

// binaryKinds names the kind of each extension ingest refuses unread, for
// SkipReason.
var binaryKinds = map[string]string{}

func init() {
	for kind, exts := range map[string][]string{
		"image":    {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp", ".ico", ".heic", ".psd"},
		"media":    {".mp3", ".wav", ".flac", ".ogg", ".m4a", ".mp4", ".mkv", ".mov", ".avi", ".webm"},
		"archive":  {".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".jar", ".war", ".iso", ".dmg", ".deb", ".rpm"},
		"compiled": {".exe", ".dll", ".so", ".dylib", ".a", ".o", ".obj", ".class", ".pyc", ".wasm", ".bin"},
		"office":   {".doc", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".epub", ".rtf"},
		"font":     {".ttf", ".otf", ".woff", ".woff2"},
		"data":     {".sqlite", ".db", ".parquet", ".pkl", ".npy", ".gguf", ".safetensors", ".pt", ".onnx"},
	} {
		for _, e := range exts {
			binaryKinds[e] = kind
		}
	}
}

// SkipReason is a short name for why a file was skipped, for summaries that
// count skips by reason: "image", "archive", "compiled", "media", "office",
// "font", "data" (formats refused by extension), "binary" (NUL bytes or
// control characters), "empty", "too large", "unknown encoding", "no text",
// "broken" (the format's parser refused it), "no pdf extractor",
// "invalid record", "invalid name", "symlink loop", "duplicate id" (another
// document of the run has the id) or "unreadable" (an I/O
// error: missing, permission, ...).
func SkipReason(err error) string {
	switch {
	case errors.Is(err, ErrUnsupported):
		var fe *FileError
		if errors.As(err, &fe) {
			if k, ok := binaryKinds[strings.ToLower(filepath.Ext(fe.Path))]; ok {
				return k
			}
		}
		return "unsupported"
	case errors.Is(err, ErrBinary):
		return "binary"
	case errors.Is(err, ErrEmpty):
		return "empty"
	case errors.Is(err, ErrTooLarge):
		return "too large"
	case errors.Is(err, ErrEncoding):
		return "unknown encoding"
	case errors.Is(err, ErrNoText):
		return "no text"
	case errors.Is(err, ErrNoPDF):
		return "no pdf extractor"
	case errors.Is(err, ErrInvalidRecord):
		return "invalid record"
	case errors.Is(err, ErrInvalidName):
		return "invalid name"
	case errors.Is(err, ErrSymlinkLoop):
		return "symlink loop"
	case errors.Is(err, situate.ErrDuplicateID):
		return "duplicate id"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "unreadable"
	}
	var fe *FileError
	if errors.As(err, &fe) && fe.Op == "parse" {
		return "broken"
	}
	return "unreadable"
}

// lasting reports whether a skip is decided by the file's content and the
// options alone, so that the same file under the same options is skipped
// again: such skips are remembered across runs. I/O errors (permissions,
// a vanished file) and cancellations are not.
func lasting(err error) bool {
	switch SkipReason(err) {
	case "unreadable", "invalid name", "symlink loop", "invalid record":
		return false
	}
	return true
}

// skipVersion changes when ingest starts reading a kind of file it used to
// skip, so that remembered skips are tried again.
const skipVersion = 2 // 2: single gzip-compressed files are read

// skipStamp is a file's stamp for remembered skips: the file's own stamp
// and the options that decide whether it is skipped.
func skipStamp(stamp string, o Options) string {
	if stamp == "" {
		return ""
	}
	return fmt.Sprintf("%s v%d max=%d pdf=%t", stamp, skipVersion, o.maxFileSize(), o.PDF != nil)
}
