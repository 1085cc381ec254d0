package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session"
)

// boundaries runs agent on input through a runner on a new session,
// keeping the checkpoint of every model call the top-level loop made,
// as JSON (the observer may not keep the call).
func boundaries(t *testing.T, agent *helikon.LLMAgent, input string) (cps [][]byte, sess helikon.Session, res *helikon.RunResult) {
	t.Helper()
	sess = helikon.NewMemorySession()
	rc := helikon.NewRunContext(helikon.WithSession(sess), helikon.WithModelCallObserver(func(_ context.Context, c *helikon.ModelCall) {
		if c.Depth > 0 {
			return
		}
		b, err := json.Marshal(c.Checkpoint)
		if err != nil {
			t.Error(err)
		}
		cps = append(cps, b)
	}))
	res, err := runner.New().Run(context.Background(), agent, rc, helikon.UserText(input))
	if err != nil {
		t.Fatal(err)
	}
	return cps, sess, res
}

func checkpoint(t *testing.T, b []byte) *helikon.Checkpoint {
	t.Helper()
	var cp helikon.Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	return &cp
}

// lastRequest is the JSON of the messages of the model's last request.
func lastRequest(m *mock.Model) string {
	reqs := m.Requests()
	b, _ := json.Marshal(reqs[len(reqs)-1].Messages)
	return string(b)
}

type report struct {
	Month string `json:"month"`
	Total int    `json:"total"`
}

