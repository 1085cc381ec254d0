package durable

import (
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/transitiontest"
)

// TestDriver_FollowsTheCoresTransitionTable runs every row of the
// core's transition table through a driver resumed at the row's state:
// the driver reports the state, the events and, as a step, the action
// Transition gives the core.
func TestDriver_FollowsTheCoresTransitionTable(t *testing.T) {
	for _, c := range transitiontest.Cases() {
		if _, ok := c.In.(helikon.HandoffPaused); ok {
			// The durable loop runs a handoff's target inline, in the
			// same workflow: the target's pause is the run's own
			// (StepAwaitApprovals in the target's loop), so a
			// HandoffPaused never reaches a driver.
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			tc := transitiontest.Ctx(t, c.Tools, c.Output)
			d := NewDriver(*tc, 0)
			if c.State != nil {
				d.Resume(&helikon.Checkpoint{Agent: tc.Agent, State: c.State, Conversation: tc.Conversation})
			}
			st := d.Feed(c.In)
			c.Check(t, d.State(), actionOf(t, st, d.State()), st.Events)
		})
	}
}

// actionOf returns the action a step stands for, after checking that the
// step carries what its kind needs.
func actionOf(t *testing.T, st Step, state helikon.LoopState) helikon.ActionKind {
	t.Helper()
	switch st.Kind {
	case StepCallModel:
		if st.Request == nil || st.Turn == 0 {
			t.Errorf("model step without a request or a turn: %+v", st)
		}
		return helikon.ActCallModel
	case StepRunTools:
		if s, ok := state.(helikon.ExecutingTools); !ok || len(st.Calls) != len(s.Calls) {
			t.Errorf("tool step's calls %v, state %+v", st.Calls, state)
		}
		return helikon.ActExecuteTools
	case StepHandoff:
		if st.Target != "b" {
			t.Errorf("handoff step's target %q, want b", st.Target)
		}
		return helikon.ActHandoff
	case StepAwaitApprovals:
		if len(st.Pending) == 0 {
			t.Errorf("approval step without pending calls: %+v", st)
		}
		return helikon.ActPause
	}
	if transitiontest.TypeOf(st.Final) != transitiontest.TypeOf(state) {
		t.Errorf("final step's state %T, the driver's %T", st.Final, state)
	}
	return helikon.ActTerminate
}

func TestDriver_ResumeFromItsCheckpointFinishesTheRun(t *testing.T) {
	tc := helikon.TransitionCtx{Agent: "a", MaxTurns: 4, Tools: []helikon.ToolDef{{Name: "add"}}}
	call := helikon.ToolCall{CallID: "c1", Name: "add", Args: json.RawMessage(`{}`)}
	msg := helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.ToolUsePart{CallID: "c1", Name: "add", Args: call.Args}}}

	d := NewDriver(tc, 0)
	st := d.Start(helikon.UserText("go"), []string{"hook says hi"})
	if st.Kind != StepCallModel || len(st.Inject) != 1 {
		t.Fatalf("first step %+v", st)
	}
	st = d.Feed(helikon.ModelResponse{Message: msg, Calls: []helikon.ToolCall{call}})
	if st.Kind != StepRunTools || st.Parallel != 0 {
		t.Fatalf("second step %+v", st)
	}
	b, err := json.Marshal(d.Checkpoint())
	if err != nil {
		t.Fatal(err)
	}
	var cp helikon.Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	d2 := NewDriver(tc, 0)
	st = d2.Resume(&cp)
	if st.Kind != StepRunTools || len(st.Calls) != 1 || st.Calls[0].CallID != "c1" || len(st.Events) != 0 {
		t.Fatalf("resumed step %+v", st)
	}
	st = d2.ToolsDone([]helikon.ToolStep{{Result: helikon.ToolResult{CallID: "c1", Name: "add", Content: []helikon.ContentPart{helikon.TextPart{Text: "3"}}}, Inject: []string{"after add"}}})
	if st.Kind != StepCallModel || st.Turn != 2 || len(st.Inject) != 1 || st.Inject[0] != "after add" {
		t.Fatalf("after tools %+v", st)
	}
	st = d2.Feed(helikon.ModelResponse{Message: helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "3"}}}})
	if done, ok := st.Final.(helikon.Done); st.Kind != StepFinish || !ok || done.Output != "3" {
		t.Fatalf("final step %+v", st)
	}
}
