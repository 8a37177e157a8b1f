package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/situate/situate"
	"golang.org/x/text/language"
)

// readBody reads at most limit bytes of r's body.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *apiError) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, &apiError{status: http.StatusRequestEntityTooLarge, code: "too_large", field: "body",
			msg: fmt.Sprintf("body: larger than the limit of %d bytes", limit)}
	}
	if err != nil {
		return nil, &apiError{status: http.StatusBadRequest, code: "bad_request", field: "body", msg: "body: " + err.Error()}
	}
	return body, nil
}

// requireJSON checks the Content-Type of a request with a JSON body.
func requireJSON(r *http.Request) *apiError {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return &apiError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type", field: "Content-Type",
			msg: fmt.Sprintf("Content-Type: want application/json, got %q", ct)}
	}
	return nil
}

// decodeJSON decodes one JSON value strictly: valid UTF-8, no unknown
// fields, nothing after the value. Errors name the field; errors inside a
// Filter are named under filterField.
func decodeJSON(data []byte, dst any, filterField string) *apiError {
	if !utf8.Valid(data) {
		return badField("body", "not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			field := fe.field
			if !strings.HasPrefix(field, "metadata") || filterField != "" {
				if filterField != "" {
					field = filterField + "." + field
				}
			}
			return badField(field, fe.msg)
		}
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badField("body", "unexpected data after the JSON value")
	}
	return nil
}

func jsonError(err error) *apiError {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		return badField("body", fmt.Sprintf("malformed JSON at byte %d: %v", syn.Offset, syn))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return badField(field, fmt.Sprintf("want %s, got JSON %s", jsonType(typ.Type.String()), typ.Value))
	case errors.Is(err, io.EOF):
		return badField("body", "empty; want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badField("body", "malformed JSON: unexpected end")
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		if name := strings.Trim(f, `"`); name != "" && utf8.ValidString(name) && len(name) <= 100 {
			return badField(name, "unknown field")
		}
		return badField("body", "unknown field "+truncate(f, 100))
	}
	// Errors from a field's own UnmarshalJSON: "json: cannot unmarshal ...
	// into Go struct field X.a.b of type T: reason" or the bare reason.
	if _, rest, ok := strings.Cut(msg, "Go struct field "); ok {
		name, reason, _ := strings.Cut(rest, ": ")
		name, _, _ = strings.Cut(name, " of type")
		if i := strings.Index(name, "."); i >= 0 {
			name = name[i+1:]
		}
		return badField(name, reason)
	}
	return badField("body", msg)
}

func jsonType(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map["):
		return "an object"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "float"), strings.HasPrefix(goType, "uint"):
		return "a number"
	}
	// A struct (named or not), a pointer to one, or any other Go type: a
	// reply names JSON, never Go types.
	return "an object"
}

// MaxDocIDBytes bounds a document id.
const MaxDocIDBytes = 1024

// validDocID accepts ids that are safe in a path, a log line and a store
// key: valid UTF-8 without control characters, no empty, "." or ".."
// segment, no leading "/" or backslash.
func validDocID(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return fmt.Errorf("must not be empty or white space only: %w", situate.ErrInvalid)
	case len(id) > MaxDocIDBytes:
		return fmt.Errorf("longer than %d bytes: %w", MaxDocIDBytes, situate.ErrInvalid)
	case !utf8.ValidString(id):
		return fmt.Errorf("not valid UTF-8: %w", situate.ErrInvalid)
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\\' || r == '#' }):
		return fmt.Errorf("%q: control characters, '\\' and '#' are not allowed: %w", id, situate.ErrInvalid)
	case strings.HasPrefix(id, "/"):
		return fmt.Errorf("%q: must not start with '/': %w", id, situate.ErrInvalid)
	}
	for _, seg := range strings.Split(id, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%q: empty, '.' and '..' path segments are not allowed: %w", id, situate.ErrInvalid)
		}
	}
	return nil
}

// validateDocument checks an upsert's fields; errors name the field.
func validateDocument(d *DocumentRequest, textRequired bool, maxText int64) *apiError {
	if err := validDocID(d.ID); err != nil {
		return badField("id", err.Error())
	}
	if textRequired && strings.TrimSpace(d.Text) == "" {
		return badField("text", "must not be empty")
	}
	if int64(len(d.Text)) > maxText {
		return &apiError{status: http.StatusRequestEntityTooLarge, code: "too_large", field: "text", msg: fmt.Sprintf("text: larger than %d bytes", maxText)}
	}
	if len(d.Title) > 1024 {
		return badField("title", "longer than 1024 bytes")
	}
	switch d.Format {
	case "", situate.FormatText, situate.FormatMarkdown, situate.FormatHTML, situate.FormatCode:
	default:
		return badField("format", fmt.Sprintf("%q: want text, markdown, html or code (upload other formats as a file)", d.Format))
	}
	if e := validLang(d.Lang); e != nil {
		return e
	}
	if len(d.Metadata) > 64 {
		return badField("metadata", "at most 64 keys")
	}
	for k, v := range d.Metadata {
		if k == "" || len(k) > 256 || strings.ContainsFunc(k, func(r rune) bool { return r < 0x20 }) {
			return badField("metadata", fmt.Sprintf("key %q: want 1-256 bytes without control characters", k))
		}
		if len(v) > 4096 {
			return badField("metadata."+k, "longer than 4096 bytes")
		}
	}
	if len(d.Access) > 256 {
		return badField("access", "at most 256 principals")
	}
	for i, p := range d.Access {
		if err := validPrincipal(p); err != nil {
			return badField(fmt.Sprintf("access[%d]", i), err.Error())
		}
	}
	return nil
}

// validLang accepts "" (detect) or a language tag that names a known
// language (BCP 47, as golang.org/x/text/language knows it: "en", "de-AT",
// "zh-Hans"); "english" or "xx" are refused.
func validLang(lang string) *apiError {
	if lang == "" {
		return nil
	}
	if len(lang) > 16 {
		return badField("lang", "want an ISO 639-1 code such as en, de, es, ru or zh")
	}
	if _, err := language.Parse(lang); err != nil {
		return badField("lang", fmt.Sprintf("%q: not a known language code (want an ISO 639-1 code such as en, de, es, ru or zh)", lang))
	}
	return nil
}
