package helikon

import "encoding/json"

// PauseRecorded records a run that paused for approval, with its whole
// [RunState], so that any process holding the session can list the pause
// and resume it.
func PauseRecorded(st *RunState) (SessionEvent, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return SessionEvent{}, err
	}
	return SessionEvent{Kind: KindRunPaused, Time: now(), RunID: st.RunID, PauseID: st.PauseID, Agent: st.Agent, State: data}, nil
}

// ResumeClaimed records that a process took a pause to resume it. claim is
// the process's own random token: of several claims on one pause, the first
// in the log wins.
func ResumeClaimed(runID, pauseID, claim string) SessionEvent {
	return SessionEvent{Kind: KindRunResumed, Time: now(), RunID: runID, PauseID: pauseID, Name: claim}
}

// PermissionGranted records an allow rule an "always" decision granted the
// session ([ScopeSession]), in the form the run's [Granter] reads.
func PermissionGranted(runID, rule string) SessionEvent {
	return SessionEvent{Kind: KindPermissionGranted, Time: now(), RunID: runID, Name: rule}
}
