package helikon

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// TransitionInput is what the driver feeds [Transition]: [Start],
// [ModelResponse], [ToolResults], [HandoffReturned], [ApprovalsPending],
// [ApprovalsResolved], [HandoffPaused] or [Abort].
type TransitionInput interface {
	isTransitionInput()
}

// Start begins a run.
type Start struct{}

// ModelResponse is a settled model turn.
type ModelResponse struct {
	// Message is the assistant item (text, reasoning, tool uses).
	Message    Item
	Calls      []ToolCall
	Usage      Usage
	Finish     FinishReason
	ResponseID string
	// ResponseModel is the model that answered, as the provider names it.
	ResponseModel string
	// FirstTokenAt is when the first streamed delta arrived (zero: the
	// model does not stream); its [ModelResponded] carries it.
	FirstTokenAt time.Time
}

// ToolResults are the settled outcomes of an ExecutingTools phase, in the
// order of the calls.
type ToolResults struct {
	Results []ToolResult
}

// HandoffReturned is the outcome of the agent a run was handed to.
type HandoffReturned struct {
	Output string
	Usage  Usage
	Err    error
}

// Abort ends the run with Err (a model failure, a cancellation, a denial).
type Abort struct {
	Err error
}

// ApprovalsPending ends an ExecutingTools phase in which some calls wait
// for a human decision: the run suspends in [NeedsApproval].
type ApprovalsPending struct {
	Pending []ToolCall // the undecided calls, in call order
}

// ApprovalsResolved resumes a [NeedsApproval] phase with decisions in hand:
// the round runs again, its settled calls not re-executed.
type ApprovalsResolved struct{}

// HandoffPaused reports that the agent a run was handed to paused for
// approval: the run pauses with it, still applying the handoff.
type HandoffPaused struct{}

func (Start) isTransitionInput()             {}
func (ApprovalsPending) isTransitionInput()  {}
func (ApprovalsResolved) isTransitionInput() {}
func (HandoffPaused) isTransitionInput()     {}
func (ModelResponse) isTransitionInput()     {}
func (ToolResults) isTransitionInput()       {}
func (HandoffReturned) isTransitionInput()   {}
func (Abort) isTransitionInput()             {}

// TransitionCtx is the read-only context of a transition.
type TransitionCtx struct {
	Agent string
	// Model is the id of the model the agent calls ([DescribeModel]), which
	// a [ModelResponded] names when the provider did not.
	Model string
	// System holds the rendered instructions, sent ahead of the conversation.
	System []Item
	// Conversation is the transcript so far (input included, system excluded).
	Conversation []Item
	Tools        []ToolDef
	Settings     ModelSettings
	MaxTurns     int
	Output       *OutputType
	// Handoffs maps each transfer tool's name to its target agent's name.
	Handoffs map[string]string
	// Now is the At of the events the transition emits (a tool result's
	// own end time aside): the driver's clock once per step, a durable
	// runner's replay-safe clock; zero leaves the events unstamped.
	Now time.Time

	// buf is the driver's array holding System and then Conversation
	// (conversation_buffer.go); nil outside the driver.
	buf []Item
	// ahead, set by the driver for the transition after a live round, is
	// what that transition allocates, made while the round ran
	// (round_ahead.go); the transition takes it once.
	ahead *roundAhead
	// spareReq is the next model request, made ahead with ahead.
	spareReq *ModelRequest
	// folded leaves RunStarted out of a run's first events: the driver's
	// parent folds it (RunContext.FoldInto).
	folded bool
}

// ActionKind names the side effect the driver runs next.
type ActionKind int

// The actions.
const (
	ActCallModel ActionKind = iota
	ActExecuteTools
	ActHandoff
	ActTerminate
	// ActPause ends the stream with RunPaused; the state is resumable.
	ActPause
)

// NextAction tells the driver what to do before the next transition.
type NextAction struct {
	Kind    ActionKind
	Request *ModelRequest // for ActCallModel
	Calls   []ToolCall    // for ActExecuteTools
	Target  string        // for ActHandoff
}

// TransitionOutcome is the result of one [Transition].
type TransitionOutcome struct {
	Next    LoopState
	Events  []Event
	Action  NextAction
	Appends []Item
}

const repairPrompt = "Your previous answer did not match the required JSON schema. Errors: %s. Reply again with only a JSON value that matches the schema."

