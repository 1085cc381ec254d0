package helikon

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/paigasus/helikon/internal/eventclock"
	"github.com/paigasus/helikon/internal/storedargs"
)

// Session persists a conversation as an append-only log of [SessionEvent]s,
// safely for concurrent use. Append writes events at the end of the log
// atomically: all of them get consecutive sequence ids, or none is stored.
// Events reads the log after a position (exclusive; [Beginning] reads it
// whole). Snapshot returns the log projected to messages ([Project]).
type Session interface {
	Append(ctx context.Context, events ...SessionEvent) error
	Events(ctx context.Context, after SequenceID) ([]SessionEvent, error)
	Snapshot(ctx context.Context) ([]Item, error)
}

// SequenceID is a position in one session's log, counted from 0.
type SequenceID int64

// Beginning is the position before the first event: Events(ctx, Beginning)
// reads the whole log.
const Beginning SequenceID = -1

// The errors of session backends.
var (
	// ErrSessionUnavailable reports a session backend that cannot be reached.
	ErrSessionUnavailable = errors.New("helikon: session backend unavailable")
	// ErrSessionCorrupt reports a stored log that is not one a session
	// wrote: an event that does not decode, a stored value of the wrong
	// form, events out of order. Backends fail closed on it and change
	// nothing; the log needs an operator, not a retry.
	ErrSessionCorrupt = errors.New("helikon: stored session log is malformed")
)

// SessionEventKind names the variant of a [SessionEvent].
type SessionEventKind string

// The session event kinds.
const (
	KindUserMessage      SessionEventKind = "user_message"
	KindSystemMessage    SessionEventKind = "system_message"
	KindAssistantMessage SessionEventKind = "assistant_message"
	KindToolCalled       SessionEventKind = "tool_called"
	KindToolReturned     SessionEventKind = "tool_returned"
	KindHandoffOccurred  SessionEventKind = "handoff_occurred"
	KindCompacted        SessionEventKind = "compacted"
	// The human-in-the-loop records project to no message.
	KindRunPaused         SessionEventKind = "run_paused"
	KindRunResumed        SessionEventKind = "run_resumed"
	KindPermissionGranted SessionEventKind = "permission_granted"
)

// SessionEvent is one entry of a session log, a record whose Kind says
// which fields are meaningful. Package session's constructors build them.
type SessionEvent struct {
	// Seq is the event's position, assigned by the backend on Append.
	Seq  SequenceID       `json:"seq"`
	Kind SessionEventKind `json:"type"`
	Time time.Time        `json:"ts"`
	// Content: user, system and assistant messages, tool results.
	Content []ContentPart `json:"content,omitempty"`
	// Agent: the author of an assistant message.
	Agent string `json:"agent,omitempty"`
	// CallID, Name, Args: tool calls; CallID (and IsError): tool results.
	CallID  string          `json:"call_id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	// From, To: handoffs.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Summary, OriginalCount: compaction markers.
	Summary       string `json:"summary,omitempty"`
	OriginalCount int    `json:"original_count,omitempty"`
	// KeptCount: compaction markers that keep the newest KeptCount
	// messages before them verbatim after the summary (0 keeps none).
	KeptCount int `json:"kept_count,omitempty"`
	// RunID, PauseID, State: a paused run's record and the claim of its
	// resume; Name also carries a granted permission's allow rule.
	RunID   string          `json:"run_id,omitempty"`
	PauseID string          `json:"pause_id,omitempty"`
	State   json.RawMessage `json:"state,omitempty"`
}

// MarshalJSON encodes the event, its arguments as [MaxStoredArgsDepth]
// describes.
func (e SessionEvent) MarshalJSON() ([]byte, error) {
	type plain SessionEvent
	if storedargs.Storable(e.Args, MaxStoredArgsDepth) {
		return json.Marshal(plain(e))
	}
	stored := storedargs.Store(e.Args, MaxStoredArgsDepth)
	e.Args = nil
	return json.Marshal(struct {
		plain
		ArgsText  string `json:"args_text,omitempty"`
		ArgsBytes []byte `json:"args_bytes,omitempty"`
	}{plain(e), stored.ArgsText, stored.ArgsBytes})
}

// UnmarshalJSON decodes the event, resolving content parts by "type" and
// restoring arguments kept in "args_text" or "args_bytes".
func (e *SessionEvent) UnmarshalJSON(data []byte) error {
	type plain SessionEvent
	var raw struct {
		plain
		Content   wireParts `json:"content"`
		ArgsText  string    `json:"args_text"`
		ArgsBytes []byte    `json:"args_bytes"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	parts, err := raw.Content.parts()
	if err != nil {
		return err
	}
	*e = SessionEvent(raw.plain)
	e.Content = parts
	e.Args = storedargs.Restore(e.Args, raw.ArgsText, raw.ArgsBytes)
	return nil
}

// now is the time an event is stamped with (see eventclock).
func now() time.Time { return eventclock.Now() }

// Project folds a log into the messages a model consumes. Consecutive tool
// calls of one assistant turn join the assistant message before them;
// HandoffOccurred yields nothing; Compacted drops every message before it,
// except the newest KeptCount, and emits its summary as a system message
// ahead of those. [Projection] does the same fold incrementally.
func Project(events []SessionEvent) []Item {
	items, _ := fold(make([]Item, 0, len(events)), 0, events)
	return items
}

// fold projects events onto items, as [Project] describes, and returns the
// new items and how many are still shared. The first frozen items are
// shared with readers: an event that would change one (a call joining an
// earlier message, a compaction) makes fold copy the items first.
func fold(items []Item, frozen int, events []SessionEvent) ([]Item, int) {
	thaw := func() {
		if frozen > 0 {
			items = append(make([]Item, 0, cap(items)+len(events)), items...)
			frozen = 0
		}
	}
	for _, ev := range events {
		switch ev.Kind {
		case KindUserMessage:
			items = append(items, Item{Role: RoleUser, Content: ev.Content})
		case KindSystemMessage:
			items = append(items, Item{Role: RoleSystem, Content: ev.Content})
		case KindAssistantMessage:
			items = append(items, Item{Role: RoleAssistant, Content: ev.Content, Agent: ev.Agent})
		case KindToolCalled:
			use := ToolUsePart{CallID: ev.CallID, Name: ev.Name, Args: ev.Args}
			// A call joins the assistant message it belongs to when that
			// message is the last item; otherwise it opens one.
			if n := len(items); n > 0 && items[n-1].Role == RoleAssistant {
				if n <= frozen {
					thaw()
				}
				last := &items[n-1]
				last.Content = append(last.Content[:len(last.Content):len(last.Content)], use)
			} else {
				items = append(items, Item{Role: RoleAssistant, Content: []ContentPart{use}})
			}
		case KindToolReturned:
			items = append(items, Item{Role: RoleTool, Content: []ContentPart{ToolResultPart{
				CallID: ev.CallID, Name: ev.Name, Content: ev.Content, IsError: ev.IsError,
			}}})
		case KindCompacted:
			kept := slices.Clone(items[len(items)-min(max(ev.KeptCount, 0), len(items)):])
			if frozen > 0 {
				items, frozen = make([]Item, 0, len(kept)+1+len(events)), 0
			}
			items = append(append(items[:0], SystemItem(ev.Summary)), kept...)
		}
	}
	return items, frozen
}
