package helikon_test

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// copyingModel keeps a copy of every request's messages as the model saw
// them when it was called.
type copyingModel struct {
	*mock.Model
	seen [][]helikon.Item
}

func (m *copyingModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	m.seen = append(m.seen, slices.Clone(req.Messages))
	return m.Model.Invoke(ctx, req)
}

func TestRun_ModelRequestsShareOneArrayAndNeverChange(t *testing.T) {
	for _, tc := range []struct {
		name         string
		instructions bool
		history      int
	}{
		{"no instructions, no history", false, 0},
		{"instructions and a long history", true, 200},
		{"no instructions and a long history", false, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var scripts []mock.Script
			for i := range 6 {
				scripts = append(scripts, mock.ToolCalls(mock.Call{ID: fmt.Sprintf("c%d", i), Name: "add", Args: `{"a":1,"b":2}`}))
			}
			scripts = append(scripts, mock.Text("done"))
			m := &copyingModel{Model: mock.New(scripts)}
			opts := []helikon.AgentOption{helikon.WithTools(addTool)}
			if tc.instructions {
				opts = append(opts, helikon.WithInstructions("You add."))
			}
			agent, err := helikon.NewAgent("calc", m, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var input []helikon.Item
			for i := range tc.history {
				input = append(input, helikon.UserText(fmt.Sprint("q", i))...)
				input = append(input, helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "a"}}})
			}
			input = append(input, helikon.UserText("add")...)
			if _, err := helikon.Collect(agent.Run(t.Context(), nil, input)); err != nil {
				t.Fatal(err)
			}
			reqs := m.Requests()
			if len(reqs) != len(scripts) || len(m.seen) != len(reqs) {
				t.Fatalf("%d requests, want %d", len(reqs), len(scripts))
			}
			for i, req := range reqs {
				// What each request held when the model was called is what
				// it holds after the run: later turns appended, never wrote
				// over it.
				if !reflect.DeepEqual(req.Messages, m.seen[i]) {
					t.Fatalf("request %d changed after the model was called", i)
				}
				if i > 0 && len(req.Messages) <= len(reqs[i-1].Messages) {
					t.Fatalf("request %d has %d messages, not more than the %d before it", i, len(req.Messages), len(reqs[i-1].Messages))
				}
				if cap(req.Messages) != len(req.Messages) {
					t.Fatalf("request %d: cap %d > len %d, so an append by the model would write into the run's array", i, cap(req.Messages), len(req.Messages))
				}
				// The history is not copied turn after turn.
				if i > 0 && &req.Messages[0] != &reqs[0].Messages[0] {
					t.Fatalf("request %d does not share the run's array with request 0", i)
				}
			}
		})
	}
}