// Transition is the whole loop as a pure function: from a state and the
// latest input it computes the next state, the events to emit, the items to
// append to the conversation and the side effect to run next. It does no
// I/O. A nil state is a run that has not started; its only input is [Start].
func Transition(state LoopState, in TransitionInput, tc *TransitionCtx) TransitionOutcome {
	if ab, ok := in.(Abort); ok {
		switch state.(type) {
		case Done, Failed:
			return terminal(state)
		}
		return fail(progressOf(state).Usage, toAgentError(ab.Err), tc.Agent)
	}
	switch s := state.(type) {
	case nil:
		if _, ok := in.(Start); !ok {
			return fail(Usage{}, agentErrorf(KindOther, tc.Agent, "run must begin with Start, got %T", in), tc.Agent)
		}
		p := Progress{Turn: 1}
		var next LoopState = CallingModel{p}
		if tc.Output != nil && len(tc.Tools) == 0 {
			next = Finalizing{p}
		}
		var evs []Event
		if tc.folded {
			// The parent folds the run's start (RunContext.FoldInto).
			evs = []Event{TurnStarted{Agent: tc.Agent, Turn: 1, At: tc.Now}}
		} else {
			evs = []Event{RunStarted{Agent: tc.Agent, At: tc.Now}, TurnStarted{Agent: tc.Agent, Turn: 1, At: tc.Now}}
		}
		return TransitionOutcome{Next: next, Events: evs, Action: ActionFor(next, tc, nil)}
	case CallingModel, Finalizing, RepairingOutput:
		resp, ok := in.(ModelResponse)
		if !ok {
			return unexpected(s, in, tc)
		}
		return afterModel(resp, tc, s)
	case ExecutingTools:
		switch in := in.(type) {
		case ToolResults:
			return afterTools(s, in, tc)
		case ApprovalsPending:
			if len(in.Pending) == 0 {
				return unexpected(s, in, tc)
			}
			return TransitionOutcome{
				Next:   NeedsApproval{Progress: s.Progress, Calls: s.Calls, Pending: in.Pending},
				Action: NextAction{Kind: ActPause},
			}
		}
		return unexpected(s, in, tc)
	case NeedsApproval:
		if _, ok := in.(ApprovalsResolved); !ok {
			return unexpected(s, in, tc)
		}
		return TransitionOutcome{
			Next:   ExecutingTools{Progress: s.Progress, Calls: s.Calls},
			Action: NextAction{Kind: ActExecuteTools, Calls: s.Calls},
		}
	case ApplyingHandoff:
		if _, ok := in.(HandoffPaused); ok {
			return TransitionOutcome{Next: s, Action: NextAction{Kind: ActPause}}
		}
		hr, ok := in.(HandoffReturned)
		if !ok {
			return unexpected(s, in, tc)
		}
		usage := s.Usage.Add(hr.Usage)
		if hr.Err != nil {
			return terminal(Failed{Err: toAgentError(hr.Err), Usage: usage})
		}
		return terminal(Done{Output: hr.Output, Usage: usage})
	case Done, Failed:
		return terminal(state)
	default: // Compacting: reserved
		return fail(progressOf(state).Usage, agentErrorf(KindOther, tc.Agent, "loop state %T is not driven", state), tc.Agent)
	}
}

