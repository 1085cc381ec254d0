package helikon_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// nestedAgents builds writer › summarizer (agent tool, call c1) ›
// checker (agent tool, call s1): every level runs a tool round, then
// answers.
func nestedAgents(t *testing.T) *helikon.LLMAgent {
	t.Helper()
	checker := mustAgent(t, "checker", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "k1", Name: "add", Args: `{"a":1,"b":2}`}), mock.Text("checks out")),
		helikon.WithTools(addTool))
	checkTool, err := helikon.AgentAsTool(checker)
	if err != nil {
		t.Fatal(err)
	}
	summarizer := mustAgent(t, "summarizer", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "s1", Name: "checker", Args: `{"input":"is 1+2 3?"}`}), mock.Text("short version")),
		helikon.WithTools(checkTool))
	sumTool, err := helikon.AgentAsTool(summarizer)
	if err != nil {
		t.Fatal(err)
	}
	return mustAgent(t, "writer", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "summarizer", Args: `{"input":"a long text"}`}), mock.Text("here it is")),
		helikon.WithTools(sumTool))
}

// paths names each event by its nesting: "c1:summarizer/s1:checker/type".
func paths(evs []helikon.Event) []string {
	out := make([]string, 0, len(evs))
	for _, ev := range evs {
		var p strings.Builder
		for {
			s, ok := ev.(helikon.SubRunEvent)
			if !ok {
				break
			}
			p.WriteString(s.CallID + ":" + s.Agent + "/")
			ev = s.Event
		}
		out = append(out, p.String()+typesOf([]helikon.Event{ev})[0])
	}
	return out
}

func TestSubRunEvent_AgentToolsRunNestsUnderItsCallInTheCallersStream(t *testing.T) {
	want := []string{
		"run_started", "turn_started", "tool_call_delta", "model_responded", "tool_call_item",
		"c1:summarizer/run_started", "c1:summarizer/turn_started", "c1:summarizer/model_responded", "c1:summarizer/tool_call_item",
		"c1:summarizer/s1:checker/run_started", "c1:summarizer/s1:checker/turn_started", "c1:summarizer/s1:checker/model_responded",
		"c1:summarizer/s1:checker/tool_call_item", "c1:summarizer/s1:checker/tool_output_item", "c1:summarizer/s1:checker/turn_started",
		"c1:summarizer/s1:checker/model_responded", "c1:summarizer/s1:checker/message_output", "c1:summarizer/s1:checker/run_completed",
		"c1:summarizer/tool_output_item", "c1:summarizer/turn_started", "c1:summarizer/model_responded",
		"c1:summarizer/message_output", "c1:summarizer/run_completed",
		"tool_output_item", "turn_started", "token_delta", "model_responded", "message_output", "run_completed",
	}
	prices := helikon.Prices{"mock": {Input: 1, Output: 2}}
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		// A run that cannot be cancelled collects a round's events and
		// yields them after it; a cancellable one streams them live.
		{"uncancellable run", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
		{"cancellable run", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			res, err := helikon.Collect(nestedAgents(t).Run(ctx, helikon.NewRunContext(helikon.WithPrices(prices)), helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(res.Events); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// Every model call reports its own usage and cost, at whatever
			// depth: together they are the run's total.
			var sum helikon.Usage
			calls := 0
			for _, ev := range res.Events {
				for {
					s, ok := ev.(helikon.SubRunEvent)
					if !ok {
						break
					}
					ev = s.Event
				}
				if m, ok := ev.(helikon.ModelResponded); ok {
					calls++
					sum = sum.Add(m.Usage)
					if m.Model != "mock" || m.Usage.Cost != (10*1+5*2)/1e6 {
						t.Errorf("model call %+v, want model mock at cost %g", m, (10*1+5*2)/1e6)
					}
				}
			}
			// Costs sum in another order than the run's: compare them to a
			// rounding error.
			costOff := sum.Cost - res.Usage.Cost
			sum.Cost = res.Usage.Cost
			if calls != 6 || sum != res.Usage || costOff > 1e-15 || costOff < -1e-15 {
				t.Errorf("%d model calls summing to %+v, run usage %+v", calls, sum, res.Usage)
			}
		})
	}
}

func TestSubRunEvent_AStepRunsAgentToolCarriesItsSubRunsEvents(t *testing.T) {
	writer := nestedAgents(t)
	st := writer.Steps(nil).CallTool(context.Background(), helikon.ToolCall{CallID: "c1", Name: "summarizer", Args: []byte(`{"input":"x"}`)})
	if st.Result.IsError {
		t.Fatalf("result %+v", st.Result)
	}
	got := paths(st.Events)
	if len(got) != 18 || got[0] != "c1:summarizer/run_started" || got[len(got)-1] != "c1:summarizer/run_completed" {
		t.Fatalf("step events %q", got)
	}
}
