package agentcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/httphost"
)

// SessionHeader carries AgentCore's session id on an invocation.
const SessionHeader = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"

// Request is an invocation's body: exactly one of Prompt, Input (one user
// message each; Prompt is what InvokeAgentRuntime callers usually send) or
// Messages (items as the core encodes them). Other members are ignored:
// InvokeAgentRuntime passes a caller's payload through as it is, and
// callers add fields of their own (a user id, a trace id); they still count
// towards the body's size and depth bounds.
type Request struct {
	Prompt   string         `json:"prompt,omitempty"`
	Input    string         `json:"input,omitempty"`
	Messages []helikon.Item `json:"messages,omitempty"`
}

// Response is the buffered answer to an invocation.
type Response struct {
	// Status is "completed", "failed" or "paused".
	Status string `json:"status"`
	// Output is the final text (JSON text when the agent has an output
	// type).
	Output string `json:"output,omitempty"`
	// Agent names the agent that answered.
	Agent string        `json:"agent,omitempty"`
	Usage helikon.Usage `json:"usage"`
	// Error describes a failed run.
	Error *helikon.AgentError `json:"error,omitempty"`
	// Paused is the state of a run paused for approval.
	Paused *helikon.RunState `json:"paused,omitempty"`
	// SessionID echoes the session header.
	SessionID string `json:"session_id,omitempty"`
}

// Error is a rejected request, in the agent server's error shape (see
// package server): the body is an [ErrorBody],
//
//	{"error": {"code": "invalid_json", "message": "…", "field": "prompt"}}
//
// Codes: bad_request, invalid_json, missing_field, body_too_large (413),
// body_timeout (408), unsupported_media_type (415), unavailable (503),
// forbidden (403), not_found (404), method_not_allowed (405, with Allow),
// header_too_large (431) and not_implemented (501, an unknown transfer
// coding).
type Error = httphost.Error

// ErrorBody is the JSON body of every rejected request.
type ErrorBody = httphost.ErrorBody

