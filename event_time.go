package helikon

import "time"

// EventTime returns the time the run emitted ev (its At), or the zero time
// for the raw deltas, which carry none, and for events built without one.
func EventTime(ev Event) time.Time {
	if t, ok := ev.(timed); ok {
		return t.at()
	}
	return time.Time{}
}

// timed is an event that carries its time in At.
type timed interface{ at() time.Time }

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

// StampEvent returns ev with At set to at when it carries none yet (the raw
// deltas never do). Agents that build events outside the LLM loop stamp
// them with it as they emit them, a durable runner with its replay-safe
// clock's time.
func StampEvent(ev Event, at time.Time) Event {
	if !EventTime(ev).IsZero() {
		return ev
	}
	switch e := ev.(type) {
	case RunStarted:
		e.At = at
		return e
	case TurnStarted:
		e.At = at
		return e
	case ModelResponded:
		e.At = at
		return e
	case MessageOutput:
		e.At = at
		return e
	case ToolCallItem:
		e.At = at
		return e
	case ToolOutputItem:
		e.At = at
		return e
	case HandoffItem:
		e.At = at
		return e
	case AgentUpdated:
		e.At = at
		return e
	case GuardrailTriggered:
		e.At = at
		return e
	case ApprovalRequested:
		e.At = at
		return e
	case PermissionDenied:
		e.At = at
		return e
	case RepairStarted:
		e.At = at
		return e
	case StructuredOutputFailed:
		e.At = at
		return e
	case RunCompleted:
		e.At = at
		return e
	case RunFailed:
		e.At = at
		return e
	case RunPaused:
		e.At = at
		return e
	case SubRunEvent:
		e.At = at
		return e
	}
	return ev
}

// stamping returns yield wrapped to stamp every event that reaches it
// without a time with the time it is emitted.
func stamping(yield func(Event) bool) func(Event) bool {
	return func(ev Event) bool {
		if needsStamp(ev) {
			ev = StampEvent(ev, now())
		}
		return yield(ev)
	}
}

func needsStamp(ev Event) bool {
	t, ok := ev.(timed)
	return ok && t.at().IsZero()
}
