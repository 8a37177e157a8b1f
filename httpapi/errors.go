package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/situate/situate"
)

// apiError is an error with its HTTP status and the field it concerns.
type apiError struct {
	status int
	code   string
	field  string
	msg    string
	err    error // logged, never sent
}

func (e *apiError) Error() string { return e.msg }

func badField(field, msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, code: "bad_request", field: field, msg: field + ": " + msg}
}

func notFound(what string) *apiError {
	return &apiError{status: http.StatusNotFound, code: "not_found", msg: what + " not found"}
}

func internalError(err error) *apiError {
	if errors.Is(err, errShuttingDown) {
		return &apiError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "server is shutting down", err: err}
	}
	return &apiError{status: http.StatusInternalServerError, code: "internal", msg: "internal error (see the server log for the request id)", err: err}
}

// fromError maps the root's sentinel errors to statuses; this is the only
// place in situate that does.
func fromError(err error) *apiError {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, situate.ErrNotFound):
		return &apiError{status: http.StatusNotFound, code: "not_found", msg: "not found", err: err}
	case errors.Is(err, situate.ErrInvalid):
		return &apiError{status: http.StatusBadRequest, code: "bad_request", msg: err.Error(), err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: http.StatusServiceUnavailable, code: "timeout", msg: "request timed out", err: err}
	case errors.Is(err, context.Canceled):
		return &apiError{status: http.StatusServiceUnavailable, code: "unavailable", msg: "request cancelled", err: err}
	}
	return internalError(err)
}

// statusClientClosed is nginx's "client closed request": the status a
// request whose client went away before its answer is counted and logged
// under. It reaches no client; answered 503 it made every disconnect look
// like an overloaded or failing server in the metrics and the error log
// (27 at the end of a 60 s wrk run, whose connections close mid-request).
const statusClientClosed = 499

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	rid := w.Header().Get("X-Request-Id")
	if errors.Is(e.err, context.Canceled) && r.Context().Err() != nil {
		s.log.Info("client went away", "request_id", rid, "route", r.Pattern)
		e = &apiError{status: statusClientClosed, code: "client_closed_request", msg: "the client closed the request", err: e.err}
	}
	if e.err != nil && e.status >= 500 {
		s.log.Error("request failed", "request_id", rid, "route", r.Pattern, "status", e.status, "err", e.err)
	}
	if e.status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, e.status, ErrorResponse{Error: ErrorBody{Code: e.code, Message: e.msg, Field: e.field, RequestID: rid}})
}

func statusText(code int) string { return fmt.Sprintf("%d %s", code, http.StatusText(code)) }
