package helikon

import "time"

// EventTime returns the time the run emitted ev (its At), or the zero time
// for the raw deltas, which carry none, and for events built without one.
func EventTime(ev Event) time.Time {
	if ev == nil {
		return time.Time{}
	}
	return ev.at()
}

// timed is an event that carries its time in At; withAt returns it with
// At set.
type timed interface {
	Event
	withAt(time.Time) Event
}

func (TokenDelta) at() time.Time     { return time.Time{} }
func (ReasoningDelta) at() time.Time { return time.Time{} }
func (ToolCallDelta) at() time.Time  { return time.Time{} }

func (e RunStarted) at() time.Time             { return e.At }
func (e TurnStarted) at() time.Time            { return e.At }
func (e ModelResponded) at() time.Time         { return e.At }
func (e MessageOutput) at() time.Time          { return e.At }
func (e ToolCallItem) at() time.Time           { return e.At }
func (e ToolOutputItem) at() time.Time         { return e.At }
func (e HandoffItem) at() time.Time            { return e.At }
func (e AgentUpdated) at() time.Time           { return e.At }
func (e GuardrailTriggered) at() time.Time     { return e.At }
func (e ApprovalRequested) at() time.Time      { return e.At }
func (e PermissionDenied) at() time.Time       { return e.At }
func (e RepairStarted) at() time.Time          { return e.At }
func (e StructuredOutputFailed) at() time.Time { return e.At }
func (e RunCompleted) at() time.Time           { return e.At }
func (e RunFailed) at() time.Time              { return e.At }
func (e RunPaused) at() time.Time              { return e.At }
func (e SubRunEvent) at() time.Time            { return e.At }

func (e RunStarted) withAt(t time.Time) Event             { e.At = t; return e }
func (e TurnStarted) withAt(t time.Time) Event            { e.At = t; return e }
func (e ModelResponded) withAt(t time.Time) Event         { e.At = t; return e }
func (e MessageOutput) withAt(t time.Time) Event          { e.At = t; return e }
func (e ToolCallItem) withAt(t time.Time) Event           { e.At = t; return e }
func (e ToolOutputItem) withAt(t time.Time) Event         { e.At = t; return e }
func (e HandoffItem) withAt(t time.Time) Event            { e.At = t; return e }
func (e AgentUpdated) withAt(t time.Time) Event           { e.At = t; return e }
func (e GuardrailTriggered) withAt(t time.Time) Event     { e.At = t; return e }
func (e ApprovalRequested) withAt(t time.Time) Event      { e.At = t; return e }
func (e PermissionDenied) withAt(t time.Time) Event       { e.At = t; return e }
func (e RepairStarted) withAt(t time.Time) Event          { e.At = t; return e }
func (e StructuredOutputFailed) withAt(t time.Time) Event { e.At = t; return e }
func (e RunCompleted) withAt(t time.Time) Event           { e.At = t; return e }
func (e RunFailed) withAt(t time.Time) Event              { e.At = t; return e }
func (e RunPaused) withAt(t time.Time) Event              { e.At = t; return e }
func (e SubRunEvent) withAt(t time.Time) Event            { e.At = t; return e }

// StampEvent returns ev with At set to at when it carries none yet (the raw
// deltas never do). Agents that build events outside the LLM loop stamp
// them with it as they emit them, a durable runner with its replay-safe
// clock's time.
func StampEvent(ev Event, at time.Time) Event {
	if unstamped(ev) {
		return ev.(timed).withAt(at)
	}
	return ev
}

// Stamp returns ev with At set to the time now when it carries none yet,
// and reads the clock only then: the raw deltas, which carry no time, and
// events already stamped pass as they are. An agent that forwards events
// of agents that may send them without a time stamps each with it.
func Stamp(ev Event) Event {
	// unstamped's test, written out: a yield that stamps every event it
	// passes makes one call an event, not two.
	if ev == nil || !ev.at().IsZero() {
		return ev
	}
	if t, ok := ev.(timed); ok {
		return t.withAt(now())
	}
	return ev
}

// stamping returns yield wrapped to stamp every event that reaches it
// without a time with the time it is emitted.
func stamping(yield func(Event) bool) func(Event) bool {
	return func(ev Event) bool { return yield(Stamp(ev)) }
}

// unstamped reports whether ev carries a time but has none yet. It asks
// the event for its time first: most events that pass a stamping yield
// (every one an LLM agent's run emits) are stamped already, and the
// question through Event's own method costs less than the assertion to
// timed, whose cache a call site fills slowly with the many event types.
func unstamped(ev Event) bool {
	if ev == nil || !ev.at().IsZero() {
		return false
	}
	_, ok := ev.(timed)
	return ok
}
