package helikon_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

func TestProject_FoldsTheLogIntoMessages(t *testing.T) {
	log := []helikon.SessionEvent{
		session.UserMessage(helikon.TextPart{Text: "hi"}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "let me check"}}, "a"),
		session.ToolCalled("c1", "add", json.RawMessage(`{"a":1}`)),
		session.ToolCalled("c2", "add", json.RawMessage(`{"a":2}`)),
		session.ToolReturned("c1", helikon.TextPart{Text: "1"}),
		session.ToolReturned("c2", helikon.TextPart{Text: "2"}),
		session.HandoffOccurred("a", "b"),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "3"}}, "b"),
	}
	items := helikon.Project(log)
	if len(items) != 5 {
		t.Fatalf("%d items: %+v", len(items), items)
	}
	if uses := items[1].ToolUses(); len(uses) != 2 || items[1].Text() != "let me check" {
		t.Errorf("tool calls did not join their assistant message: %+v", items[1])
	}
	if items[4].Agent != "b" {
		t.Errorf("handoff produced a message or lost the author: %+v", items[4])
	}

	compacted := append(log, session.Compacted("summary so far", len(log)), session.UserMessage(helikon.TextPart{Text: "next"}))
	items = helikon.Project(compacted)
	if len(items) != 2 || items[0].Role != helikon.RoleSystem || items[0].Text() != "summary so far" || items[1].Text() != "next" {
		t.Fatalf("compaction projection = %+v", items)
	}
}

func TestMemorySession_AppendEventsSnapshot(t *testing.T) {
	ctx := context.Background()
	s := helikon.NewMemorySession()
	if err := s.Append(ctx, session.UserMessage(helikon.TextPart{Text: "a"}), session.UserMessage(helikon.TextPart{Text: "b"})); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, session.UserMessage(helikon.TextPart{Text: "c"})); err != nil {
		t.Fatal(err)
	}
	all, _ := s.Events(ctx, helikon.Beginning)
	after, _ := s.Events(ctx, 0)
	if len(all) != 3 || all[2].Seq != 2 || len(after) != 2 || after[0].Seq != 1 {
		t.Fatalf("all=%+v after=%+v", all, after)
	}
	snap, _ := s.Snapshot(ctx)
	if len(snap) != 3 || snap[1].Text() != "b" {
		t.Fatalf("snapshot = %+v", snap)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Append(cctx, session.UserMessage()); err == nil {
		t.Error("append on a cancelled context succeeded")
	}
}

func TestSessionEvent_JSONKeepsNanosecondsAndParts(t *testing.T) {
	ev := session.ToolReturned("c1", helikon.TextPart{Text: "ok"})
	ev.Time = time.Date(2026, 11, 30, 1, 2, 3, 456789123, time.UTC)
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var got helikon.SessionEvent
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Time.Equal(ev.Time) || got.Kind != helikon.KindToolReturned || got.Content[0].(helikon.TextPart).Text != "ok" {
		t.Fatalf("round trip: %+v from %s", got, b)
	}
}

func TestProject_CompactedKeepsNewestKeptCountMessages(t *testing.T) {
	user := func(text string) helikon.SessionEvent { return session.UserMessage(helikon.TextPart{Text: text}) }
	assistant := func(text string) helikon.SessionEvent {
		return session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: text}}, "a")
	}
	base := []helikon.SessionEvent{user("u1"), assistant("a1"), user("u2"), assistant("a2")}
	marker := func(kept int) helikon.SessionEvent {
		m := session.Compacted("S", 4)
		m.KeptCount = kept
		return m
	}
	for _, tc := range []struct {
		name string
		kept int
		want []string
	}{
		{"none", 0, []string{"system:S", "user:u3"}},
		{"two", 2, []string{"system:S", "user:u2", "assistant:a2", "user:u3"}},
		{"more than there are", 9, []string{"system:S", "user:u1", "assistant:a1", "user:u2", "assistant:a2", "user:u3"}},
		{"negative is none", -1, []string{"system:S", "user:u3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := append(append(append([]helikon.SessionEvent{}, base...), marker(tc.kept)), user("u3"))
			var got []string
			for _, it := range helikon.Project(evs) {
				got = append(got, string(it.Role)+":"+it.Text())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Project = %q, want %q", got, tc.want)
			}
		})
	}
}
