// Package pdf extracts text from PDF files with PDFium compiled to
// WebAssembly (klippa-app/go-pdfium) and run by wazero: pure Go, no cgo, no
// system library. An *Extractor implements ingest.PDFExtractor and
// ingest.PDFMetadataExtractor.
//
// Compiling the PDFium module takes seconds; the compiled code is cached in
// DefaultCacheDir (os.UserCacheDir()/situate/wazero) so later processes
// start in well under a second. The module runs without file system access,
// with a memory cap and a per-document timeout; a document that hangs
// PDFium is stopped by closing its WebAssembly instance.
//
// pdf imports no situate package: it depends only on go-pdfium and wazero,
// and it is kept apart from ingest so that packages not reading PDFs do not
// build PDFium.
package pdf
