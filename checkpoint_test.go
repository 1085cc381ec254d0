package helikon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

var errStop = errors.New("stop here")

// marshalEvents renders evs as JSON without their times, which differ
// between any two runs.
func marshalEvents(t *testing.T, evs []helikon.Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = withoutTimes(t, b)
	}
	return out
}

// withoutTimes re-encodes the JSON object data without the members that
// hold times ("at", "first_token_at", "started_at", "ended_at"), at any
// depth.
func withoutTimes(t *testing.T, data []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range []string{"at", "first_token_at", "started_at", "ended_at"} {
				delete(v, k)
			}
			for _, c := range v {
				strip(c)
			}
		case []any:
			for _, c := range v {
				strip(c)
			}
		}
	}
	strip(v)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rehydrationScripts is a run with two tool rounds (one of them parallel)
// and a streamed answer: six transitions.
func rehydrationScripts() []mock.Script {
	return []mock.Script{
		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}),
		mock.ToolCalls(mock.Call{ID: "c2", Name: "add", Args: `{"a":3,"b":4}`}, mock.Call{ID: "c3", Name: "add", Args: `{"a":5,"b":6}`}),
		mock.Deltas("the ", "sums ", "are ", "3, 7, 11"),
	}
}

func TestCheckpoint_StopSerialiseRestoreFinishMatchesAnUninterruptedRun(t *testing.T) {
	ctx := context.Background()
	input := helikon.UserText("add things")
	full, err := helikon.Collect(mustAgent(t, "calc", mock.New(rehydrationScripts()), helikon.WithTools(addTool)).
		Run(ctx, nil, input))
	if err != nil {
		t.Fatal(err)
	}
	want := marshalEvents(t, full.Events)

	for stopAfter := 1; stopAfter <= 5; stopAfter++ {
		t.Run(fmt.Sprintf("stop after transition %d", stopAfter), func(t *testing.T) {
			// One model serves both halves, as one provider would.
			m := mock.New(rehydrationScripts())
			var saved []byte
			n := 0
			first := mustAgent(t, "calc", m, helikon.WithTools(addTool), helikon.WithRunConfig(helikon.RunConfig{
				OnCheckpoint: func(_ context.Context, cp *helikon.Checkpoint) error {
					if n++; n == stopAfter {
						var err error
						saved, err = json.Marshal(cp)
						if err != nil {
							t.Fatal(err)
						}
						return errStop
					}
					return nil
				},
			}))
			part1, err := helikon.Collect(first.Run(ctx, nil, input))
			if !errors.Is(err, errStop) {
				t.Fatalf("first half: %v", err)
			}
			head := part1.Events[:len(part1.Events)-1] // drop the RunFailed the stop produced

			var cp helikon.Checkpoint
			if err := json.Unmarshal(saved, &cp); err != nil {
				t.Fatalf("restore: %v\n%s", err, saved)
			}
			second := mustAgent(t, "calc", m, helikon.WithTools(addTool))
			part2, err := helikon.Collect(second.Resume(ctx, nil, &cp))
			if err != nil {
				t.Fatalf("second half: %v", err)
			}
			got := marshalEvents(t, append(head, part2.Events...))
			if len(got) != len(want) {
				t.Fatalf("stop after %d: %d events, want %d\n got %v\nwant %v", stopAfter, len(got), len(want), got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("stop after %d: event %d = %s, want %s", stopAfter, i, got[i], want[i])
				}
			}
		})
	}
}
