// Package ingest turns files, directory trees, stdin and JSONL into
// situate.Document values.
//
// Formats: plain text, Markdown (kept as is), HTML (main content only, as
// Markdown with headings and tables), DOCX (paragraphs, headings as "#",
// lists, tables), source code (kept verbatim) and, through a PDFExtractor,
// PDF. ParseFile and Parse pick the format from the file extension, checked
// against the content (PDF and ZIP magic, HTML markup). Text is decoded to
// UTF-8: UTF-8 passes (BOM stripped), UTF-16 is converted, and legacy
// Windows-1252, Windows-1251, KOI8-R and GB18030 are recognised by a simple
// heuristic; anything else is refused with ErrEncoding or ErrBinary.
//
// Walk visits directory trees in sorted id order, honours .gitignore and
// .situateignore files per directory like git, applies Include/Exclude
// doublestar globs, skips .git, .situate and (unless Options.Hidden) other
// dot-files, follows symlinks that lead out of the root (each file or
// directory once; links inside the root are left to their targets' own
// paths) with loop detection, and reports every skipped file as a
// *FileError naming its path. A document's id is its path below the root
// with "/" separators; a file or directory whose name is not valid UTF-8 is
// refused with ErrInvalidName (see there why it is not encoded). Front
// ends print ids and paths with QuoteName, which quotes names holding
// control or format characters so that they cannot forge output lines, and
// read them back with UnquoteName. JSONL reads pre-extracted documents,
// one JSON object per line.
//
// ingest imports the root package only, never another adapter. PDF support
// lives in ingest/pdf, which carries PDFium compiled to WebAssembly; ingest
// itself only defines the PDFExtractor interface so that building it stays
// fast and light.
package ingest
