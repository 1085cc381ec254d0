package helikon_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
)

func TestTransition_EventsCarryTheTimeTheDriverGaveIt(t *testing.T) {
	at := time.Date(2026, 12, 2, 16, 0, 0, 123456789, time.UTC)
	first := at.Add(-time.Second)
	tc := &helikon.TransitionCtx{Agent: "a", Now: at, Tools: []helikon.ToolDef{{Name: "add"}}}
	out := helikon.Transition(nil, helikon.Start{}, tc)
	for _, ev := range out.Events {
		if got := helikon.EventTime(ev); !got.Equal(at) {
			t.Errorf("start: %T at %v, want %v", ev, got, at)
		}
	}
	call := helikon.ToolCall{CallID: "c1", Name: "add", Args: json.RawMessage(`{}`)}
	resp := helikon.ModelResponse{
		Message:      helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "hm"}, helikon.ToolUsePart{CallID: "c1", Name: "add"}}},
		Calls:        []helikon.ToolCall{call},
		FirstTokenAt: first,
	}
	out = helikon.Transition(out.Next, resp, tc)
	for _, ev := range out.Events {
		if got := helikon.EventTime(ev); !got.Equal(at) {
			t.Errorf("model: %T at %v, want %v", ev, got, at)
		}
	}
	if mr := out.Events[0].(helikon.ModelResponded); !mr.FirstTokenAt.Equal(first) {
		t.Errorf("first token at %v, want %v", mr.FirstTokenAt, first)
	}

	// A result's own times win over the transition's.
	started, ended, later := at.Add(time.Millisecond), at.Add(5*time.Millisecond), at.Add(time.Second)
	tc.Now = later
	out = helikon.Transition(out.Next, helikon.ToolResults{Results: []helikon.ToolResult{{
		CallID: "c1", Name: "add", Content: []helikon.ContentPart{helikon.TextPart{Text: "3"}}, StartedAt: started, EndedAt: ended,
	}}}, tc)
	item := out.Events[0].(helikon.ToolOutputItem)
	if !item.StartedAt.Equal(started) || !item.At.Equal(ended) {
		t.Errorf("tool output item ran [%v, %v), want [%v, %v)", item.StartedAt, item.At, started, ended)
	}
	if ts := out.Events[1].(helikon.TurnStarted); !ts.At.Equal(later) {
		t.Errorf("next turn at %v, want %v", ts.At, later)
	}

	// Without a time the transition stamps nothing, as before.
	out = helikon.Transition(nil, helikon.Start{}, &helikon.TransitionCtx{Agent: "a"})
	b, _ := json.Marshal(out.Events[0])
	if strings.Contains(string(b), `"at"`) {
		t.Errorf("an unstamped event marshals a time: %s", b)
	}
}

func TestRun_EveryEventButTheRawDeltasCarriesWhenItHappened(t *testing.T) {
	scripts := []mock.Script{
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}, mock.Call{ID: "c2", Name: "add", Args: `{"a":3,"b":4}`}),
		mock.Deltas("the sums ", "are 3 and 7"),
	}
	before := time.Now()
	res, err := helikon.Collect(mustAgent(t, "calc", mock.New(scripts), helikon.WithTools(addTool)).
		Run(context.Background(), nil, helikon.UserText("add")))
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	var prev time.Time
	var responded int
	for i, ev := range res.Events {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		switch ev.(type) {
		case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
			if strings.Contains(string(b), `"at"`) {
				t.Errorf("event %d, a raw delta, carries a time: %s", i, b)
			}
			continue
		}
		at := helikon.EventTime(ev)
		if at.IsZero() || at.Before(before) || at.After(after) {
			t.Fatalf("event %d %s: at %v, not within the run [%v, %v]", i, b, at, before, after)
		}
		if at.Location() != time.UTC || !strings.Contains(string(b), `"at":"`+at.Format(time.RFC3339Nano)+`"`) {
			t.Errorf("event %d: %s, want \"at\" in RFC 3339 with nanoseconds, UTC", i, b)
		}
		switch e := ev.(type) {
		case helikon.ToolOutputItem:
			// The round's calls ran side by side: each has its own span,
			// which starts after the calls were announced and ends before
			// the next turn.
			if e.StartedAt.IsZero() || e.StartedAt.After(e.At) || e.StartedAt.Before(prev) {
				t.Errorf("event %d: tool ran [%v, %v) after an event at %v", i, e.StartedAt, e.At, prev)
			}
			continue
		case helikon.ModelResponded:
			responded++
			if e.FirstTokenAt.IsZero() || e.FirstTokenAt.Before(prev) || e.FirstTokenAt.After(e.At) {
				t.Errorf("event %d: first token at %v, want within [%v, %v]", i, e.FirstTokenAt, prev, e.At)
			}
		}
		if at.Before(prev) {
			t.Errorf("event %d %T at %v, before the event ahead of it (%v)", i, ev, at, prev)
		}
		prev = at
	}
	if responded != 2 {
		t.Fatalf("%d model_responded events, want 2", responded)
	}
}

