package session

import (
	"encoding/json"
	"time"

	"github.com/paigasus/helikon"
)

func now() time.Time { return time.Now().UTC() }

// UserMessage records a user message.
func UserMessage(content ...helikon.ContentPart) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindUserMessage, Time: now(), Content: content}
}

// SystemMessage records a system message of a run's input (an agent's
// instructions are rendered afresh on every run and are not recorded).
func SystemMessage(content ...helikon.ContentPart) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindSystemMessage, Time: now(), Content: content}
}

// AssistantMessage records an assistant message written by agent.
func AssistantMessage(content []helikon.ContentPart, agent string) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindAssistantMessage, Time: now(), Content: content, Agent: agent}
}

// ToolCalled records a tool call.
func ToolCalled(callID, name string, args json.RawMessage) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindToolCalled, Time: now(), CallID: callID, Name: name, Args: args}
}

// ToolReturned records a tool result.
func ToolReturned(callID string, content ...helikon.ContentPart) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindToolReturned, Time: now(), CallID: callID, Content: content}
}

// HandoffOccurred records a handoff; it is audit-only and projects to no
// message.
func HandoffOccurred(from, to string) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindHandoffOccurred, Time: now(), From: from, To: to}
}

// Compacted records a compaction: the messages of the originalCount
// preceding events are replaced by summary.
func Compacted(summary string, originalCount int) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindCompacted, Time: now(), Summary: summary, OriginalCount: originalCount}
}
