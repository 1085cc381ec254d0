package httphost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
	"unicode/utf8"

	"github.com/paigasus/helikon/internal/jsondepth"
)

// ReadBody reads r's body, at most limit bytes (413 past it) within
// timeout (408 past it, and the connection closes after the answer; 0
// means no deadline). The deadline is lifted once the body is in, so that
// the response can stream for as long as a run lasts; a writer that
// cannot set deadlines simply goes without.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) ([]byte, *Error) {
	rc := http.NewResponseController(w)
	if timeout > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(timeout))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if timeout > 0 && err == nil {
		_ = rc.SetReadDeadline(time.Time{})
	}
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, new(*http.MaxBytesError)):
		return nil, Errorf(http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "",
			fmt.Sprintf("the body exceeds %d bytes", limit))
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays in the past: after the handler, net/http
		// tries to drain the rest of the body to reuse the connection,
		// and with no deadline that read would wait for the stalled
		// client for ever. Now it fails at once and the connection
		// closes after the answer.
		w.Header().Set("Connection", "close")
		return nil, Errorf(http.StatusRequestTimeout, CodeBodyTimeout, "",
			fmt.Sprintf("the body did not arrive within %v", timeout))
	}
	if timeout > 0 {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return nil, Errorf(http.StatusBadRequest, CodeBadRequest, "", "read body: "+err.Error())
}

// DecodeStrict decodes body, which must be one UTF-8 JSON value nesting at
// most depth levels, into v, refusing members v does not have. A type
// mismatch names its field.
func DecodeStrict(body []byte, depth int, v any) *Error {
	return decode(body, depth, v, true)
}

// DecodeIgnoringUnknown is [DecodeStrict] for a body that may carry members
// v does not have, which it skips: a payload a platform passes through from
// callers who add fields of their own. They still count towards the size
// and depth bounds.
func DecodeIgnoringUnknown(body []byte, depth int, v any) *Error {
	return decode(body, depth, v, false)
}

func decode(body []byte, depth int, v any, strict bool) *Error {
	if !utf8.Valid(body) {
		return Errorf(http.StatusBadRequest, CodeInvalidJSON, "", "the body is not valid UTF-8")
	}
	if err := jsondepth.Check(body, depth); err != nil {
		return Errorf(http.StatusBadRequest, CodeInvalidJSON, "", "malformed JSON: "+err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		e := Errorf(http.StatusBadRequest, CodeInvalidJSON, "", "malformed JSON: "+err.Error())
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			e.Field = te.Field
		}
		return e
	}
	// More would let a stray closing bracket through; only the end of
	// the input may follow the value.
	switch _, err := dec.Token(); {
	case err == nil:
		return Errorf(http.StatusBadRequest, CodeInvalidJSON, "", "the body holds more than one JSON value")
	case err != io.EOF:
		return Errorf(http.StatusBadRequest, CodeInvalidJSON, "", "malformed JSON after the value: "+err.Error())
	}
	return nil
}