// An LLM agent's run gives a time to the events it forwards from an agent
// that sends them without one, a handoff target's or an agent tool's sub-run's,
// so that every event of the run but the raw deltas carries its time (a
// workflow's fan-out forwards its LLM children's events unstamped).
func TestRun_EventsForwardedFromAnAgentWithoutTimesGetTheirs(t *testing.T) {
	// untimed answers with a message and a completion that carry no time.
	untimed := agentFunc("untimed", func(_ context.Context, yield func(helikon.Event) bool) {
		msg := helikon.Item{Role: helikon.RoleAssistant, Agent: "untimed", Content: []helikon.ContentPart{helikon.TextPart{Text: "raw"}}}
		_ = yield(helikon.MessageOutput{Item: msg}) && yield(helikon.RunCompleted{Agent: "untimed"})
	})
	tool, err := helikon.AgentAsTool(untimed)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		agent *helikon.LLMAgent
	}{
		{"handoff target", mustAgent(t, "front", mock.Scripted(transfer("untimed")), helikon.WithHandoffs(helikon.HandoffTo(untimed)))},
		{"agent tool", mustAgent(t, "front", mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "c1", Name: "untimed", Args: `{"input":"go"}`}), mock.Text("done")), helikon.WithTools(tool))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := time.Now()
			res, err := helikon.Collect(tc.agent.Run(context.Background(), nil, helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			after := time.Now()
			forwarded := 0
			for i, ev := range res.Events {
				switch e := ev.(type) {
				case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
					continue
				case helikon.MessageOutput:
					if e.Item.Agent == "untimed" {
						forwarded++
					}
				case helikon.SubRunEvent:
					forwarded++
				}
				if at := helikon.EventTime(ev); at.Before(before) || at.After(after) {
					t.Errorf("event %d %T at %v, not within the run [%v, %v]", i, ev, at, before, after)
				}
			}
			if forwarded == 0 {
				t.Fatalf("no event of the untimed agent in %d events", len(res.Events))
			}
		})
	}
}

