package main

import (
	"errors"

	"github.com/situate/situate"
	"github.com/situate/situate/ingest"
	"github.com/situate/situate/report"
)

// termText and termLine show untrusted text on a terminal (report.Text,
// report.Line).
var termText, termLine = report.Text, report.Line

// documentArg resolves a DOC argument: the id as given, or, when no
// document has that id and the argument is quoted as ls, search and show
// print an id with control characters (ingest.QuoteName), the unquoted id.
func documentArg(eng interface {
	Document(id string) (situate.DocumentRecord, error)
}, arg string) (situate.DocumentRecord, error) {
	rec, err := eng.Document(arg)
	if errors.Is(err, situate.ErrNotFound) {
		if id := ingest.UnquoteName(arg); id != arg {
			if rec2, err2 := eng.Document(id); err2 == nil {
				return rec2, nil
			}
		}
	}
	return rec, err
}
