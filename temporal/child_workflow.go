package temporal

import (
	"encoding/json"
	"fmt"
	"slices"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/paigasus/helikon"
)

// failedCall is the result of a call whose step failed.
func failedCall(c helikon.ToolCall, err error) helikon.ToolResult {
	return helikon.ToolResult{CallID: c.CallID, Name: c.Name, IsError: true,
		Content: []helikon.ContentPart{helikon.TextPart{Text: "tool call failed: " + err.Error()}}}
}

// The signals between an agent tool's child workflow and its parent.
const (
	// subPausedSignal tells the parent that the child's run paused for
	// approval (a [subPause]).
	subPausedSignal = "helikon.sub_paused"
	// subDecideSignal brings the child the decisions on its approvals (a
	// [subDecisions]).
	subDecideSignal = "helikon.sub_decide"
	// subPauseChange versions the child's pause: before it, a child's
	// calls that asked for a human were rejected.
	subPauseChange = "helikon.sub-run-pauses"
)

// childCall is an agent tool's child workflow under way: the call it
// answers, the authorising step's outcome, and where its outcome goes in
// the current round (nil once the child paused in it).
type childCall struct {
	future  workflow.ChildWorkflowFuture
	agent   agentRef
	call    helikon.ToolCall
	prep    toolOut
	settled func(toolDone)
	// forwarded counts the child's events already nested in this run's
	// stream (those before its pauses).
	forwarded int
}

// subRun runs the sub-run an agent tool's authorised call asked for (prep)
// as a child workflow of the same workflow code on the same task queue,
// then settles the call with its outcome and passes the settled step to
// settled. The child's id is this run's id and the call id, so it is the
// same on every replay.
func (h *workflowHost) subRun(sel workflow.Selector, a agentRef, c helikon.ToolCall, prep toolOut, settled func(toolDone)) {
	sub := *prep.SubRun
	if h.children == nil {
		h.children = map[string]int{}
		h.inflight = map[string]*childCall{}
	}
	id := workflow.GetInfo(h.ctx).WorkflowExecution.ID + "/" + c.CallID
	if n := h.children[c.CallID]; n > 0 {
		id += fmt.Sprintf("#%d", n+1)
	}
	h.children[c.CallID]++
	cctx := workflow.WithChildOptions(h.ctx, workflow.ChildWorkflowOptions{
		WorkflowID:        id,
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
	})
	in := runInput{Agent: sub.Agent, Input: helikon.UserText(sub.Input), Seed: h.seed,
		Sub: &subInput{Parent: a.Name, Tool: sub.Tool, Depth: a.Depth + 1, Allow: h.allow}}
	cc := &childCall{future: workflow.ExecuteChildWorkflow(cctx, WorkflowName, in), agent: a, call: c, prep: prep}
	h.inflight[id] = cc
	h.waitChild(sel, id, cc, settled)
}

// waitChild waits in sel for child id to end, settles its call and passes
// the settled step to settled.
func (h *workflowHost) waitChild(sel workflow.Selector, id string, cc *childCall, settled func(toolDone)) {
	cc.settled = settled
	a, c, prep, sub := cc.agent, cc.call, cc.prep, *cc.prep.SubRun
	sel.AddFuture(cc.future, func(f workflow.Future) {
		delete(h.inflight, id)
		var res runOutput
		if err := f.Get(h.ctx, &res); err != nil {
			res.Err = stepError(err, sub.Agent)
		}
		settle := settleIn{stepIn: h.in(a), Call: c, Run: sub, Output: res.Output, Usage: res.Usage, Err: res.Err}
		sf := workflow.ExecuteLocalActivity(h.local(), activitySettle, settle)
		sel.AddFuture(sf, func(f workflow.Future) {
			var r toolOut
			if err := f.Get(h.ctx, &r); err != nil {
				r = toolOut{Result: failedCall(c, stepError(err, a.Name)), Usage: res.Usage}
			}
			// The authorising step's governance events and injections
			// come first, as they happened, then the child's own events
			// nested under the call, as an in-process agent tool
			// forwards them.
			st := r.step()
			st.Events = append(append(append([]helikon.Event(nil), prep.Events...), cc.nest(res.Log)...), st.Events...)
			st.Inject = append(append([]string(nil), prep.Inject...), st.Inject...)
			settled(toolDone{ToolStep: st})
		})
	})
}

