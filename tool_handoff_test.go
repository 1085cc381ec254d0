package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
)

// TestToolHandoff_ACancellableRoundSettlesItsCallsAsABackgroundOneDoes
// pins the live round whose workers run only the tools (the driver admits
// and settles the calls): on a context that can be cancelled, a round of
// every kind of outcome (an answer, an error, a panic, invalid arguments,
// a call the deny rules refuse, an unknown tool) streams the same events,
// gives the model the same results and ends the same spans as on
// context.Background(), where the calls run on the run's goroutine.
func TestToolHandoff_ACancellableRoundSettlesItsCallsAsABackgroundOneDoes(t *testing.T) {
	fails := helikon.MustTool("fails", "Fails.", func(*helikon.ToolContext, struct{}) (string, error) {
		return "", errors.New("no luck")
	})
	boom := helikon.MustTool("boom", "Panics.", func(*helikon.ToolContext, struct{}) (string, error) {
		panic("boom")
	})
	secret := helikon.MustTool("secret", "Refused by the deny rules.", func(*helikon.ToolContext, struct{}) (string, error) {
		return "leaked", nil
	})
	write := helikon.MustTool("Write", "Writes a file; the default guards refuse system paths.", func(*helikon.ToolContext, struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}) (string, error) {
		return "written", nil
	})
	run := func(t *testing.T, ctx context.Context, opts []helikon.ContextOption, calls []mock.Call) (events, spans []string) {
		t.Helper()
		sr := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		a := mustAgent(t, "a", mock.Scripted(mock.ToolCalls(calls...), mock.Text("done")), helikon.WithTools(addTool, fails, boom, secret, write))
		rc := helikon.NewRunContext(append(opts, helikon.WithTracerProvider(tp))...)
		res, err := helikon.Collect(a.Run(ctx, rc, helikon.UserText("go")))
		events = append(events, fmt.Sprintf("final %q, error %v", res.FinalOutput, err))
		for _, ev := range res.Events {
			switch ev := ev.(type) {
			case helikon.ToolOutputItem:
				item, _ := json.Marshal(ev.Item)
				events = append(events, fmt.Sprintf("output %s ran=%v", item, !ev.StartedAt.IsZero()))
			case helikon.PermissionDenied:
				events = append(events, fmt.Sprintf("denied %s %s: %s", ev.CallID, ev.Tool, ev.Reason))
			default:
				events = append(events, fmt.Sprintf("%T", ev))
			}
		}
		for _, s := range sr.Ended() {
			if !strings.HasPrefix(s.Name(), "execute_tool") {
				continue
			}
			var attrs []string
			for _, kv := range s.Attributes() {
				if kv.Key == "error.type" || kv.Key == "gen_ai.tool.call.id" {
					attrs = append(attrs, fmt.Sprintf("%s=%s", kv.Key, kv.Value.Emit()))
				}
			}
			slices.Sort(attrs)
			spans = append(spans, fmt.Sprintf("%s %v %q %v", s.Name(), s.Status().Code, s.Status().Description, attrs))
		}
		slices.Sort(spans)
		return events, spans
	}
	calls := []mock.Call{
		{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`},
		{ID: "c2", Name: "fails", Args: `{}`},
		{ID: "c3", Name: "boom", Args: `{}`},
		{ID: "c4", Name: "add", Args: `{"a":"forty"}`},
		{ID: "c6", Name: "missing", Args: `{}`},
	}
	for _, c := range []struct {
		name string
		opts []helikon.ContextOption
		// calls is the round's calls, denied the IDs of those refused
		calls  []mock.Call
		denied []string
	}{
		// Governance's defaults: the driver admits and settles the calls,
		// workers run the tools alone.
		{"default governance", nil, calls, nil},
		// The same with a call a default guard holds for approval: the
		// run pauses.
		{"default governance, a call held", nil,
			append(slices.Clone(calls), mock.Call{ID: "c5", Name: "Write", Args: `{"path":"/etc/passwd","content":"x"}`}), nil},
		// Rules of its own: workers run each call whole.
		{"deny rules", []helikon.ContextOption{governance.WithDenyRules(governance.DenyTool("secret"))},
			append(slices.Clone(calls), mock.Call{ID: "c7", Name: "secret", Args: `{}`}), []string{"c7"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantEvents, wantSpans := run(t, context.Background(), c.opts, c.calls)
			if len(wantSpans) != len(c.calls) {
				t.Fatalf("background run ended %d tool spans, want %d: %q", len(wantSpans), len(c.calls), wantSpans)
			}
			for _, id := range c.denied {
				if !slices.ContainsFunc(wantSpans, func(s string) bool {
					return strings.Contains(s, "error.type=permission_denied gen_ai.tool.call.id="+id+"]")
				}) {
					t.Fatalf("background run's span of %s does not say permission_denied: %q", id, wantSpans)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			gotEvents, gotSpans := run(t, ctx, c.opts, c.calls)
			if !slices.Equal(gotEvents, wantEvents) {
				t.Errorf("cancellable run's events:\n%s\nwant, as on context.Background():\n%s", strings.Join(gotEvents, "\n"), strings.Join(wantEvents, "\n"))
			}
			if !slices.Equal(gotSpans, wantSpans) {
				t.Errorf("cancellable run's tool spans:\n%s\nwant, as on context.Background():\n%s", strings.Join(gotSpans, "\n"), strings.Join(wantSpans, "\n"))
			}
		})
	}
}

// panickingAuthorizer stands in for a default authorizer with a bug.
type panickingAuthorizer struct{}

func (panickingAuthorizer) Authorize(context.Context, *helikon.RunContext, helikon.PermissionRequest, helikon.Asker) helikon.Verdict {
	panic("authorizer bug")
}

// TestToolHandoff_APanicAdmittingACallFailsTheCallNotTheRun pins that the
// driver admitting a live round's calls recovers a panic of the default
// authorizer as a worker running the whole call does: the call fails with
// it and the run goes on, on either context.
func TestToolHandoff_APanicAdmittingACallFailsTheCallNotTheRun(t *testing.T) {
	defer helikon.SwapDefaultAuthorizer(panickingAuthorizer{})()
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ctx := range []context.Context{context.Background(), cancellable} {
		m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`}), mock.Text("done"))
		res, err := helikon.Collect(mustAgent(t, "a", m, helikon.WithTools(addTool)).Run(ctx, nil, helikon.UserText("go")))
		if err != nil || res.FinalOutput != "done" {
			t.Fatalf("run on %v: %q, %v", ctx, res.FinalOutput, err)
		}
		var got string
		for _, ev := range res.Events {
			if o, ok := ev.(helikon.ToolOutputItem); ok {
				b, _ := json.Marshal(o.Item)
				got = string(b)
			}
		}
		if !strings.Contains(got, "tool call failed: panic: authorizer bug") {
			t.Errorf("on %v the call's result is %s, want the authorizer's panic", ctx, got)
		}
	}
}

