package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsondepth"
)

// RunRequest is the body of POST /agents/{name}/runs: exactly one of Input
// (one user message) or Messages (the conversation's items, as the core
// encodes them).
type RunRequest struct {
	Input    string         `json:"input,omitempty" jsonschema:"the user's message; the run's input is this one user message"`
	Messages []helikon.Item `json:"messages,omitempty" jsonschema:"the run's input as items (user, assistant and tool messages)"`
}

// items validates the request and returns the run's input.
func (q *RunRequest) items() ([]helikon.Item, *Error) {
	switch {
	case q.Input != "" && len(q.Messages) > 0:
		return nil, errorf(http.StatusBadRequest, CodeBadRequest, "messages", "give either input or messages, not both")
	case q.Input != "":
		return helikon.UserText(q.Input), nil
	case len(q.Messages) == 0:
		return nil, errorf(http.StatusBadRequest, CodeMissingField, "input", "the body needs a non-empty input or messages")
	}
	for i, it := range q.Messages {
		switch it.Role {
		case helikon.RoleUser, helikon.RoleAssistant, helikon.RoleTool:
		case helikon.RoleSystem:
			// Instructions are the operator's: a network caller does not
			// get to rewrite them.
			return nil, errorf(http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("messages[%d].role", i),
				"system messages are not accepted; the agent's instructions come from the server")
		default:
			return nil, errorf(http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("messages[%d].role", i),
				fmt.Sprintf("unknown role %q", it.Role))
		}
		if len(it.Content) == 0 {
			return nil, errorf(http.StatusBadRequest, CodeMissingField, fmt.Sprintf("messages[%d].content", i), "a message needs content")
		}
	}
	return q.Messages, nil
}

// bodyReadTimeout bounds reading a run request's body.
const bodyReadTimeout = time.Minute

// decodeBody reads a bounded body, checks its nesting before decoding it,
// and decodes it strictly (unknown members are an error).
func decodeBody[T any](w http.ResponseWriter, r *http.Request, lim Limits) (T, *Error) {
	var q T
	// A slow body must not hold a connection for ever; the deadline is
	// lifted again so that the response can stream for as long as the
	// run lasts. Writers that cannot set deadlines simply go without.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, lim.MaxBodyBytes))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return q, errorf(http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "",
				fmt.Sprintf("the body exceeds %d bytes", lim.MaxBodyBytes))
		}
		return q, errorf(http.StatusBadRequest, CodeBadRequest, "", "read body: "+err.Error())
	}
	if err := jsondepth.Check(body, lim.MaxJSONDepth); err != nil {
		return q, errorf(http.StatusBadRequest, CodeInvalidJSON, "", err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return q, jsonError(err)
	}
	if dec.More() {
		return q, errorf(http.StatusBadRequest, CodeInvalidJSON, "", "the body holds more than one JSON value")
	}
	return q, nil
}

func jsonError(err error) *Error {
	e := errorf(http.StatusBadRequest, CodeInvalidJSON, "", "malformed JSON: "+err.Error())
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		e.Field = te.Field
	}
	return e
}
