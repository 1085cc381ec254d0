package temporal

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/paigasus/helikon"
)

// events is a list of events that crosses a Temporal payload: each event
// marshals with its "type" member and decodes with [helikon.UnmarshalEvent].
type events []helikon.Event

// MarshalJSON encodes the events as a JSON array.
func (e events) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	return json.Marshal([]helikon.Event(e))
}

// UnmarshalJSON decodes each event by its "type".
func (e *events) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*e = nil
		return nil
	}
	out := make(events, len(raw))
	for i, r := range raw {
		ev, err := decodeEvent(r)
		if err != nil {
			return fmt.Errorf("event %d: %w", i, err)
		}
		out[i] = ev
	}
	*e = out
	return nil
}

// decodeEvent decodes one event of a durable run. A durable run's
// RunPaused carries a [helikon.RunState] without the in-process frames the
// core's decoder requires: the workflow itself holds the paused round, so
// the state only names the run, the pause and the pending approvals, which
// [Runner.Resume] needs.
func decodeEvent(data []byte) (helikon.Event, error) {
	var head struct {
		Type  string `json:"type"`
		Agent string `json:"agent"`
		Usage helikon.Usage
		State *struct {
			Version int                       `json:"version"`
			RunID   string                    `json:"run_id"`
			PauseID string                    `json:"pause_id"`
			Agent   string                    `json:"agent"`
			Pending []helikon.PendingApproval `json:"pending"`
			Usage   helikon.Usage             `json:"usage"`
			Allow   []string                  `json:"allow"`
		} `json:"state"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, err
	}
	if head.Type != "run_paused" {
		return helikon.UnmarshalEvent(data)
	}
	ev := helikon.RunPaused{Agent: head.Agent, Usage: head.Usage}
	if st := head.State; st != nil {
		ev.State = &helikon.RunState{Version: st.Version, RunID: st.RunID, PauseID: st.PauseID, Agent: st.Agent, Pending: st.Pending, Usage: st.Usage, Allow: st.Allow}
	}
	return ev, nil
}

// runInput is the agent-run workflow's input.
type runInput struct {
	Agent string         `json:"agent"`
	Input []helikon.Item `json:"input"`
	// Seed is the caller's explicit, serialisable run seed; the worker's
	// context factory turns it into the run's user value.
	Seed json.RawMessage `json:"seed,omitempty"`
	// ApprovalTimeout, when set, bounds how long a paused run waits for
	// decisions; its pending calls are then rejected.
	ApprovalTimeout time.Duration `json:"approval_timeout,omitempty"`
	// Sub is set on the child workflow of an agent tool's sub-run.
	Sub *subInput `json:"sub,omitempty"`
}

// subInput places a child workflow's run: the agent tool (of Parent, named
// Tool) whose sub-run it is, its depth, and the allow rules the parent's
// "always" decisions granted, which cross as they do in process.
type subInput struct {
	Parent string   `json:"parent"`
	Tool   string   `json:"tool"`
	Depth  int      `json:"depth"`
	Allow  []string `json:"allow,omitempty"`
}

// subPause is what an agent tool's child workflow signals its parent
// when its run pauses for approval: the child's workflow id, the approvals
// it waits on and what it has spent so far.
type subPause struct {
	Child   string                    `json:"child"`
	Pending []helikon.PendingApproval `json:"pending"`
	Usage   helikon.Usage             `json:"usage"`
	// Log holds the child's events so far when small (as runOutput.Log),
	// which the parent nests under the call before it pauses.
	Log []json.RawMessage `json:"log,omitempty"`
}

// subDecisions carries the decisions a human made on a paused child's
// approvals from the parent to the child, with the allow rules the run's
// "always" decisions granted so far.
type subDecisions struct {
	Decisions []helikon.Decision `json:"decisions"`
	Allow     []string           `json:"allow,omitempty"`
}

// decideIn is the decide update's argument: the decisions for one pause.
type decideIn struct {
	PauseID   string             `json:"pause_id"`
	Decisions []helikon.Decision `json:"decisions"`
}

// waitIn is the wait update's argument: the pause the client already
// knows of (empty: none).
type waitIn struct {
	After string `json:"after,omitempty"`
}

// pauseInfo answers the pause query: the pause under way (PauseID empty
// when the run is not waiting) and how many pauses the run has had.
type pauseInfo struct {
	PauseID string                    `json:"pause_id,omitempty"`
	Pending []helikon.PendingApproval `json:"pending,omitempty"`
	Pauses  int                       `json:"pauses"`
}

// runOutput is the agent-run workflow's result.
type runOutput struct {
	Output    string              `json:"output"`
	LastAgent string              `json:"last_agent,omitempty"`
	Usage     helikon.Usage       `json:"usage"`
	Err       *helikon.AgentError `json:"error,omitempty"`
	// Events counts the run's events, so a client knows when it has read
	// them all.
	Events int `json:"events"`
	// Log holds the run's events when they encode in at most
	// maxResultLog bytes, so a client that waited for the result reads
	// them without a query (which, on a closed workflow, replays it on a
	// worker).
	Log []json.RawMessage `json:"log,omitempty"`
}

// maxResultLog bounds the events a run's result carries.
const maxResultLog = 256 << 10

// eventPage answers the events query: the run's events from an offset.
// The workflow answers with rawPage, the same JSON.
type eventPage struct {
	Events events `json:"events"`
	// Next is the offset to ask from next.
	Next int `json:"next"`
}

type rawPage struct {
	Events []json.RawMessage `json:"events"`
	Next   int               `json:"next"`
}

// stepIn is what every step activity receives: the agent, its depth and
// the run's seed.
type stepIn struct {
	Agent agentRef        `json:"agent"`
	Seed  json.RawMessage `json:"seed,omitempty"`
	// Allow are the allow rules "always" decisions granted the run.
	Allow []string `json:"allow,omitempty"`
}

type startIn struct {
	stepIn
	Input []helikon.Item `json:"input"`
}

type startOut struct {
	System  []helikon.Item `json:"system,omitempty"`
	Inject  []string       `json:"inject,omitempty"`
	Failure events         `json:"failure,omitempty"`
}

type modelIn struct {
	stepIn
	Turn    int                   `json:"turn"`
	Request *helikon.ModelRequest `json:"request"`
	Inject  []string              `json:"inject,omitempty"`
}

// modelOut is a settled model turn or the error that ended it. A model
// error is data, not an activity failure, so Temporal does not retry it.
type modelOut struct {
	Response *helikon.ModelResponse `json:"response,omitempty"`
	Err      *helikon.AgentError    `json:"error,omitempty"`
}

type toolIn struct {
	stepIn
	Call helikon.ToolCall `json:"call"`
	// Pending, Args and Decision are set for a call a human decided.
	Pending  *helikon.PendingApproval `json:"pending,omitempty"`
	Args     json.RawMessage          `json:"args,omitempty"`
	Decision *helikon.Decision        `json:"decision,omitempty"`
}

type toolOut struct {
	Result      helikon.ToolResult       `json:"result"`
	Events      events                   `json:"events,omitempty"`
	Inject      []string                 `json:"inject,omitempty"`
	Pending     *helikon.PendingApproval `json:"pending,omitempty"`
	PendingArgs json.RawMessage          `json:"pending_args,omitempty"`
	Usage       helikon.Usage            `json:"usage"`
	// SubRun is set when the call is an agent tool's whose sub-run the
	// workflow runs as a child workflow.
	SubRun *helikon.SubRun `json:"sub_run,omitempty"`
}

func outOf(st helikon.ToolStep) toolOut {
	return toolOut{Result: st.Result, Events: st.Events, Inject: st.Inject, Pending: st.Pending, PendingArgs: st.PendingArgs, Usage: st.Usage, SubRun: st.SubRun}
}

func (o toolOut) step() helikon.ToolStep {
	return helikon.ToolStep{Result: o.Result, Events: o.Events, Inject: o.Inject, Pending: o.Pending, PendingArgs: o.PendingArgs, Usage: o.Usage, SubRun: o.SubRun}
}

// settleIn settles an agent tool's call with its child workflow's outcome.
type settleIn struct {
	stepIn
	Call   helikon.ToolCall    `json:"call"`
	Run    helikon.SubRun      `json:"run"`
	Output string              `json:"output"`
	Usage  helikon.Usage       `json:"usage"`
	Err    *helikon.AgentError `json:"error,omitempty"`
}

type hookIn struct {
	stepIn
	Event helikon.HookEvent `json:"event"`
}

type hookOut struct {
	Denied bool   `json:"denied,omitempty"`
	Reason string `json:"reason,omitempty"`
}

type finishIn struct {
	stepIn
	Output    string `json:"output"`
	HandedOff bool   `json:"handed_off,omitempty"`
}

type finishOut struct {
	Failure events `json:"failure,omitempty"`
}

// abortOf turns a model step's outcome into the transition input.
func (m modelOut) input() helikon.TransitionInput {
	if m.Err != nil {
		return helikon.Abort{Err: m.Err}
	}
	if m.Response == nil {
		return helikon.Abort{Err: &helikon.AgentError{Kind: helikon.KindOther, Message: "model step returned nothing"}}
	}
	return *m.Response
}