// invoke answers POST /invocations.
func (s *Server) invoke(w http.ResponseWriter, r *http.Request) {
	if e := checkContentType(r.Header.Get("Content-Type")); e != nil {
		httphost.Write(w, e)
		return
	}
	sid := r.Header.Get(SessionHeader)
	if sid != "" && (len(sid) < 33 || len(sid) > 256) {
		httphost.Write(w, httphost.Errorf(http.StatusBadRequest, httphost.CodeBadRequest, SessionHeader,
			fmt.Sprintf("a session id has 33 to 256 characters; this one has %d", len(sid))))
		return
	}
	input, e := s.decode(w, r)
	if e != nil {
		httphost.Write(w, e)
		return
	}
	session, err := s.cfg.Sessions.Session(r.Context(), sid)
	if err != nil {
		s.cfg.Logger.Error("agentcore: session provider failed", "session", sid, "err", err)
		httphost.Write(w, httphost.Errorf(http.StatusServiceUnavailable, httphost.CodeUnavailable, "",
			"the session store is unavailable: "+err.Error()))
		return
	}
	rc, err := s.cfg.Context(r, session)
	if err != nil {
		httphost.Write(w, httphost.Errorf(http.StatusForbidden, httphost.CodeForbidden, "", err.Error()))
		return
	}
	release := s.ping.hold()
	defer release()
	// The run's context is the request's: a client that walks away
	// cancels the run, and the runner still records what it produced.
	stream := s.cfg.Runner.RunStreamed(r.Context(), s.agent, rc, input)
	if acceptsEventStream(r) {
		s.stream(w, stream)
		return
	}
	var c helikon.Collector
	var resp Response
	resp.SessionID = sid
	for ev := range c.Observe(stream) {
		if p, ok := ev.(helikon.RunPaused); ok {
			resp.Status, resp.Paused = "paused", p.State
		}
	}
	res, runErr := c.Result()
	resp.Output, resp.Agent, resp.Usage = res.FinalOutput, res.LastAgent, res.Usage
	status := http.StatusOK
	switch {
	case runErr != nil:
		resp.Status, resp.Error = "failed", asAgentError(runErr)
		status = http.StatusInternalServerError
	case resp.Status == "":
		resp.Status = "completed"
	}
	if r.Context().Err() != nil {
		return // nobody is listening
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}

// MaxJSONDepth caps how deeply an invocation body's objects and arrays
// nest; a deeper body is answered 400 before it is decoded.
const MaxJSONDepth = 64

// DefaultBodyReadTimeout bounds reading an invocation's body unless
// [WithBodyReadTimeout] says otherwise, so a client that trickles it
// cannot hold a connection for ever; a slower body is answered 408.
const DefaultBodyReadTimeout = time.Minute

// decode reads the bounded body and returns the run's input, or the
// rejection.
func (s *Server) decode(w http.ResponseWriter, r *http.Request) ([]helikon.Item, *Error) {
	body, e := httphost.ReadBody(w, r, s.cfg.MaxBody, s.cfg.BodyTimeout)
	if e != nil {
		return nil, e
	}
	var q Request
	if e := httphost.DecodeIgnoringUnknown(body, MaxJSONDepth, &q); e != nil {
		return nil, e
	}
	given := 0
	for _, set := range []bool{q.Prompt != "", q.Input != "", len(q.Messages) > 0} {
		if set {
			given++
		}
	}
	switch {
	case given == 0:
		return nil, httphost.Errorf(http.StatusBadRequest, httphost.CodeMissingField, "prompt", "the body needs a non-empty prompt, input or messages")
	case given > 1:
		return nil, httphost.Errorf(http.StatusBadRequest, httphost.CodeBadRequest, "prompt", "give one of prompt, input or messages")
	case q.Prompt != "":
		return helikon.UserText(q.Prompt), nil
	case q.Input != "":
		return helikon.UserText(q.Input), nil
	}
	for i, it := range q.Messages {
		switch it.Role {
		case helikon.RoleUser, helikon.RoleAssistant, helikon.RoleTool:
		default:
			// System messages are the operator's instructions, not a
			// caller's to rewrite.
			return nil, httphost.Errorf(http.StatusBadRequest, httphost.CodeBadRequest, fmt.Sprintf("messages[%d].role", i),
				fmt.Sprintf("role %q is not accepted", it.Role))
		}
		if len(it.Content) == 0 {
			return nil, httphost.Errorf(http.StatusBadRequest, httphost.CodeMissingField, fmt.Sprintf("messages[%d].content", i), "a message needs content")
		}
	}
	return q.Messages, nil
}

// checkContentType refuses a body that says it is not JSON (415). Media
// types compare case-insensitively (RFC 9110 §8.3.1), and parameters such
// as charset are allowed; a body without a Content-Type is taken as JSON.
func checkContentType(ct string) *Error {
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/json" {
		return nil
	}
	msg := fmt.Sprintf("the body must be application/json, not %q", ct)
	if mt == "application/x-www-form-urlencoded" {
		msg += " (curl -d sends that: add -H 'Content-Type: application/json')"
	}
	return httphost.Errorf(http.StatusUnsupportedMediaType, httphost.CodeUnsupportedMediaType, "Content-Type", msg)
}

// acceptsEventStream reports whether an Accept value lists
// text/event-stream, in any case, with a q above zero.
func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for token := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(token)
			if err != nil || mt != "text/event-stream" {
				continue
			}
			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q <= 0 {
				continue // q=0: "not acceptable"
			}
			return true
		}
	}
	return false
}

func asAgentError(err error) *helikon.AgentError {
	if ae, ok := errors.AsType[*helikon.AgentError](err); ok {
		return ae
	}
	return &helikon.AgentError{Kind: helikon.KindOther, Message: err.Error(), Err: err}
}
