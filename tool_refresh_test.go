package helikon_test

import (
	"context"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// changingSource is a tool source whose list the test changes between
// turns, as an MCP server's list_changed does.
type changingSource struct {
	mu    sync.Mutex
	tools []helikon.Tool
}

func (s *changingSource) Tools(context.Context) ([]helikon.Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools, nil
}

func (s *changingSource) set(tools ...helikon.Tool) {
	s.mu.Lock()
	s.tools = tools
	s.mu.Unlock()
}

func echoTool(name string) helikon.Tool {
	return helikon.MustTool(name, "Says "+name+".", func(tc *helikon.ToolContext, in struct{}) (string, error) { return name, nil })
}

func TestToolSources_TheNextTurnSeesAChangedList(t *testing.T) {
	src := &changingSource{}
	src.set(echoTool("old"))
	// The source's list changes while the first tool call runs, so the
	// second model call of the same run must see it.
	own := helikon.MustTool("own", "The agent's own tool.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		src.set(echoTool("new"))
		return "ok", nil
	})
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "own", Args: `{}`}),
		mock.ToolCalls(mock.Call{ID: "c2", Name: "new", Args: `{}`}, mock.Call{ID: "c3", Name: "old", Args: `{}`}),
		mock.Text("done"))
	a, err := helikon.NewAgent("a", model, helikon.WithTools(own), helikon.WithToolSources(context.Background(), src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(a.Run(context.Background(), nil, helikon.UserText("go")))
	if err != nil || res.FinalOutput != "done" {
		t.Fatalf("%q, %v", res.FinalOutput, err)
	}
	reqs := model.Requests()
	if got := toolNames(reqs[0]); !slicesEqual(got, []string{"old", "own"}) {
		t.Errorf("first turn offered %v", got)
	}
	if got := toolNames(reqs[1]); !slicesEqual(got, []string{"new", "own"}) {
		t.Errorf("second turn offered %v; want the source's new list", got)
	}
	if r := findResult(t, res.Events, "c2"); r.IsError || r.Content[0].(helikon.TextPart).Text != `"new"` {
		t.Errorf("the new tool's call = %+v", r)
	}
	if r := findResult(t, res.Events, "c3"); !r.IsError {
		t.Errorf("a withdrawn tool still ran: %+v", r)
	}
}

func TestToolSources_AFailingOrCollidingSourceKeepsTheAgentWhole(t *testing.T) {
	src := &changingSource{}
	src.set(echoTool("extra"))
	own := helikon.MustTool("own", "The agent's own tool.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		src.set(echoTool("own")) // now collides with the agent's own tool
		return "ok", nil
	})
	model := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "own", Args: `{}`}), mock.Text("done"))
	a, err := helikon.NewAgent("a", model, helikon.WithTools(own), helikon.WithToolSources(context.Background(), src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := helikon.Collect(a.Run(context.Background(), nil, helikon.UserText("go"))); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(model.Requests()[1]); !slicesEqual(got, []string{"own"}) {
		t.Errorf("second turn offered %v; the colliding tool must be left out", got)
	}
}