// afterModel settles the response of the model turn state (CallingModel,
// Finalizing or RepairingOutput).
func afterModel(resp ModelResponse, tc *TransitionCtx, state LoopState) TransitionOutcome {
	p := progressOf(state)
	p.Usage = p.Usage.Add(resp.Usage)
	if resp.ResponseID != "" {
		p.ResponseID = resp.ResponseID
	}
	// Room for ModelResponded, the message and the calls, and the next
	// turn's opening, so the common paths allocate the slice once.
	out := TransitionOutcome{Events: make([]Event, 0, 2+len(resp.Calls))}
	if len(resp.Message.Content) > 0 {
		out.Appends = append(out.Appends, resp.Message)
	}
	out.Events = append(out.Events, ModelResponded{
		Agent: tc.Agent, Turn: p.Turn, Model: cmp.Or(resp.ResponseModel, tc.Model),
		ResponseID: resp.ResponseID, Finish: resp.Finish, Usage: resp.Usage,
		At: tc.Now, FirstTokenAt: resp.FirstTokenAt,
	})
	text := resp.Message.Text()
	if text != "" {
		out.Events = append(out.Events, MessageOutput{Item: resp.Message, At: tc.Now})
	}
	uses := resp.Message.Content
	for _, c := range resp.Calls {
		// The call's item shares the message's part for it, when the
		// message has one, rather than building its own.
		var part []ContentPart
		part, uses = nextToolUse(uses, c)
		if part == nil {
			part = []ContentPart{ToolUsePart{CallID: c.CallID, Name: c.Name, Args: c.Args}}
		}
		out.Events = append(out.Events, ToolCallItem{Item: Item{Role: RoleAssistant, Agent: tc.Agent, Content: part}, At: tc.Now})
	}

	if len(resp.Calls) > 0 {
		if target, callID := firstHandoff(resp.Calls, tc.Handoffs); target != "" {
			// Every tool use needs a result for the transcript to stay
			// provider-valid: the transfer call reports the transfer, any
			// sibling call reports that it was not run.
			for _, c := range resp.Calls {
				r := ToolResult{CallID: c.CallID, Name: c.Name}
				if c.CallID == callID {
					b, _ := json.Marshal(map[string]string{"assistant": target})
					r.Content = []ContentPart{TextPart{Text: string(b)}}
				} else {
					r.IsError = true
					r.Content = []ContentPart{TextPart{Text: "not run: the conversation was handed off to " + target}}
				}
				it := r.item()
				out.Appends = append(out.Appends, it)
				out.Events = append(out.Events, ToolOutputItem{Item: it, At: tc.Now})
			}
			out.Next = ApplyingHandoff{Progress: p, Target: target}
			out.Action = NextAction{Kind: ActHandoff, Target: target}
			return out
		}
		out.Next = ExecutingTools{Progress: p, Calls: resp.Calls}
		out.Action = NextAction{Kind: ActExecuteTools, Calls: resp.Calls}
		return out
	}

	var errs []string
	if tc.Output != nil {
		errs = tc.Output.Check(text)
	}
	if errs == nil {
		return out.ending(Done{Output: text, Usage: p.Usage})
	}
	switch state.(type) {
	case CallingModel:
		return nextTurn(out, p, tc, func(p Progress) LoopState { return Finalizing{p} })
	case Finalizing:
		out.Appends = append(out.Appends, Item{Role: RoleUser, Content: []ContentPart{TextPart{
			Text: strings.Replace(repairPrompt, "%s", strings.Join(errs, "; "), 1),
		}}})
		out.Events = append(out.Events, RepairStarted{Attempt: 1, At: tc.Now})
		return nextTurn(out, p, tc, func(p Progress) LoopState { return RepairingOutput{Progress: p, Attempt: 1} })
	default:
		out.Events = append(out.Events, StructuredOutputFailed{SchemaErrors: errs, FinalText: text, At: tc.Now})
		return out.ending(Failed{Err: &AgentError{
			Kind: KindInvalidStructuredOutput, Agent: tc.Agent, SchemaErrors: errs, FinalText: text,
		}, Usage: p.Usage})
	}
}

func afterTools(s ExecutingTools, res ToolResults, tc *TransitionCtx) TransitionOutcome {
	// Sized for the results and the next turn's opening; the items' parts
	// share one array.
	out, parts := tc.toolsOutcome(len(res.Results))
	p := s.Progress
	for i, r := range res.Results {
		parts[i] = r.part()
		it := Item{Role: RoleTool, Content: parts[i : i+1 : i+1]}
		out.Appends = append(out.Appends, it)
		at := r.EndedAt
		if at.IsZero() {
			at = tc.Now
		}
		out.Events = append(out.Events, ToolOutputItem{Item: it, At: at, StartedAt: r.StartedAt})
	}
	for _, r := range res.Results {
		if !r.InvalidArgs {
			continue
		}
		if slices.Contains(p.Strikes, r.Name) {
			return out.ending(Failed{Err: &AgentError{
				Kind: KindTool, Agent: tc.Agent,
				Message: "the model missed the schema twice",
				Err:     &ToolError{Kind: ToolInvalidArgs, Tool: r.Name, SchemaErrors: schemaErrorsOf(r)},
			}, Usage: p.Usage})
		}
		p.Strikes = append(slices.Clip(p.Strikes), r.Name)
	}
	return nextTurn(out, p, tc, func(p Progress) LoopState { return CallingModel{p} })
}

