package evals

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// TrajectoryMode says how [ToolTrajectory] compares the calls a run made
// with the calls a case expects.
type TrajectoryMode string

// The trajectory modes.
const (
	// TrajectoryExact wants exactly the expected calls, in order.
	TrajectoryExact TrajectoryMode = "exact"
	// TrajectoryInOrder wants the expected calls in order, with any other
	// calls between them (the expected list is a subsequence of the run's).
	TrajectoryInOrder TrajectoryMode = "in_order"
	// TrajectoryAnyOrder wants every expected call, in any order, each as
	// often as it is expected; other calls are allowed.
	TrajectoryAnyOrder TrajectoryMode = "any_order"
)

// ToolTrajectory compares the names of the tools a run called with the
// case's expected_tools. Its score is the share of expected calls matched
// (1 or 0 in exact mode); it passes only when all are. A case without
// expected_tools is skipped; an empty list expects no call at all.
type ToolTrajectory struct {
	mode TrajectoryMode
}

// NewToolTrajectory returns a trajectory evaluator in mode.
func NewToolTrajectory(mode TrajectoryMode) (*ToolTrajectory, error) {
	switch mode {
	case TrajectoryExact, TrajectoryInOrder, TrajectoryAnyOrder:
		return &ToolTrajectory{mode: mode}, nil
	}
	return nil, fmt.Errorf("evals: unknown trajectory mode %q (want exact, in_order or any_order)", mode)
}

// Name returns "tool_trajectory".
func (*ToolTrajectory) Name() string { return "tool_trajectory" }

// Mode returns the comparison mode.
func (t *ToolTrajectory) Mode() TrajectoryMode { return t.mode }

// Evaluate compares the trajectories.
func (t *ToolTrajectory) Evaluate(_ context.Context, c *Case, out *Outcome) (Score, error) {
	if c.ExpectedTools == nil {
		return Skip("case has no expected_tools"), nil
	}
	want := c.ExpectedTools
	if t.mode == TrajectoryExact && len(want) == len(out.ToolCalls) && sameNames(out.ToolCalls, want) {
		return Pass(1, ""), nil
	}
	got := make([]string, len(out.ToolCalls))
	for i, tc := range out.ToolCalls {
		got[i] = tc.Name
	}
	if len(want) == 0 {
		// An explicit empty list expects no call, whatever the mode.
		if len(got) == 0 {
			return Pass(1, ""), nil
		}
		return Fail(0, fmt.Sprintf("called [%s], want no call", strings.Join(got, " "))), nil
	}
	var matched int
	switch t.mode {
	case TrajectoryExact:
		if slices.Equal(got, want) {
			return Pass(1, ""), nil
		}
		return Fail(0, fmt.Sprintf("called [%s], want [%s]", strings.Join(got, " "), strings.Join(want, " "))), nil
	case TrajectoryInOrder:
		for _, name := range got {
			if matched < len(want) && name == want[matched] {
				matched++
			}
		}
	case TrajectoryAnyOrder:
		left := make(map[string]int, len(got))
		for _, name := range got {
			left[name]++
		}
		for _, name := range want {
			if left[name] > 0 {
				left[name]--
				matched++
			}
		}
	}
	if matched == len(want) {
		return Pass(1, ""), nil
	}
	return Fail(float64(matched)/float64(len(want)), fmt.Sprintf("matched %d of %d expected calls: called [%s], want [%s] (%s)",
		matched, len(want), strings.Join(got, " "), strings.Join(want, " "), t.mode)), nil
}

// sameNames reports whether calls are named want, in order, without
// building the list of names a mismatch's reason needs.
func sameNames(calls []ToolCall, want []string) bool {
	for i, c := range calls {
		if c.Name != want[i] {
			return false
		}
	}
	return true
}
