package helikon_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// staticSource is a ToolSource offering fixed tools, or failing.
type staticSource struct {
	tools []helikon.Tool
	err   error
}

func (s staticSource) Tools(context.Context) ([]helikon.Tool, error) { return s.tools, s.err }

func namedTool(name string) helikon.Tool {
	return helikon.MustTool(name, "A tool.", func(*helikon.ToolContext, addArgs) (addOut, error) { return addOut{}, nil })
}

func TestWithToolSources_MergesSourcesInOrder(t *testing.T) {
	agent, err := helikon.NewAgent("a", mock.Scripted(),
		helikon.WithTools(namedTool("own")),
		helikon.WithToolSources(context.Background(),
			staticSource{tools: []helikon.Tool{namedTool("fs_read"), namedTool("fs_write")}},
			staticSource{tools: []helikon.Tool{namedTool("web_get")}}))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range agent.Tools() {
		names = append(names, tool.Name())
	}
	if want := []string{"own", "fs_read", "fs_write", "web_get"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
}

func TestWithToolSources_DuplicateNameIsTyped(t *testing.T) {
	_, err := helikon.NewAgent("a", mock.Scripted(), helikon.WithToolSources(context.Background(),
		staticSource{tools: []helikon.Tool{namedTool("read")}},
		staticSource{tools: []helikon.Tool{namedTool("write")}},
		staticSource{tools: []helikon.Tool{namedTool("read")}}))
	var dup *helikon.DuplicateNameError
	if !errors.As(err, &dup) {
		t.Fatalf("err = %v, want a *DuplicateNameError", err)
	}
	if dup.Name != "read" || dup.First != 0 || dup.Second != 2 {
		t.Fatalf("dup = %+v", dup)
	}
}

func TestWithToolSources_SourceFailureFailsTheBuild(t *testing.T) {
	boom := errors.New("server unreachable")
	_, err := helikon.NewAgent("a", mock.Scripted(), helikon.WithToolSources(context.Background(), staticSource{err: boom}))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the source's error", err)
	}
	_, err = helikon.ResolveTools(context.Background(), nil)
	if !errors.Is(err, helikon.ErrInvalidOption) {
		t.Fatalf("nil source: err = %v", err)
	}
	_, err = helikon.ResolveTools(context.Background(), staticSource{tools: []helikon.Tool{nil}})
	if !errors.Is(err, helikon.ErrInvalidOption) {
		t.Fatalf("nil tool: err = %v", err)
	}
}