// nextTurn advances to turn p.Turn+1 in the state mk builds, or fails when
// the turn budget is spent.
func nextTurn(out TransitionOutcome, p Progress, tc *TransitionCtx, mk func(Progress) LoopState) TransitionOutcome {
	p.Turn++
	if tc.MaxTurns > 0 && p.Turn > tc.MaxTurns {
		return out.ending(Failed{Err: agentErrorf(KindMaxTurnsExceeded, tc.Agent, "%d turns", tc.MaxTurns), Usage: p.Usage})
	}
	out.Next = mk(p)
	out.Events = append(out.Events, TurnStarted{Agent: tc.Agent, Turn: p.Turn, At: tc.Now})
	out.Action = ActionFor(out.Next, tc, out.Appends)
	return out
}

// ActionFor returns the side effect a state calls for. appends are items the
// transition producing the state adds to tc.Conversation. A driver resuming
// from a [Checkpoint] calls it with nil appends.
func ActionFor(s LoopState, tc *TransitionCtx, appends []Item) NextAction {
	switch s := s.(type) {
	case CallingModel:
		return NextAction{Kind: ActCallModel, Request: buildRequest(tc, appends, false)}
	case Finalizing, RepairingOutput:
		return NextAction{Kind: ActCallModel, Request: buildRequest(tc, appends, true)}
	case ExecutingTools:
		return NextAction{Kind: ActExecuteTools, Calls: s.Calls}
	case ApplyingHandoff:
		return NextAction{Kind: ActHandoff, Target: s.Target}
	case NeedsApproval:
		return NextAction{Kind: ActPause}
	}
	return NextAction{Kind: ActTerminate}
}

func buildRequest(tc *TransitionCtx, appends []Item, structured bool) *ModelRequest {
	req := tc.newRequest()
	*req = ModelRequest{Messages: tc.requestMessages(appends), Tools: tc.Tools, Settings: tc.Settings}
	if structured && tc.Output != nil {
		req.Settings.ResponseFormat = tc.Output.ResponseFormat()
		if len(tc.Tools) > 0 {
			req.Settings.ToolChoice = ToolChoice{Mode: ToolChoiceNone}
		}
	}
	return req
}

func firstHandoff(calls []ToolCall, handoffs map[string]string) (target, callID string) {
	if len(handoffs) == 0 {
		return "", ""
	}
	for _, c := range calls {
		if t, ok := handoffs[c.Name]; ok {
			return t, c.CallID
		}
	}
	return "", ""
}

func progressOf(s LoopState) Progress {
	switch s := s.(type) {
	case interface{ progress() Progress }:
		return s.progress()
	case Done:
		return Progress{Usage: s.Usage}
	case Failed:
		return Progress{Usage: s.Usage}
	}
	return Progress{}
}

func fail(u Usage, err *AgentError, agent string) TransitionOutcome {
	if err.Agent == "" {
		c := *err
		c.Agent = agent
		err = &c
	}
	return terminal(Failed{Err: err, Usage: u})
}

func terminal(s LoopState) TransitionOutcome { return TransitionOutcome{}.ending(s) }

// ending returns out ending the run in s, a terminal state.
func (out TransitionOutcome) ending(s LoopState) TransitionOutcome {
	out.Next, out.Action = s, NextAction{Kind: ActTerminate}
	return out
}

func unexpected(s LoopState, in TransitionInput, tc *TransitionCtx) TransitionOutcome {
	return fail(progressOf(s).Usage, agentErrorf(KindOther, tc.Agent, "unexpected input %T in state %T", in, s), tc.Agent)
}

// schemaErrorsOf returns the schema errors an invalid-arguments result
// reported, without the "tool X: invalid arguments: " lead the model saw.
func schemaErrorsOf(r ToolResult) []string {
	lead := (&ToolError{Kind: ToolInvalidArgs, Tool: r.Name}).Error() + ": "
	out := resultTexts(r)
	for i, s := range out {
		out[i] = strings.TrimPrefix(s, lead)
	}
	return out
}

func resultTexts(r ToolResult) []string {
	var out []string
	for _, p := range r.Content {
		if t, ok := p.(TextPart); ok {
			out = append(out, t.Text)
		}
	}
	return out
}

// nextToolUse returns, as a slice of one, the first part of content that
// is the tool use of c, and the content after it; nil when there is none
// before a different tool use.
func nextToolUse(content []ContentPart, c ToolCall) (part, rest []ContentPart) {
	for i, p := range content {
		u, ok := p.(ToolUsePart)
		if !ok {
			continue
		}
		if u.CallID != c.CallID || u.Name != c.Name || !bytes.Equal(u.Args, c.Args) {
			return nil, content
		}
		return content[i : i+1 : i+1], content[i+1:]
	}
	return nil, content
}
