package session_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

func TestRecords_CarryTheirKindFieldsAndAUTCTime(t *testing.T) {
	text := []helikon.ContentPart{helikon.TextPart{Text: "hi"}}
	args := json.RawMessage(`{"q":1}`)
	tests := []struct {
		name string
		got  helikon.SessionEvent
		want helikon.SessionEvent
	}{
		{"UserMessage", session.UserMessage(text...), helikon.SessionEvent{Kind: helikon.KindUserMessage, Content: text}},
		{"AssistantMessage", session.AssistantMessage(text, "a"), helikon.SessionEvent{Kind: helikon.KindAssistantMessage, Content: text, Agent: "a"}},
		{"ToolCalled", session.ToolCalled("c1", "search", args), helikon.SessionEvent{Kind: helikon.KindToolCalled, CallID: "c1", Name: "search", Args: args}},
		{"ToolReturned", session.ToolReturned("c1", text...), helikon.SessionEvent{Kind: helikon.KindToolReturned, CallID: "c1", Content: text}},
		{"HandoffOccurred", session.HandoffOccurred("a", "b"), helikon.SessionEvent{Kind: helikon.KindHandoffOccurred, From: "a", To: "b"}},
		{"Compacted", session.Compacted("sum", 7), helikon.SessionEvent{Kind: helikon.KindCompacted, Summary: "sum", OriginalCount: 7}},
		{"ResumeClaimed", session.ResumeClaimed("r1", "p1", "claim"), helikon.SessionEvent{Kind: helikon.KindRunResumed, RunID: "r1", PauseID: "p1", Name: "claim"}},
		{"PermissionGranted", session.PermissionGranted("r1", "Bash(ls)"), helikon.SessionEvent{Kind: helikon.KindPermissionGranted, RunID: "r1", Name: "Bash(ls)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got.Time.IsZero() || tt.got.Time.Location() != time.UTC {
				t.Errorf("Time = %v, want a UTC time", tt.got.Time)
			}
			tt.got.Time = time.Time{}
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %+v, want %+v", tt.got, tt.want)
			}
		})
	}
}

func TestPauseRecorded_HoldsTheWholeStateUnderItsIDs(t *testing.T) {
	st := &helikon.RunState{Version: helikon.RunStateVersion, RunID: "r1", PauseID: "p1", Agent: "a",
		Pending: []helikon.PendingApproval{{ID: "c1"}}, Allow: []string{"Bash(ls)"}}
	ev, err := session.PauseRecorded(st)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != helikon.KindRunPaused || ev.RunID != "r1" || ev.PauseID != "p1" || ev.Agent != "a" {
		t.Fatalf("event = %+v, want run_paused of r1/p1 by a", ev)
	}
	want, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if string(ev.State) != string(want) {
		t.Errorf("State = %s, want the state's encoding %s", ev.State, want)
	}
}
