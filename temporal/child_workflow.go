package temporal

import (
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/paigasus/helikon"
)

// failedCall is the result of a call whose step failed.
func failedCall(c helikon.ToolCall, err error) helikon.ToolResult {
	return helikon.ToolResult{CallID: c.CallID, Name: c.Name, IsError: true,
		Content: []helikon.ContentPart{helikon.TextPart{Text: "tool call failed: " + err.Error()}}}
}

// subRun runs the sub-run an agent tool's authorised call asked for (prep)
// as a child workflow of the same workflow code on the same task queue,
// then settles the call with its outcome and passes the settled step to
// settled. The child's id is this run's id and the call id, so it is the
// same on every replay.
func (h *workflowHost) subRun(sel workflow.Selector, a agentRef, c helikon.ToolCall, prep toolOut, settled func(helikon.ToolStep)) {
	sub := *prep.SubRun
	if h.children == nil {
		h.children = map[string]int{}
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
	child := workflow.ExecuteChildWorkflow(cctx, WorkflowName, in)
	sel.AddFuture(child, func(f workflow.Future) {
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
			// come first, as they happened.
			st := r.step()
			st.Events = append(append([]helikon.Event(nil), prep.Events...), st.Events...)
			st.Inject = append(append([]string(nil), prep.Inject...), st.Inject...)
			settled(st)
		})
	})
}