func TestRun_ParallelToolCallsOverlapInTheirEventTimes(t *testing.T) {
	// Each call returns only once both have started, so the two run at
	// once whatever the scheduler does; their spans must overlap.
	var started sync.WaitGroup
	started.Add(2)
	both := helikon.MustTool("both", "Waits for its sibling.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		started.Done()
		started.Wait()
		return "ok", nil
	})
	scripts := []mock.Script{
		mock.ToolCalls(mock.Call{ID: "c1", Name: "both", Args: `{}`}, mock.Call{ID: "c2", Name: "both", Args: `{}`}),
		mock.Text("done"),
	}
	for _, ctxKind := range []string{"background", "cancellable"} {
		t.Run(ctxKind, func(t *testing.T) {
			started = sync.WaitGroup{}
			started.Add(2)
			ctx := context.Background()
			if ctxKind == "cancellable" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			res, err := helikon.Collect(mustAgent(t, "a", mock.New(scripts), helikon.WithTools(both)).Run(ctx, nil, helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			var spans []helikon.ToolOutputItem
			for _, ev := range res.Events {
				if o, ok := ev.(helikon.ToolOutputItem); ok {
					spans = append(spans, o)
				}
			}
			if len(spans) != 2 {
				t.Fatalf("%d tool outputs, want 2", len(spans))
			}
			a, b := spans[0], spans[1]
			if !a.StartedAt.Before(b.At) || !b.StartedAt.Before(a.At) {
				t.Errorf("calls ran [%v, %v) and [%v, %v): no overlap", a.StartedAt, a.At, b.StartedAt, b.At)
			}
		})
	}
}

func TestEvent_TimesRoundTripThroughJSON(t *testing.T) {
	at := time.Date(2026, 12, 2, 16, 0, 0, 123456789, time.UTC)
	first, start := at.Add(-time.Second), at.Add(-time.Millisecond)
	events := []helikon.Event{
		helikon.RunStarted{Agent: "a", At: at},
		helikon.TurnStarted{Turn: 1, At: at},
		helikon.ModelResponded{Turn: 1, At: at, FirstTokenAt: first},
		helikon.MessageOutput{At: at},
		helikon.ToolCallItem{At: at},
		helikon.ToolOutputItem{At: at, StartedAt: start},
		helikon.HandoffItem{From: "a", To: "b", At: at},
		helikon.AgentUpdated{Agent: "b", At: at},
		helikon.GuardrailTriggered{Kind: helikon.GuardrailInputPolicy, At: at},
		helikon.ApprovalRequested{CallID: "c", Tool: "t", Args: json.RawMessage(`{}`), At: at},
		helikon.PermissionDenied{Tool: "t", Reason: "no", At: at},
		helikon.RepairStarted{Attempt: 1, At: at},
		helikon.StructuredOutputFailed{At: at},
		helikon.RunCompleted{At: at},
		helikon.RunFailed{Err: helikon.ErrMaxTurnsExceeded, At: at},
		helikon.SubRunEvent{CallID: "c", Tool: "t", Agent: "s", Event: helikon.RunStarted{Agent: "s", At: first}, At: first},
	}
	for _, ev := range events {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"at":"2026-12-02T1`) {
			t.Errorf("%s: no \"at\"", b)
		}
		got, err := helikon.UnmarshalEvent(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if want := helikon.EventTime(ev); !helikon.EventTime(got).Equal(want) {
			t.Errorf("%s decoded at %v, want %v", b, helikon.EventTime(got), want)
		}
		switch g := got.(type) {
		case helikon.ModelResponded:
			if !g.FirstTokenAt.Equal(first) {
				t.Errorf("%s: first token at %v", b, g.FirstTokenAt)
			}
		case helikon.ToolOutputItem:
			if !g.StartedAt.Equal(start) {
				t.Errorf("%s: started at %v", b, g.StartedAt)
			}
		case helikon.SubRunEvent:
			if !helikon.EventTime(g.Event).Equal(first) {
				t.Errorf("%s: wrapped event at %v", b, helikon.EventTime(g.Event))
			}
		}
	}
}

func TestRunner_SessionEventsTakeTheTimesOfTheRunsEvents(t *testing.T) {
	sess := helikon.NewMemorySession()
	rc := helikon.NewRunContext(helikon.WithSession(sess))
	agent := mustAgent(t, "calc", mock.New(s1Scripts()), helikon.WithTools(addTool))
	var emitted []helikon.Event
	for ev := range runner.New().RunStreamed(context.Background(), agent, rc, helikon.UserText("what is 40+2?")) {
		emitted = append(emitted, ev)
	}
	want := map[helikon.SessionEventKind]time.Time{}
	for _, ev := range emitted {
		switch e := ev.(type) {
		case helikon.ToolCallItem:
			want[helikon.KindToolCalled] = e.At
		case helikon.ToolOutputItem:
			want[helikon.KindToolReturned] = e.At
		case helikon.MessageOutput:
			want[helikon.KindAssistantMessage] = e.At
		}
	}
	stored, err := sess.Events(context.Background(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, se := range stored {
		if at, ok := want[se.Kind]; ok {
			checked++
			if at.IsZero() || !se.Time.Equal(at) {
				t.Errorf("stored %s at %v, its event at %v", se.Kind, se.Time, at)
			}
		}
	}
	if checked != 3 {
		t.Fatalf("checked %d stored events, want a call, its result and the answer", checked)
	}
}

// Stamp gives an event that carries no time yet the time now, and passes
// the raw deltas (which carry none) and stamped events as they are.
func TestStamp_TimesOnlyTheEventsThatLackOne(t *testing.T) {
	earlier := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		ev   helikon.Event
		want func(time.Time) bool
	}{
		{"unstamped", helikon.AgentUpdated{Agent: "a"}, func(at time.Time) bool { return at.After(earlier) }},
		{"stamped", helikon.AgentUpdated{Agent: "a", At: earlier}, func(at time.Time) bool { return at.Equal(earlier) }},
		{"raw delta", helikon.TokenDelta{Text: "x"}, func(at time.Time) bool { return at.IsZero() }},
		{"nil", nil, func(at time.Time) bool { return at.IsZero() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := helikon.Stamp(tc.ev)
			if at := helikon.EventTime(got); !tc.want(at) {
				t.Errorf("Stamp(%T) carries %v", tc.ev, at)
			}
			if d, ok := tc.ev.(helikon.TokenDelta); ok && got != helikon.Event(d) {
				t.Errorf("Stamp changed a raw delta: %#v", got)
			}
		})
	}
}
