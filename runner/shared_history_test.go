package runner_test

import (
	"context"
	"errors"
	"iter"
	"reflect"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// sharedSession hands out one list as its shared snapshot, with spare
// room past its end, and fails its copying Snapshot: a run must read the
// shared list.
type sharedSession struct {
	*helikon.MemorySession
	list []helikon.Item
}

func (s *sharedSession) SharedSnapshot(context.Context) ([]helikon.Item, error) { return s.list, nil }

func (s *sharedSession) Snapshot(context.Context) ([]helikon.Item, error) {
	return nil, errors.New("the runner read the copying Snapshot of a session that shares its snapshot")
}

// scribbler is an agent that is not a HistoryRunner and writes over the
// conversation it is given before running the agent it wraps over it.
type scribbler struct{ *helikon.LLMAgent }

func (s scribbler) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	conv := append([]helikon.Item(nil), input...)
	for i := range input {
		input[i] = helikon.SystemItem("scribbled")
	}
	return s.LLMAgent.Run(ctx, rc, conv)
}

// TestRunner_ASharedHistoryIsReadNeverWritten pins that the runner reads a
// session's shared snapshot (runner.SharedSnapshotter) without a copy of
// its own and that no run writes to it: an LLMAgent takes it apart from the
// input, and an agent that is not a HistoryRunner, even one that writes to
// what it is given, gets its own list.
func TestRunner_ASharedHistoryIsReadNeverWritten(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent func(*helikon.LLMAgent) helikon.Agent
	}{
		{"llm agent", func(a *helikon.LLMAgent) helikon.Agent { return a }},
		{"other agent writing its input", func(a *helikon.LLMAgent) helikon.Agent { return scribbler{a} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			history := []helikon.Item{
				helikon.UserText("hi")[0],
				{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "hello"}}, Agent: "calc"},
			}
			list := append(make([]helikon.Item, 0, 16), history...)
			before := append([]helikon.Item(nil), list[:cap(list)]...)
			sess := &sharedSession{MemorySession: helikon.NewMemorySession(), list: list}
			model := s1Model()
			rc := helikon.NewRunContext(helikon.WithSession(sess))
			res, err := runner.New().Run(t.Context(), tc.agent(newAgent(t, model)), rc, helikon.UserText("what is 40+2?"))
			if err != nil || res.FinalOutput != "sum is 42" {
				t.Fatalf("run: %v, %v", res, err)
			}
			reqs := model.Requests()
			if len(reqs) != 2 || roles(reqs[0].Messages) != "user assistant user" ||
				roles(reqs[1].Messages) != "user assistant user assistant+call tool" {
				t.Fatalf("requests: %d, first %s", len(reqs), roles(reqs[0].Messages))
			}
			if !reflect.DeepEqual(reqs[0].Messages[:2], history) {
				t.Errorf("the model saw history %v, want %v", reqs[0].Messages[:2], history)
			}
			if got := list[:cap(list)]; !reflect.DeepEqual(got, before) {
				t.Errorf("the shared history changed: %v", got)
			}
		})
	}
}
