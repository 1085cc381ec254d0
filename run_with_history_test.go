package helikon_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// TestRunWithHistory_IsRunOverBothWithoutWritingTheHistory pins the
// contract the runner relies on to share a session's cached history: a run
// over history and input given apart sends the model exactly what a run
// over the two in one slice sends, sees the same guardrail input, and never
// writes to history, not even to the spare room past its end.
func TestRunWithHistory_IsRunOverBothWithoutWritingTheHistory(t *testing.T) {
	scripts := func() *mock.Model {
		return mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}),
			mock.Text("3"),
		)
	}
	add := helikon.MustTool("add", "Adds.", func(tc *helikon.ToolContext, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (int, error) {
		return in.A + in.B, nil
	})
	history := []helikon.Item{
		helikon.UserText("earlier")[0],
		{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "noted"}}, Agent: "a"},
	}
	// Spare room past the history's end that a careless append would fill.
	sentinel := helikon.SystemItem("sentinel")
	shared := append(make([]helikon.Item, 0, len(history)+8), history...)
	for range 8 {
		shared = append(shared, sentinel)
	}
	shared = shared[:len(history)]
	before := append([]helikon.Item(nil), shared[:cap(shared)]...)
	input := helikon.UserText("what is 1+2?")

	run := func(f func(a *helikon.LLMAgent) *helikon.RunResult) (*mock.Model, []string, *helikon.RunResult) {
		m := scripts()
		var seen []string
		guard := helikon.GuardrailFunc(func(_ context.Context, _ *helikon.RunContext, in helikon.GuardrailInput) (*helikon.Tripwire, error) {
			seen = append(seen, in.Text)
			return nil, nil
		})
		a := mustAgent(t, "a", m, helikon.WithTools(add), helikon.WithInputGuardrails(guard), helikon.WithInstructions("be brief"))
		return m, seen, f(a)
	}
	mApart, seenApart, resApart := run(func(a *helikon.LLMAgent) *helikon.RunResult {
		res, err := helikon.Collect(a.RunWithHistory(t.Context(), nil, shared, input))
		if err != nil {
			t.Fatal(err)
		}
		return res
	})
	mWhole, seenWhole, resWhole := run(func(a *helikon.LLMAgent) *helikon.RunResult {
		res, err := helikon.Collect(a.Run(t.Context(), nil, append(append([]helikon.Item(nil), history...), input...)))
		if err != nil {
			t.Fatal(err)
		}
		return res
	})
	if resApart.FinalOutput != "3" || resWhole.FinalOutput != "3" {
		t.Fatalf("outputs %q and %q, want 3", resApart.FinalOutput, resWhole.FinalOutput)
	}
	apart, whole := mApart.Requests(), mWhole.Requests()
	if len(apart) != 2 || len(whole) != 2 {
		t.Fatalf("%d and %d requests, want 2", len(apart), len(whole))
	}
	last := apart[1].Messages[len(apart[1].Messages)-1]
	if r, ok := last.Content[0].(helikon.ToolResultPart); !ok || r.IsError {
		t.Fatalf("the second request ends with %v, want the tool's result", last)
	}
	for i := range apart {
		if !reflect.DeepEqual(apart[i].Messages, whole[i].Messages) {
			t.Errorf("request %d: apart %v, whole %v", i, apart[i].Messages, whole[i].Messages)
		}
	}
	if !reflect.DeepEqual(seenApart, seenWhole) || len(seenApart) != 1 {
		t.Errorf("guardrail saw %q apart, %q whole", seenApart, seenWhole)
	}
	if got := shared[:cap(shared)]; !reflect.DeepEqual(got, before) {
		t.Errorf("the history changed: %v, was %v", got, before)
	}
}