// refusingAuthorizer refuses every call of the tool it names.
type refusingAuthorizer struct{ tool string }

func (a refusingAuthorizer) Authorize(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest, _ helikon.Asker) helikon.Verdict {
	if req.Tool == a.tool {
		return helikon.Verdict{Reason: "not this one"}
	}
	return helikon.Verdict{Allowed: true}
}

// TestToolHandoff_ACallTheDefaultAuthorizerRefusesIsStreamedAsInline pins
// a refusal while the driver admits a live round's calls: its
// PermissionDenied, which no worker sends, reaches the stream in the
// round's order, and the model sees the refusal, as on
// context.Background().
func TestToolHandoff_ACallTheDefaultAuthorizerRefusesIsStreamedAsInline(t *testing.T) {
	defer helikon.SwapDefaultAuthorizer(refusingAuthorizer{tool: "add"})()
	run := func(ctx context.Context) []string {
		m := mock.Scripted(mock.ToolCalls(
			mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`},
			mock.Call{ID: "c2", Name: "echo", Args: `{}`},
		), mock.Text("done"))
		res, err := helikon.Collect(mustAgent(t, "a", m, helikon.WithTools(addTool, echoTool("echo"))).Run(ctx, nil, helikon.UserText("go")))
		if err != nil || res.FinalOutput != "done" {
			t.Fatalf("run: %q, %v", res.FinalOutput, err)
		}
		var got []string
		for _, ev := range res.Events {
			switch ev := ev.(type) {
			case helikon.PermissionDenied:
				got = append(got, "denied "+ev.CallID+": "+ev.Reason)
			case helikon.ToolOutputItem:
				b, _ := json.Marshal(ev.Item)
				got = append(got, "output "+string(b))
			}
		}
		return got
	}
	want := run(context.Background())
	if len(want) != 3 || !strings.HasPrefix(want[0], "denied c1: not this one") {
		t.Fatalf("background run = %q, want c1 denied, then both outputs", want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if got := run(ctx); !slices.Equal(got, want) {
		t.Errorf("cancellable run:\n%s\nwant, as on context.Background():\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
