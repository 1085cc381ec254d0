package agentcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsondepth"
)

// SessionHeader carries AgentCore's session id on an invocation.
const SessionHeader = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"

// Request is an invocation's body: exactly one of Prompt, Input (one user
// message each; Prompt is what InvokeAgentRuntime callers usually send) or
// Messages (items as the core encodes them).
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

// ErrorBody is the JSON of a rejected invocation.
type ErrorBody struct {
	Error struct {
		Message string `json:"message"`
		Field   string `json:"field,omitempty"`
	} `json:"error"`
}

func reject(w http.ResponseWriter, status int, field, format string, args ...any) {
	var b ErrorBody
	b.Error.Message, b.Error.Field = fmt.Sprintf(format, args...), field
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(b)
}

// invoke answers POST /invocations.
func (s *Server) invoke(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		reject(w, http.StatusUnsupportedMediaType, "", "the body must be application/json, not %s", ct)
		return
	}
	sid := r.Header.Get(SessionHeader)
	if sid != "" && (len(sid) < 33 || len(sid) > 256) {
		reject(w, http.StatusBadRequest, SessionHeader, "a session id has 33 to 256 characters; this one has %d", len(sid))
		return
	}
	input, field, err := s.decode(w, r)
	if err != nil {
		status := http.StatusBadRequest
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			status = http.StatusRequestEntityTooLarge
		} else if errors.Is(err, errBodyTimeout) {
			status = http.StatusRequestTimeout
		}
		reject(w, status, field, "%v", err)
		return
	}
	session, err := s.cfg.sessions.Session(r.Context(), sid)
	if err != nil {
		s.cfg.logger.Error("agentcore: session provider failed", "session", sid, "err", err)
		reject(w, http.StatusServiceUnavailable, "", "the session store is unavailable: %v", err)
		return
	}
	rc, err := s.cfg.context(r, session)
	if err != nil {
		reject(w, http.StatusForbidden, "", "%v", err)
		return
	}
	release := s.ping.hold()
	defer release()
	// The run's context is the request's: a client that walks away
	// cancels the run, and the runner still records what it produced.
	stream := s.cfg.runner.RunStreamed(r.Context(), s.agent, rc, input)
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

// bodyReadTimeout bounds reading an invocation's body, so a client that
// trickles it cannot hold a connection for ever; a slower body is
// answered 408.
var bodyReadTimeout = time.Minute

// errBodyTimeout reports a body that did not arrive within
// bodyReadTimeout.
var errBodyTimeout = errors.New("the body did not arrive in time")

// decode reads the bounded body and returns the run's input, or the error
// and the field it concerns.
func (s *Server) decode(w http.ResponseWriter, r *http.Request) ([]helikon.Item, string, error) {
	// The deadline is lifted once the body is in, so that an event
	// stream can last as long as the run. Writers that cannot set
	// deadlines simply go without.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.maxBody))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", fmt.Errorf("the body exceeds %d bytes: %w", s.cfg.maxBody, err)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, "", fmt.Errorf("%w (%v): %w", errBodyTimeout, bodyReadTimeout, err)
		}
		return nil, "", fmt.Errorf("read body: %w", err)
	}
	if !utf8.Valid(body) {
		return nil, "", errors.New("the body is not valid UTF-8")
	}
	if err := jsondepth.Check(body, MaxJSONDepth); err != nil {
		return nil, "", fmt.Errorf("malformed JSON: %w", err)
	}
	var q Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		field := ""
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			field = te.Field
		}
		return nil, field, fmt.Errorf("malformed JSON: %w", err)
	}
	if dec.More() {
		return nil, "", errors.New("the body holds more than one JSON value")
	}
	given := 0
	for _, set := range []bool{q.Prompt != "", q.Input != "", len(q.Messages) > 0} {
		if set {
			given++
		}
	}
	switch {
	case given == 0:
		return nil, "prompt", errors.New("the body needs a non-empty prompt, input or messages")
	case given > 1:
		return nil, "prompt", errors.New("give one of prompt, input or messages")
	case q.Prompt != "":
		return helikon.UserText(q.Prompt), "", nil
	case q.Input != "":
		return helikon.UserText(q.Input), "", nil
	}
	for i, it := range q.Messages {
		switch it.Role {
		case helikon.RoleUser, helikon.RoleAssistant, helikon.RoleTool:
		default:
			// System messages are the operator's instructions, not a
			// caller's to rewrite.
			return nil, fmt.Sprintf("messages[%d].role", i), fmt.Errorf("role %q is not accepted", it.Role)
		}
		if len(it.Content) == 0 {
			return nil, fmt.Sprintf("messages[%d].content", i), errors.New("a message needs content")
		}
	}
	return q.Messages, "", nil
}

func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") {
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
