package server_test

import (
	"testing"

	"github.com/paigasus/helikon/server"
)

// TestRunStatus_LiveAndFinalSplitEveryStatus pins which statuses a server
// drives (Live: the logs take their records, a dead replica's read as
// interrupted) and which end a run (Final): paused is neither, and no
// status is both.
func TestRunStatus_LiveAndFinalSplitEveryStatus(t *testing.T) {
	for _, tc := range []struct {
		status      server.RunStatus
		live, final bool
	}{
		{server.StatusQueued, true, false},
		{server.StatusRunning, true, false},
		{server.StatusPaused, false, false},
		{server.StatusCompleted, false, true},
		{server.StatusFailed, false, true},
		{server.StatusCancelled, false, true},
		{server.StatusInterrupted, false, true},
		{"", false, false},
	} {
		if got := tc.status.Live(); got != tc.live {
			t.Errorf("%q.Live() = %v, want %v", tc.status, got, tc.live)
		}
		if got := tc.status.Final(); got != tc.final {
			t.Errorf("%q.Final() = %v, want %v", tc.status, got, tc.final)
		}
	}
}
