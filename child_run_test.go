package helikon

import (
	"testing"
)

// TestRunContext_ChildrenAreWhatChildMakes pins that each of Children's
// contexts is a Child of the parent: one level deeper, the parent's
// state, session and hooks, and an action handle of its own, so a child
// that escalates escalates neither its siblings nor the parent.
func TestRunContext_ChildrenAreWhatChildMakes(t *testing.T) {
	parent := NewRunContext(WithUser("u")).Child()
	want := parent.Child()
	cs := parent.Children(3)
	if len(cs) != 3 {
		t.Fatalf("%d children, want 3", len(cs))
	}
	for i := range cs {
		c := &cs[i]
		if c.Depth() != want.Depth() || c.State() != parent.State() || c.Session() != parent.Session() || c.hooks != parent.hooks || c.User() != "u" {
			t.Errorf("child %d: depth %d (want %d), or state, session, hooks or user not the parent's", i, c.Depth(), want.Depth())
		}
		if c.Actions() == nil || c.Actions() == parent.Actions() {
			t.Errorf("child %d shares its parent's actions", i)
		}
	}
	cs[1].Actions().Escalate()
	if cs[0].Actions().Escalated() || cs[2].Actions().Escalated() || parent.Actions().Escalated() {
		t.Error("one child's escalation reached a sibling or the parent")
	}
}

// TestChildOutcome_KeepsTheLastMessagesContent pins Content beside
// Final: the content of the child's last message, whatever its parts.
func TestChildOutcome_KeepsTheLastMessagesContent(t *testing.T) {
	first := []ContentPart{TextPart{Text: "draft"}}
	last := []ContentPart{TextPart{Text: "a"}, ImagePart{URL: "https://example.com/i.png"}, TextPart{Text: "b"}}
	var o ChildOutcome
	for _, ev := range []Event{
		RunStarted{Agent: "c"},
		MessageOutput{Item: Item{Role: RoleAssistant, Content: first}},
		MessageOutput{Item: Item{Role: RoleAssistant, Content: last}},
		RunCompleted{Agent: "c"},
	} {
		o.See(ev)
	}
	o.End("c")
	if o.Final != "ab" || len(o.Content) != len(last) || &o.Content[0] != &last[0] {
		t.Errorf("final %q, content %v; want %q and the last message's content", o.Final, o.Content, "ab")
	}
}
