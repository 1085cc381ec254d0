package helikon_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// TestToolContext_EventsSentAfterTheCallReturnedAreDropped pins what
// becomes of the events of a call that has returned: a tool may keep its
// ToolContext past its call (hand it to a background job, say), and an
// agent tool's sub-run started on it later reports SubRunEvents to that
// call. They belong to no round: they reach neither a later round's stream
// (the run reuses its round from round to round) nor anything that blocks
// the goroutine sending them once the run has ended.
func TestToolContext_EventsSentAfterTheCallReturnedAreDropped(t *testing.T) {
	cases := []struct {
		name        string
		cancellable bool
		// afterRun uses the kept context once the run has ended, instead
		// of during the run's next round.
		afterRun bool
	}{
		{"next round, background context", false, false},
		{"next round, cancellable context", true, false},
		{"after the run, background context", false, true},
		{"after the run, cancellable context", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			helper, err := helikon.AgentAsTool(mustAgent(t, "helper", mock.Scripted(mock.Text("late"))))
			if err != nil {
				t.Fatal(err)
			}
			kept := make(chan *helikon.ToolContext, 1)
			keep := helikon.MustTool("keep", "Keeps its context.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
				kept <- tc
				return "kept", nil
			})
			// useKept runs the helper on the kept context; used is closed
			// when the helper's run is over and its events were sent. The
			// helper's answer does not matter (after a cancellable run, it
			// is that its context was cancelled), its events do.
			used := make(chan struct{})
			useKept := func() {
				defer close(used)
				_, _ = helper.Call(<-kept, json.RawMessage(`{"input":"x"}`))
			}
			wait := helikon.MustTool("wait", "Waits until the kept context was used.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
				go useKept()
				select {
				case <-used:
					return "used", nil
				case <-time.After(10 * time.Second):
					return "", context.DeadlineExceeded
				}
			})
			scripts := []mock.Script{mock.ToolCalls(mock.Call{ID: "c1", Name: "keep", Args: `{}`})}
			if !c.afterRun {
				scripts = append(scripts, mock.ToolCalls(mock.Call{ID: "c2", Name: "wait", Args: `{}`}))
			}
			scripts = append(scripts, mock.Text("done"))
			a := mustAgent(t, "a", mock.Scripted(scripts...), helikon.WithTools(keep, wait))
			ctx := context.Background()
			if c.cancellable {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			res, err := helikon.Collect(a.Run(ctx, nil, helikon.UserText("go")))
			if err != nil || res.FinalOutput != "done" {
				t.Fatalf("run: %v, output %q", err, res.FinalOutput)
			}
			for _, ev := range res.Events {
				if sub, ok := ev.(helikon.SubRunEvent); ok {
					t.Errorf("the stream carries %T of call %s, which had returned", sub.Event, sub.CallID)
				}
			}
			if c.afterRun {
				go useKept()
				select {
				case <-used:
				case <-time.After(10 * time.Second):
					t.Fatal("the helper's events to a call of an ended run blocked the goroutine sending them")
				}
			}
		})
	}
}
