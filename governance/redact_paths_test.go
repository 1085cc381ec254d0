package governance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/paigasus/helikon/governance"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// leakSecret is a known secret every path must mask.
const leakSecret = "sk-live-4f9a2c7e1b8d3f60"

type leakArgs struct {
	Mode string `json:"mode" jsonschema:"the mode"`
}

// leakRun runs one call of tool and returns what the model saw, the run's
// events as JSON, and the log.
func leakRun(t *testing.T, tool helikon.Tool, args string, opts ...helikon.AgentOption) (model, events, log string) {
	t.Helper()
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(prev)
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: tool.Name(), Args: args}), mock.Text("done"))
	agent, err := helikon.NewAgent("a", m, append([]helikon.AgentOption{helikon.WithTools(tool)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.NewRunContext(governance.WithExtraSecrets(leakSecret))
	res, err := helikon.Collect(agent.Run(context.Background(), rc, helikon.UserText("go")))
	if err != nil {
		t.Fatal(err)
	}
	// The model's own call may hold what it sent; every event after it
	// comes from the tool side.
	var after []helikon.Event
	for _, e := range res.Events {
		switch e.(type) {
		case helikon.ToolCallDelta, helikon.ToolCallItem:
		default:
			after = append(after, e)
		}
	}
	ev, _ := json.Marshal(after)
	return toolResultText(t, m), string(ev), buf.String()
}

func TestRedaction_EveryPathToTheModelEventsAndLog(t *testing.T) {
	fail := func(err error) helikon.Tool {
		return helikon.MustTool("leaky", "Leaks.", func(*helikon.ToolContext, leakArgs) (string, error) { return "", err })
	}
	tests := []struct {
		name string
		tool helikon.Tool
		args string
		opts []helikon.AgentOption
	}{
		{"fmt.Errorf error", fail(errors.New("connect with key " + leakSecret + " failed")), `{"mode":"a"}`, nil},
		{"ToolError", fail(&helikon.ToolError{Kind: helikon.ToolFailed, Reason: "token " + leakSecret + " expired"}), `{"mode":"a"}`, nil},
		{"panic value", helikon.MustTool("leaky", "Leaks.", func(*helikon.ToolContext, leakArgs) (string, error) {
			panic("auth with " + leakSecret)
		}), `{"mode":"a"}`, nil},
		{"schema validation quoting the argument", helikon.MustTool("leaky", "Leaks.", func(*helikon.ToolContext, leakArgs) (string, error) { return "ok", nil },
			helikon.WithInputSchema(&jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"mode": {Type: "string", Enum: []any{"a", "b"}}}})),
			`{"mode":"` + leakSecret + `"}`, nil},
		{"hook-replaced output", helikon.MustTool("leaky", "Leaks.", func(*helikon.ToolContext, leakArgs) (string, error) { return "ok", nil }),
			`{"mode":"a"}`, []helikon.AgentOption{helikon.WithHooks(helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
				if ev.Kind == helikon.PostToolUse {
					return helikon.HookDecision{Action: helikon.HookReplaceOutput, Value: json.RawMessage(`"replaced: ` + leakSecret + `"`)}
				}
				return helikon.HookDecision{}
			}))}},
		{"hook denial reason", helikon.MustTool("leaky", "Leaks.", func(*helikon.ToolContext, leakArgs) (string, error) { return "ok", nil }),
			`{"mode":"a"}`, []helikon.AgentOption{helikon.WithHooks(helikon.HookFunc(func(_ context.Context, _ *helikon.RunContext, ev *helikon.HookEvent) helikon.HookDecision {
				if ev.Kind == helikon.PreToolUse {
					return helikon.HookDecision{Action: helikon.HookDeny, Reason: "blocked " + leakSecret}
				}
				return helikon.HookDecision{}
			}))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, events, log := leakRun(t, tt.tool, tt.args, tt.opts...)
			if !strings.Contains(model, "***") {
				t.Errorf("the model saw no mask: %s", model)
			}
			for where, s := range map[string]string{"model": model, "events": events, "log": log} {
				if strings.Contains(s, leakSecret) {
					t.Errorf("the secret reached the %s: %s", where, s)
				}
			}
		})
	}
}
