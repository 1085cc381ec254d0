package server

import (
	"fmt"
	"net/http"
	"time"

	"github.com/paigasus/helikon"

	"github.com/paigasus/helikon/internal/httphost"
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

// bodyReadTimeout bounds reading a run request's body; a slower one is
// answered 408.
const bodyReadTimeout = time.Minute

// decodeBody reads a bounded body, checks its nesting before decoding it,
// and decodes it strictly (unknown members are an error).
func decodeBody[T any](w http.ResponseWriter, r *http.Request, lim Limits) (T, *Error) {
	var q T
	body, e := httphost.ReadBody(w, r, lim.MaxBodyBytes, bodyReadTimeout)
	if e != nil {
		return q, e
	}
	return q, httphost.DecodeStrict(body, lim.MaxJSONDepth, &q)
}
