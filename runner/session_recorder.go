package runner

import (
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// InterruptedToolResult is the text of the error result
// [SessionRecorder.Drain] gives a tool call that never returned.
const InterruptedToolResult = "interrupted: the run ended before the tool returned"

// SessionRecorder turns a run's [helikon.Event] stream into the [helikon.SessionEvent]s a
// [helikon.Session] stores: the run's input, assistant messages (with their author
// and reasoning), tool calls, tool results and handoffs. Runners feed it
// every event of a run and append what it records; the server, evals and
// durable runners reuse it so that every backend logs runs the same way.
//
// The zero SessionRecorder is ready to use and has recorded nothing, so a
// runner can hold one inside its own per-run state. A SessionRecorder is
// not safe for concurrent use; one run owns it. It must not be copied after
// first use.
type SessionRecorder struct {
	events []helikon.SessionEvent
	// open lists the calls recorded without a result yet, in call order.
	open []openCall
	// The first events and calls of a run fit in the recorder itself.
	eventBuf [4]helikon.SessionEvent
	openBuf  [4]openCall
	// reasoning holds the current turn's reasoning deltas until the
	// assistant message they belong to is recorded.
	reasoning helikon.ReasoningBuilder
}

type openCall struct{ id, name string }

// NewSessionRecorder returns a recorder seeded with the run's new input (the
// part of the conversation the session does not hold yet), its system items
// included: a later run on the session sees them where this one did. An
// agent's instructions are not part of the input and are not recorded.
func NewSessionRecorder(input []helikon.Item) *SessionRecorder {
	r := &SessionRecorder{}
	r.Record(input)
	return r
}

// Record records items that enter the conversation from outside the run's
// stream, as [NewSessionRecorder] records the run's input.
func (r *SessionRecorder) Record(items []helikon.Item) {
	for _, it := range items {
		r.recordItem(it)
	}
}

// add appends ev to the recorded events. A recorder's first events go to
// its own buffer: binding it here rather than in a constructor keeps the
// zero value usable.
func (r *SessionRecorder) add(ev helikon.SessionEvent) {
	if r.events == nil {
		r.events = r.eventBuf[:0]
	}
	r.events = append(r.events, ev)
}

func (r *SessionRecorder) recordItem(it helikon.Item) {
	switch it.Role {
	case helikon.RoleUser:
		r.add(session.UserMessage(it.Content...))
	case helikon.RoleSystem:
		r.add(session.SystemMessage(it.Content...))
	case helikon.RoleAssistant:
		r.recordAssistant(it, true)
	case helikon.RoleTool:
		for _, p := range it.Content {
			if res, ok := p.(helikon.ToolResultPart); ok {
				r.recordResult(res)
			}
		}
	}
}

// recordAssistant records an assistant item: its text and reasoning as one
// message, then, with calls, each tool use as a call. (In a run's stream the
// calls arrive as their own ToolCallItem events.)
func (r *SessionRecorder) recordAssistant(it helikon.Item, calls bool) {
	var uses int
	for _, p := range it.Content {
		if _, ok := p.(helikon.ToolUsePart); ok {
			uses++
		}
	}
	content := it.Content
	if uses > 0 {
		content = make([]helikon.ContentPart, 0, len(it.Content)-uses)
		for _, p := range it.Content {
			if _, ok := p.(helikon.ToolUsePart); !ok {
				content = append(content, p)
			}
		}
	}
	if len(content) > 0 {
		r.add(session.AssistantMessage(content, it.Agent))
	}
	if !calls {
		return
	}
	for _, p := range it.Content {
		if u, ok := p.(helikon.ToolUsePart); ok {
			r.recordCall(u)
		}
	}
}

func (r *SessionRecorder) recordCall(u helikon.ToolUsePart) {
	r.add(session.ToolCalled(u.CallID, u.Name, u.Args))
	if r.open == nil {
		r.open = r.openBuf[:0]
	}
	r.open = append(r.open, openCall{u.CallID, u.Name})
}

func (r *SessionRecorder) recordResult(res helikon.ToolResultPart) {
	ev := session.ToolReturned(res.CallID, res.Content...)
	ev.Name, ev.IsError = res.Name, res.IsError
	r.add(ev)
	for i, c := range r.open {
		if c.id == res.CallID {
			r.open = append(r.open[:i], r.open[i+1:]...)
			break
		}
	}
}

// Observe records what ev adds to the conversation; other events are
// ignored. What it records carries ev's time ([helikon.EventTime]) when ev
// has one.
func (r *SessionRecorder) Observe(ev helikon.Event) {
	n := len(r.events)
	r.observe(ev)
	if len(r.events) > n {
		if at := helikon.EventTime(ev); !at.IsZero() {
			for i := n; i < len(r.events); i++ {
				r.events[i].Time = at
			}
		}
	}
}

func (r *SessionRecorder) observe(ev helikon.Event) {
	switch e := ev.(type) {
	case helikon.TurnStarted:
		if r.reasoning.Len() > 0 {
			r.reasoning.Reset()
		}
	case helikon.ReasoningDelta:
		r.reasoning.Add(e)
	case helikon.MessageOutput:
		// The settled message already holds the turn's reasoning.
		if r.reasoning.Len() > 0 {
			r.reasoning.Reset()
		}
		r.recordAssistant(e.Item, false)
	case helikon.ToolCallItem:
		if r.reasoning.Len() > 0 {
			// A turn that only called tools: its reasoning precedes the
			// calls, as providers that sign reasoning require.
			parts := r.reasoning.Parts()
			content := make([]helikon.ContentPart, len(parts))
			for i, p := range parts {
				content[i] = p
			}
			r.add(session.AssistantMessage(content, e.Item.Agent))
			r.reasoning.Reset()
		}
		for _, p := range e.Item.Content {
			if u, ok := p.(helikon.ToolUsePart); ok {
				r.recordCall(u)
			}
		}
	case helikon.ToolOutputItem:
		for _, p := range e.Item.Content {
			if res, ok := p.(helikon.ToolResultPart); ok {
				r.recordResult(res)
			}
		}
	case helikon.HandoffItem:
		r.add(session.HandoffOccurred(e.From, e.To))
	}
}

// Settled reports whether every recorded tool call has its result, so that
// what was recorded so far projects to a conversation a provider accepts.
func (r *SessionRecorder) Settled() bool { return len(r.open) == 0 }

// Take returns the events recorded since the last Take and forgets them.
// Calls still open stay tracked: their results, when they come, are
// recorded as usual. Runners that persist as a run goes take at points
// where the recorder is [SessionRecorder.Settled].
func (r *SessionRecorder) Take() []helikon.SessionEvent {
	n := len(r.events)
	out := r.events[:n:n]
	// Later events go to the rest of the same array, past what out sees.
	r.events = r.events[n:]
	return out
}

// Drain ends the recording: it gives every call still open a ToolReturned
// error result saying the call was interrupted, so the log always projects
// to a provider-valid conversation, and returns what [SessionRecorder.Take]
// would.
func (r *SessionRecorder) Drain() []helikon.SessionEvent {
	for _, c := range r.open {
		ev := session.ToolReturned(c.id, helikon.TextPart{Text: InterruptedToolResult})
		ev.Name, ev.IsError = c.name, true
		r.add(ev)
	}
	r.open = r.open[:0]
	return r.Take()
}
