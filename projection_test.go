package helikon_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sessiontest"
)

// projectionLog has every event kind, a call that joins an assistant
// message, and a compaction that keeps messages, so every way a fold can
// change an earlier item is exercised at every split point.
func projectionLog() []helikon.SessionEvent {
	evs := append(sessiontest.AllKinds(),
		session.UserMessage(helikon.TextPart{Text: "and then?"}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "checking"}}, "b"),
		session.ToolCalled("c9", "t", json.RawMessage(`{}`)),
		session.ToolCalled("c10", "t", json.RawMessage(`{"k":1}`)),
		session.ToolReturned("c9", helikon.TextPart{Text: "1"}),
		session.ToolReturned("c10", helikon.TextPart{Text: "2"}),
		helikon.SessionEvent{Kind: helikon.KindCompacted, Summary: "s2", KeptCount: 3},
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "last"}}, "b"),
	)
	for i := range evs {
		evs[i].Seq = helikon.SequenceID(i)
	}
	return evs
}

// Folding a log in two parts gives what Project gives for the whole, and
// never changes the items an earlier Items call returned.
func TestProjection_IncrementalFoldEqualsProjectAndKeepsEarlierViews(t *testing.T) {
	log := projectionLog()
	want := helikon.Project(log)
	for split := range len(log) + 1 {
		for second := split; second <= len(log); second++ {
			var p helikon.Projection
			p.Apply(log[:split]...)
			first := p.Items()
			firstJSON := jsonOf(t, first)
			p.Apply(log[split:second]...)
			mid := p.Items()
			midJSON := jsonOf(t, mid)
			p.Apply(log[second:]...)
			if got := p.Items(); !reflect.DeepEqual(got, want) {
				t.Fatalf("split %d/%d: items differ from Project", split, second)
			}
			if jsonOf(t, first) != firstJSON || jsonOf(t, mid) != midJSON {
				t.Fatalf("split %d/%d: a later fold changed an earlier view", split, second)
			}
			if p.Seq() != helikon.SequenceID(len(log)-1) {
				t.Fatalf("Seq = %d, want %d", p.Seq(), len(log)-1)
			}
		}
	}
}

func TestProjection_RestoredFromItemsContinuesTheFold(t *testing.T) {
	log := projectionLog()
	for split := range len(log) + 1 {
		p := helikon.NewProjection(helikon.Project(log[:split]), helikon.SequenceID(split-1))
		p.Apply(log[split:]...)
		if !reflect.DeepEqual(p.Items(), helikon.Project(log)) {
			t.Fatalf("restored at %d: items differ from Project", split)
		}
	}
	var empty helikon.Projection
	if empty.Seq() != helikon.Beginning || len(empty.Items()) != 0 {
		t.Fatalf("zero Projection: Seq %d, %d items", empty.Seq(), len(empty.Items()))
	}
}

func jsonOf(t *testing.T, items []helikon.Item) string {
	t.Helper()
	data, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
