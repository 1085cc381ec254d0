package session

import (
	"encoding/json"

	"github.com/paigasus/helikon"
)

// PauseRecorded records a run that paused for approval, with its whole
// [helikon.RunState], so that any process holding the session can list the
// pause and resume it.
func PauseRecorded(st *helikon.RunState) (helikon.SessionEvent, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return helikon.SessionEvent{}, err
	}
	return helikon.SessionEvent{Kind: helikon.KindRunPaused, Time: now(), RunID: st.RunID, PauseID: st.PauseID, Agent: st.Agent, State: data}, nil
}

// ResumeClaimed records that a process took a pause to resume it. claim is
// the process's own random token: of several claims on one pause, the first
// in the log wins.
func ResumeClaimed(runID, pauseID, claim string) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindRunResumed, Time: now(), RunID: runID, PauseID: pauseID, Name: claim}
}

// PermissionGranted records an allow rule an "always" decision granted the
// session ([helikon.ScopeSession]), in the form the run's [helikon.Granter]
// reads.
func PermissionGranted(runID, rule string) helikon.SessionEvent {
	return helikon.SessionEvent{Kind: helikon.KindPermissionGranted, Time: now(), RunID: runID, Name: rule}
}
