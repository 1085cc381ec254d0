package server

import (
	"strings"
	"testing"
)

// TestSessionsOf_LabelsEachSessionOnce: a session's label is cut from its
// earliest run's input once, not from every run's on the way there — a
// page of 1,000 runs of one session with long inputs costs one label.
func TestSessionsOf_LabelsEachSessionOnce(t *testing.T) {
	runs := make([]RunInfo, MaxRunListLimit)
	for i := range runs {
		runs[i] = RunInfo{ID: "r", Owner: "alice", SessionID: "s", Input: strings.Repeat("word ", maxInputRecord/5)}
	}
	runs[len(runs)-1].Input = "the first question"
	var got []SessionInfo
	allocs := testing.AllocsPerRun(5, func() { got = sessionsOf(runs, "alice") })
	if len(got) != 1 || got[0].Label != "the first question" || got[0].Runs != MaxRunListLimit {
		t.Fatalf("sessions %+v", got)
	}
	t.Logf("%.0f allocations", allocs)
	if allocs > 20 {
		t.Errorf("sessionsOf made %.0f allocations for one session, want a handful", allocs)
	}
}
