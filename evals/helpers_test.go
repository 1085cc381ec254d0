package evals_test

import (
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/mock"
)

type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

var addTool = helikon.MustTool("add", "Add two integers.",
	func(tc *helikon.ToolContext, in addArgs) (addOut, error) { return addOut{Sum: in.A + in.B}, nil },
	helikon.WithEffect(helikon.ReadOnly))

// s1 is the S1 scenario: one tool round, then the answer.
func s1(answer string) []mock.Script {
	return []mock.Script{
		mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}),
		mock.Text(answer),
	}
}

// calcFactory builds a fresh calculator agent per case, on a fresh mock
// playing scripts(c).
func calcFactory(scripts func(c *evals.Case) []mock.Script, opts ...mock.Option) evals.AgentFactory {
	return func(c *evals.Case) (helikon.Agent, error) {
		return helikon.NewAgent("calc", mock.New(scripts(c), opts...), helikon.WithTools(addTool))
	}
}

func dataset(t testing.TB, lines ...string) *evals.Dataset {
	t.Helper()
	ds, err := evals.ParseDataset(strings.NewReader(strings.Join(lines, "\n")), "test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
