package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// ForkRequest is the body of POST /agents/{name}/runs/{id}/fork: the model
// call before which the fork starts, and what it changes there.
type ForkRequest struct {
	Call         int               `json:"call" jsonschema:"the index of a forkable model call of the run (GET .../calls): the fork starts at the turn boundary before it"`
	UserMessage  *string           `json:"user_message,omitempty" jsonschema:"replaces the text of the last user message before the boundary"`
	ToolResults  map[string]string `json:"tool_results,omitempty" jsonschema:"replaces the output of the named tool results (by call id) with this text"`
	Instructions *string           `json:"instructions,omitempty" jsonschema:"replaces the agent's instructions for the fork; only a server that serves the dev UI accepts it"`
}

// ForkOrigin names the run and model call a run was forked from.
type ForkOrigin struct {
	RunID string `json:"run_id" jsonschema:"the run forked from"`
	Call  int    `json:"call" jsonschema:"the model call before which the fork started"`
	Turn  int    `json:"turn" jsonschema:"that call's turn"`
}

// fork starts a new run from a turn boundary of a run that kept its model
// calls: the boundary's checkpoint, edited, resumed on the agent into a new
// session. The original run is not touched.
func (s *Server) fork(w http.ResponseWriter, r *http.Request) {
	orig, ok := s.runOf(w, r)
	if !ok {
		return
	}
	q, e := decodeBody[ForkRequest](w, r, s.limits)
	if e != nil {
		writeError(w, e)
		return
	}
	if q.Instructions != nil && s.devUI == nil {
		// Instructions are the operator's; a development server (one that
		// serves the dev UI) lets its user try others.
		writeError(w, errorf(http.StatusForbidden, CodeForbidden, "instructions", "this server does not let a fork change the instructions (only a server with the dev UI does)"))
		return
	}
	point, call, found := s.calls.point(orig.ID, q.Call)
	if !found {
		writeError(w, errorf(http.StatusConflict, CodeNotForkable, "call",
			"run "+orig.ID+" has no forkable model call "+strconv.Itoa(q.Call)+" (start runs with capture=calls; only the run's own agent's calls fork, and the server keeps the newest runs' calls only)"))
		return
	}
	var cp helikon.Checkpoint
	if err := json.Unmarshal(point, &cp); err != nil {
		writeError(w, s.unavailable("read checkpoint", err))
		return
	}
	if _, err := runner.Fork(&cp, runner.ForkEdit{UserMessage: q.UserMessage, ToolResults: q.ToolResults, Instructions: q.Instructions}); err != nil {
		writeError(w, errorf(http.StatusBadRequest, CodeBadRequest, "", err.Error()))
		return
	}
	agent, e := s.agentFor(r, orig.Agent)
	if e != nil {
		writeError(w, e)
		return
	}
	llm, isLLM := agent.(*helikon.LLMAgent)
	if !isLLM {
		writeError(w, errorf(http.StatusConflict, CodeNotForkable, "", "agent "+orig.Agent+" is not an LLM agent: only an LLM agent's loop forks"))
		return
	}
	sessionID, e := sessionHeader(r)
	if e != nil {
		writeError(w, e)
		return
	}
	if sessionID == "" {
		sessionID = "fork-" + uuid.NewString()
	}
	owner := PrincipalOf(r.Context()).ID
	adm, rc, e := s.openRun(r, owner, scopedSession(owner, sessionID))
	if e != nil {
		writeError(w, e)
		return
	}
	defer adm.release()
	id := uuid.NewString()
	w.Header().Set("X-Run-Id", id)
	input := orig.Input
	if q.UserMessage != nil {
		input = truncateInput(*q.UserMessage)
	}
	info := RunInfo{ID: id, Agent: orig.Agent, Status: adm.status(), Owner: owner, SessionID: sessionID,
		Input: input, CreatedAt: time.Now().UTC(), ForkOf: &ForkOrigin{RunID: orig.ID, Call: q.Call, Turn: call.Turn}}
	if err := s.log.Create(r.Context(), info); err != nil {
		writeError(w, s.unavailable("create run", err))
		return
	}
	lr, ctx, ok := s.begin(w, r, info, adm)
	if !ok {
		return
	}
	// A fork keeps its own calls, so that it can be shown and forked in
	// turn.
	rc = s.capture(id, owner, rc)
	events := s.runner.ForkStreamed(ctx, llm, rc, &cp, runner.ForkEdit{UserMessage: q.UserMessage, ToolResults: q.ToolResults, Instructions: q.Instructions})
	go s.drive(ctx, lr, info, events, 0, adm)
	writeAccepted(w, id, info.Status, "../"+id) // relative to .../runs/{id}/fork: a sibling of the original
}