// childPaused settles the call of the child that signalled its pause: the
// call is pending on the child's approvals, their paths from a on. A
// signal of a child this round does not wait on is dropped.
func (h *workflowHost) childPaused(a agentRef, p subPause) {
	cc := h.inflight[p.Child]
	if cc == nil || cc.settled == nil || len(p.Pending) == 0 {
		return
	}
	pending := make([]helikon.PendingApproval, len(p.Pending))
	for i, pa := range p.Pending {
		pa.Path = append([]string{a.Name}, pa.Path...)
		pending[i] = pa
	}
	settled := cc.settled
	cc.settled = nil
	done := childPending(&childWait{ID: p.Child, Pending: pending, Usage: p.Usage})
	done.Events = cc.nest(p.Log)
	settled(done)
}

// resumeChild forwards the decisions on a paused child's approvals to it
// and waits in sel for it again, as for a call it launched.
func (h *workflowHost) resumeChild(sel workflow.Selector, w *childWait, settled func(toolDone)) {
	cc := h.inflight[w.ID]
	if cc == nil {
		// Not reachable: a paused child is in flight until it ends.
		settled(toolDone{ToolStep: helikon.ToolStep{Result: helikon.ToolResult{IsError: true,
			Content: []helikon.ContentPart{helikon.TextPart{Text: "the paused agent tool's run is gone"}}}}})
		return
	}
	// The child's end, not the signal, settles the call: a child that
	// ended before the signal reached it fails the signal and still
	// reports its end.
	cc.future.SignalChildWorkflow(h.ctx, subDecideSignal, subDecisions{Decisions: w.Decisions, Allow: h.allow})
	h.waitChild(sel, w.ID, cc, settled)
}

// awaitParent is the pause of an agent tool's sub-run: it tells the parent
// workflow, which pauses with the sub-run's approvals, and waits for the
// decisions the parent forwards. A run recorded before sub-runs could
// pause rejects the calls, as it did then.
func (h *workflowHost) awaitParent(pending []helikon.PendingApproval, usage helikon.Usage) []helikon.Decision {
	reject := func(reason string) []helikon.Decision {
		out := make([]helikon.Decision, len(pending))
		for i, p := range pending {
			out[i] = helikon.Reject(p.ID, reason)
		}
		return out
	}
	if workflow.GetVersion(h.ctx, subPauseChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return reject("an agent tool's run cannot pause for approval in a durable run")
	}
	info := workflow.GetInfo(h.ctx)
	parent := info.ParentWorkflowExecution
	if parent == nil {
		return reject("the agent tool's run has no parent run to pause")
	}
	sig := subPause{Child: info.WorkflowExecution.ID, Pending: pending, Usage: usage, Log: h.smallLog()}
	if err := workflow.SignalExternalWorkflow(h.ctx, parent.ID, parent.RunID, subPausedSignal, sig).Get(h.ctx, nil); err != nil {
		return reject("the agent tool's run could not pause its caller: " + err.Error())
	}
	var in subDecisions
	cancelled := false
	sel := workflow.NewSelector(h.ctx)
	sel.AddReceive(workflow.GetSignalChannel(h.ctx, subDecideSignal), func(c workflow.ReceiveChannel, _ bool) { c.Receive(h.ctx, &in) })
	sel.AddReceive(h.ctx.Done(), func(workflow.ReceiveChannel, bool) { cancelled = true })
	sel.Select(h.ctx)
	if cancelled {
		return reject("the run was cancelled while waiting for approval")
	}
	for _, r := range in.Allow {
		if !slices.Contains(h.allow, r) {
			h.allow = append(h.allow, r)
		}
	}
	return in.Decisions
}

// nest wraps the child's events that log (its result's or its pause's,
// when small enough to carry) holds past those already forwarded in
// [helikon.SubRunEvent]s naming the call, as an in-process agent tool
// forwards its sub-run's events.
func (cc *childCall) nest(log []json.RawMessage) []helikon.Event {
	if len(log) <= cc.forwarded {
		return nil
	}
	sub := cc.prep.SubRun
	out := make([]helikon.Event, 0, len(log)-cc.forwarded)
	for _, raw := range log[cc.forwarded:] {
		ev, err := decodeEvent(raw)
		if err != nil {
			continue // the child's own stream still has it
		}
		out = append(out, helikon.SubRunEvent{CallID: cc.call.CallID, Tool: sub.Tool, Agent: sub.Agent, Event: ev})
	}
	cc.forwarded = len(log)
	return out
}
