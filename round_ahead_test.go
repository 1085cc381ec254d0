package helikon_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// TestCancellableRun_WhatARoundMadeAheadGoesToItsOwnTransition pins the
// results, items, events, parts and model request a cancellable run's
// driver makes while a live round's calls run: each goes to the
// transition after that round only. A round on the run's own goroutine
// (a tool that promises to honour cancellation) and later rounds of the
// same size make theirs anew, so no round's items or events are written
// over by a later one's, and every model request is its own.
func TestCancellableRun_WhatARoundMadeAheadGoesToItsOwnTransition(t *testing.T) {
	type in struct {
		ID string `json:"id"`
	}
	echo := func(tc *helikon.ToolContext, a in) (string, error) { return "out " + a.ID, nil }
	// live ignores its context, so its calls run on workers (a live round);
	// inline promises to honour it, so a cancellable run makes its calls
	// on its own goroutine.
	live := helikon.MustTool("live", "Echoes its id.", echo)
	inline := helikon.MustTool("inline", "Echoes its id.", echo, helikon.WithHonoursCancellation())
	cases := []struct {
		name   string
		rounds []string // the tool of each round's calls
		calls  int      // calls a round
	}{
		{"live then inline rounds of one call", []string{"live", "inline", "live", "inline"}, 1},
		{"live then inline rounds of two calls", []string{"live", "inline", "live", "inline"}, 2},
		{"live rounds one after another", []string{"live", "live", "live"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var scripts []mock.Script
			var ids []string
			for r, tool := range c.rounds {
				var calls []mock.Call
				for k := range c.calls {
					id := fmt.Sprintf("c%d_%d", r, k)
					calls = append(calls, mock.Call{ID: id, Name: tool, Args: fmt.Sprintf(`{"id":%q}`, id)})
					ids = append(ids, id)
				}
				scripts = append(scripts, mock.ToolCalls(calls...))
			}
			m := mock.Scripted(append(scripts, mock.Text("done"))...)
			a := mustAgent(t, "a", m, helikon.WithTools(live, inline))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := helikon.Collect(a.Run(ctx, nil, helikon.UserText("go")))
			if err != nil {
				t.Fatal(err)
			}
			if err := checkOwnResults(res, ids); err != nil {
				t.Fatal(err)
			}
			// Each request ends with the results of the round before it,
			// as it did when the model read it.
			reqs := m.Requests()
			if len(reqs) != len(c.rounds)+1 {
				t.Fatalf("%d model requests, want %d", len(reqs), len(c.rounds)+1)
			}
			for i, req := range reqs[1:] {
				last := req.Messages[len(req.Messages)-1]
				want := fmt.Sprintf("c%d_%d", i, c.calls-1)
				if got := toolResultID(last); got != want {
					t.Errorf("request %d ends with the result of %q, want %q", i+2, got, want)
				}
			}
		})
	}
}

// toolResultID returns the call id of the tool result it holds, or what
// the item is.
func toolResultID(it helikon.Item) string {
	for _, p := range it.Content {
		if r, ok := p.(helikon.ToolResultPart); ok {
			return r.CallID
		}
	}
	return fmt.Sprintf("a %s item", strings.ToLower(string(it.Role)))
}