func TestFork_RunsOnFromEachKindOfTurnBoundaryWithoutRepeatingTheStepsBefore(t *testing.T) {
	tests := []struct {
		name     string
		agent    func(m helikon.Model) (*helikon.LLMAgent, error)
		original []mock.Script
		at       int           // which model call's boundary
		state    string        // the boundary's loop state
		rest     []mock.Script // what the fork's model plays from there
		want     string
	}{{
		name: "calling the model, first turn",
		agent: func(m helikon.Model) (*helikon.LLMAgent, error) {
			return helikon.NewAgent("calc", m, helikon.WithTools(addTool))
		},
		original: []mock.Script{mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}), mock.Text("sum is 42")},
		at:       0, state: "calling_model",
		rest: []mock.Script{mock.Text("no tools needed")}, want: "no tools needed",
	}, {
		name: "calling the model after a tool round",
		agent: func(m helikon.Model) (*helikon.LLMAgent, error) {
			return helikon.NewAgent("calc", m, helikon.WithTools(addTool))
		},
		original: []mock.Script{mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}), mock.Text("sum is 42")},
		at:       1, state: "calling_model",
		rest: []mock.Script{mock.Text("forked: 42")}, want: "forked: 42",
	}, {
		name: "finalizing a structured answer",
		agent: func(m helikon.Model) (*helikon.LLMAgent, error) {
			return helikon.NewAgent("reporter", m, helikon.WithOutput[report]())
		},
		original: []mock.Script{mock.Text(`{"month":"May","total":1}`)},
		at:       0, state: "finalizing",
		rest: []mock.Script{mock.Text(`{"month":"June","total":2}`)}, want: `{"month":"June","total":2}`,
	}, {
		name: "repairing a structured answer",
		agent: func(m helikon.Model) (*helikon.LLMAgent, error) {
			return helikon.NewAgent("reporter", m, helikon.WithOutput[report]())
		},
		original: []mock.Script{mock.Text("about one"), mock.Text(`{"month":"May","total":1}`)},
		at:       1, state: "repairing_output",
		rest: []mock.Script{mock.Text(`{"month":"May","total":7}`)}, want: `{"month":"May","total":7}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tt.agent(mock.New(tt.original))
			if err != nil {
				t.Fatal(err)
			}
			cps, _, _ := boundaries(t, a, "report")
			cp := checkpoint(t, cps[tt.at])
			st, _ := json.Marshal(cp.State)
			if !strings.Contains(string(st), `"type":"`+tt.state+`"`) {
				t.Fatalf("boundary %d is %s, want %s", tt.at, st, tt.state)
			}
			m := mock.New(tt.rest)
			fa, err := tt.agent(m)
			if err != nil {
				t.Fatal(err)
			}
			res, err := runner.New().Fork(context.Background(), fa, nil, cp, runner.ForkEdit{})
			if err != nil {
				t.Fatal(err)
			}
			if res.FinalOutput != tt.want {
				t.Errorf("fork answered %q, want %q", res.FinalOutput, tt.want)
			}
			// One model call: none of the steps before the boundary ran again.
			if n := len(m.Requests()); n != 1 {
				t.Errorf("the fork called the model %d times, want 1", n)
			}
			if _, ok := res.Events[0].(helikon.RunStarted); !ok {
				t.Errorf("the fork's stream starts with %T, want RunStarted", res.Events[0])
			}
		})
	}
}

func TestFork_AnEditedToolResultReachesTheModelAndTheOriginalStaysAsItWas(t *testing.T) {
	ctx := context.Background()
	cps, origSess, orig := boundaries(t, newAgent(t, s1Model()), "what is 40+2?")
	origLog, _ := origSess.Events(ctx, helikon.Beginning)
	before, _ := json.Marshal(origLog)
	cpBefore := string(cps[1])

	cp := checkpoint(t, cps[1])
	m := mock.Scripted(mock.Text("sum is 99"))
	forkSess := helikon.NewMemorySession()
	res, err := runner.New().Fork(ctx, newAgent(t, m), helikon.NewRunContext(helikon.WithSession(forkSess)), cp,
		runner.ForkEdit{ToolResults: map[string]string{"call_1": "99"}})
	if err != nil {
		t.Fatal(err)
	}
	req := lastRequest(m)
	if !strings.Contains(req, `"call_id":"call_1"`) || !strings.Contains(req, `"text":"99"`) || strings.Contains(req, "42") {
		t.Errorf("the fork's model got %s, want the edited result 99 in place of 42", req)
	}
	if res.FinalOutput != "sum is 99" || orig.FinalOutput != "sum is 42" {
		t.Errorf("answers: fork %q, original %q", res.FinalOutput, orig.FinalOutput)
	}
	if res.Usage != (helikon.Usage{InputTokens: 10, OutputTokens: 5}) {
		t.Errorf("fork usage %+v, want its own call's only", res.Usage)
	}
	// The original: its session and the checkpoint it was forked from.
	afterLog, _ := origSess.Events(ctx, helikon.Beginning)
	if after, _ := json.Marshal(afterLog); string(after) != string(before) {
		t.Errorf("the original's session changed:\n%s\n%s", before, after)
	}
	if again, _ := json.Marshal(cp); !strings.Contains(string(again), `"text":"42"`) {
		t.Errorf("the forked checkpoint was edited in place: %s (was %s)", again, cpBefore)
	}
	// The fork's session holds the whole forked conversation: question,
	// call, edited result, answer.
	snap, _ := forkSess.Snapshot(ctx)
	var roles []string
	for _, it := range snap {
		roles = append(roles, string(it.Role)+":"+it.Text())
	}
	if got := strings.Join(roles, " | "); !strings.Contains(got, "user:what is 40+2?") || !strings.HasSuffix(got, "assistant:sum is 99") || len(snap) != 4 {
		t.Errorf("fork session: %s", got)
	}
}

// A checkpoint of a run on a compacted session opens with the summary
// the compaction projects to. The fork's session keeps it, as a
// compaction marker: a later run on the fork sees what the fork's model
// saw.
func TestFork_ASummaryInTheForkedConversationStaysInTheForksSession(t *testing.T) {
	ctx := context.Background()
	orig := helikon.NewMemorySession()
	if err := orig.Append(ctx, session.UserMessage(helikon.TextPart{Text: "long ago"}), session.Compacted("the user asked for a file", 1)); err != nil {
		t.Fatal(err)
	}
	var point []byte
	rc := helikon.NewRunContext(helikon.WithSession(orig), helikon.WithModelCallObserver(func(_ context.Context, c *helikon.ModelCall) {
		point, _ = json.Marshal(c.Checkpoint)
	}))
	if _, err := runner.New().Run(ctx, newAgent(t, mock.Scripted(mock.Text("fine"))), rc, helikon.UserText("how is it going")); err != nil {
		t.Fatal(err)
	}
	forkSess := helikon.NewMemorySession()
	if _, err := runner.New().Fork(ctx, newAgent(t, mock.Scripted(mock.Text("forked"))), helikon.NewRunContext(helikon.WithSession(forkSess)),
		checkpoint(t, point), runner.ForkEdit{}); err != nil {
		t.Fatal(err)
	}
	snap, _ := forkSess.Snapshot(ctx)
	var got []string
	for _, it := range snap {
		got = append(got, string(it.Role)+":"+it.Text())
	}
	if want := "system:the user asked for a file | user:how is it going | assistant:forked"; strings.Join(got, " | ") != want {
		t.Errorf("fork session: %s\nwant        %s", strings.Join(got, " | "), want)
	}
}

func TestFork_EditedQuestionAndInstructionsReachTheModel(t *testing.T) {
	cps, _, _ := boundaries(t, newAgent(t, s1Model()), "what is 40+2?")
	m := mock.Scripted(mock.Text("ok"))
	q, instr := "what is 1+1?", "You add carefully."
	if _, err := runner.New().Fork(context.Background(), newAgent(t, m), nil, checkpoint(t, cps[0]),
		runner.ForkEdit{UserMessage: &q, Instructions: &instr}); err != nil {
		t.Fatal(err)
	}
	msgs := m.Requests()[0].Messages
	if len(msgs) != 2 || msgs[0].Role != helikon.RoleSystem || msgs[0].Text() != instr || msgs[1].Text() != q {
		b, _ := json.Marshal(msgs)
		t.Errorf("the fork's first request: %s", b)
	}
}

func TestFork_RefusesWhatItCannotFork(t *testing.T) {
	cps, _, _ := boundaries(t, newAgent(t, s1Model()), "what is 40+2?")
	used := helikon.NewMemorySession()
	_ = used.Append(context.Background(), session.UserMessage(helikon.TextPart{Text: "hi"}))
	tests := []struct {
		name string
		cp   *helikon.Checkpoint
		rc   *helikon.RunContext
		edit runner.ForkEdit
		want string
	}{
		{"unknown tool call", checkpoint(t, cps[1]), nil, runner.ForkEdit{ToolResults: map[string]string{"nope": "x"}}, "no tool result for call nope"},
		{"a result not yet in the conversation", checkpoint(t, cps[0]), nil, runner.ForkEdit{ToolResults: map[string]string{"call_1": "x"}}, "no tool result for call call_1"},
		{"a session in use", checkpoint(t, cps[0]), helikon.NewRunContext(helikon.WithSession(used)), runner.ForkEdit{}, "already holds 1 messages"},
		{"not a turn boundary", &helikon.Checkpoint{Agent: "calc", State: helikon.ExecutingTools{}}, nil, runner.ForkEdit{}, "not at a turn boundary"},
		{"another agent's checkpoint", &helikon.Checkpoint{Agent: "other", State: helikon.CallingModel{Progress: helikon.Progress{Turn: 1}}}, nil, runner.ForkEdit{}, "agent other's, not calc's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mock.Scripted(mock.Text("never"))
			_, err := runner.New().Fork(context.Background(), newAgent(t, m), tt.rc, tt.cp, tt.edit)
			if !errors.Is(err, runner.ErrFork) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrFork saying %q", err, tt.want)
			}
			if n := len(m.Requests()); n != 0 {
				t.Errorf("the model was called %d times", n)
			}
		})
	}
}

// TestFork_EveryEventOfAForkCarriesItsTime pins the fork's own opening
// events (run started, turn started) to the rule every run keeps: every
// event but the raw deltas says when it happened.
func TestFork_EveryEventOfAForkCarriesItsTime(t *testing.T) {
	ctx := context.Background()
	cps, _, _ := boundaries(t, newAgent(t, s1Model()), "what is 40+2?")
	cp := checkpoint(t, cps[1])
	events := runner.New().ForkStreamed(ctx, newAgent(t, mock.Scripted(mock.Text("sum is 42"))),
		helikon.NewRunContext(helikon.WithSession(helikon.NewMemorySession())), cp, runner.ForkEdit{})
	n := 0
	for ev := range events {
		if f, ok := ev.(helikon.RunFailed); ok {
			t.Fatalf("the fork failed: %+v", f)
		}
		switch ev.(type) {
		case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
			continue
		}
		n++
		if helikon.EventTime(ev).IsZero() {
			t.Errorf("%T has no time", ev)
		}
	}
	if n < 3 {
		t.Fatalf("the fork emitted %d events, want at least run started, turn started and the answer", n)
	}
}
