package sessiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// SnapshotSession is a session that can keep a compacted snapshot: its
// projection as of a position, read before the events after it.
type SnapshotSession interface {
	helikon.Session
	// LoadProjection returns the projection of the whole log.
	LoadProjection(ctx context.Context) (*helikon.Projection, error)
	// SaveSnapshot stores the projection of the whole log.
	SaveSnapshot(ctx context.Context) error
}

// RunSnapshots checks a backend's compacted snapshots: open returns a
// handle on the session id that writes a new snapshot whenever a load
// folded every or more events past the stored one. Whatever snapshots were
// written, by whichever handle, a load equals [helikon.Project] of the
// log, including calls that join a message the snapshot holds and
// compactions after it.
func RunSnapshots(t *testing.T, open func(t *testing.T, id string, every int) SnapshotSession) {
	t.Helper()
	t.Run("SnapshotThenEventsEqualsProject", func(t *testing.T) {
		id := UniqueID(t)
		s := open(t, id, 1000)
		log := snapshotLog()
		for split := range len(log) {
			// Each split point in a log of its own, snapshotted there.
			sid := fmt.Sprintf("%s-%d", id, split)
			s = open(t, sid, 1000)
			mustAppend(t, s, log[:split]...)
			if err := s.SaveSnapshot(t.Context()); err != nil {
				t.Fatalf("SaveSnapshot: %v", err)
			}
			mustAppend(t, s, log[split:]...)
			checkLoad(t, open(t, sid, 1000))
		}
	})
	t.Run("LoadsWriteSnapshotsAsTheLogGrows", func(t *testing.T) {
		id := UniqueID(t)
		a, b := open(t, id, 2), open(t, id, 3)
		for i, ev := range snapshotLog() {
			mustAppend(t, []helikon.Session{a, b}[i%2], ev)
			checkLoad(t, []SnapshotSession{a, b}[(i/3)%2])
		}
		checkLoad(t, open(t, id, 1))
	})
}

// snapshotLog is a log whose projection changes earlier messages: calls
// joining an assistant message, and compactions that keep messages.
func snapshotLog() []helikon.SessionEvent {
	return append(AllKinds(),
		session.UserMessage(helikon.TextPart{Text: "and then?"}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "checking"}}, "b"),
		session.ToolCalled("c9", "t", json.RawMessage(`{}`)),
		session.ToolCalled("c10", "t", json.RawMessage(`{"k":`)),
		session.ToolReturned("c9", helikon.TextPart{Text: "1"}),
		session.ToolReturned("c10", helikon.TextPart{Text: "nul \x00"}),
		helikon.SessionEvent{Kind: helikon.KindCompacted, Summary: "s2", KeptCount: 3},
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "last"}}, "b"),
	)
}

func checkLoad(t *testing.T, s SnapshotSession) {
	t.Helper()
	events := mustEvents(t, s, helikon.Beginning)
	want := helikon.Project(events)
	p, err := s.LoadProjection(t.Context())
	if err != nil {
		t.Fatalf("LoadProjection: %v", err)
	}
	if d := diffJSON(want, p.Items()); d != "" {
		t.Fatalf("LoadProjection != Project(Events): %s", d)
	}
	if wantSeq := helikon.SequenceID(len(events) - 1); p.Seq() != wantSeq {
		t.Fatalf("LoadProjection at %d, want %d", p.Seq(), wantSeq)
	}
	items, err := s.Snapshot(t.Context())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if d := diffJSON(want, items); d != "" {
		t.Fatalf("Snapshot != Project(Events): %s", d)
	}
}
