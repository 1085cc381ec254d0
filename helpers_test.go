package helikon_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func TestTextOutput_IsAJSONString(t *testing.T) {
	if got := string(helikon.TextOutput(`say "hi"`).Content); got != `"say \"hi\""` {
		t.Fatalf("content = %s", got)
	}
}

func TestTools_CollectsToolsInOrder(t *testing.T) {
	other := helikon.MustTool("sub", "Subtract.", func(*helikon.ToolContext, addArgs) (addOut, error) { return addOut{}, nil })
	ts := []helikon.Tool{addTool, other}
	if len(ts) != 2 || ts[0].Name() != "add" || ts[1].Name() != "sub" {
		t.Fatalf("tools = %v", ts)
	}
}

func TestNewOutputType_HandWrittenSchemaIsEnforced(t *testing.T) {
	s := &jsonschema.Schema{Type: "object", Required: []string{"answer"},
		Properties: map[string]*jsonschema.Schema{"answer": {Type: "string"}}}
	ot, err := helikon.NewOutputType("Answer", s)
	if err != nil {
		t.Fatal(err)
	}
	if errs := ot.Check(`{"answer":"yes"}`); errs != nil {
		t.Fatalf("valid answer rejected: %v", errs)
	}
	if errs := ot.Check(`{"answer":1}`); errs == nil {
		t.Fatal("a number passed a string schema")
	}
	agent := mustAgent(t, "a", mock.Scripted(mock.Text(`{"answer":"yes"}`)), helikon.WithOutputType(ot))
	res, err := helikon.Collect(agent.Run(context.Background(), nil, helikon.UserText("q")))
	if err != nil || res.FinalOutput != `{"answer":"yes"}` {
		t.Fatalf("run: %v %q", err, res.FinalOutput)
	}
}

// eventsOf returns the run's events of type T, in order.
func eventsOf[T helikon.Event](res *helikon.RunResult) []T {
	var out []T
	for _, ev := range res.Events {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// toolNames returns the names of the tools a request offers, sorted.
func toolNames(req *helikon.ModelRequest) []string {
	var names []string
	for _, td := range req.Tools {
		names = append(names, td.Name)
	}
	slices.Sort(names)
	return names
}
