package server

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// ErrCancelUndelivered reports a relayed cancel that no replica received:
// the replica driving the run does not listen for relayed cancels (it
// stopped, or its log does not relay them).
var ErrCancelUndelivered = errors.New("server: no replica received the cancel")

// CancelRelay is implemented by an [EventLog] that several replicas share
// and that can carry a cancel to the replica driving a run, as
// redislog.Log does over Redis Pub/Sub. With one, POST .../cancel works on
// any replica: the replica asked relays the cancel to the run's owner and
// answers once the run has ended. Without one, a cancel sent to a replica
// that does not drive the run is refused with 409 and code
// [CodeRunElsewhere].
type CancelRelay interface {
	// RelayCancel asks the replica that drives runID to cancel it. It
	// returns once a replica has received the request, or fails with an
	// error wrapping [ErrCancelUndelivered] when none did.
	RelayCancel(ctx context.Context, runID string) error
	// OnCancel registers fn, called with the id of every run another
	// replica asks this one to cancel, until stop is called. fn must not
	// block.
	OnCancel(fn func(runID string)) (stop func())
}

// The error codes of a cancel that cannot reach the run.
const (
	// CodeRunElsewhere: the run is driven by another replica and the
	// cancel cannot reach it (409): the event log relays no cancels, or
	// the owning replica does not listen for them.
	CodeRunElsewhere = "run_elsewhere"
	// CodeCancelTimeout: the replica driving the run received the cancel
	// but the run did not end within the wait (504); it may still end
	// cancelled, so read the run again.
	CodeCancelTimeout = "cancel_timeout"
)

// relayWait bounds how long a relayed cancel waits for the run to end.
var relayWait = 10 * time.Second

// cancelLive cancels a run this server drives, for a relayed cancel.
func (s *Server) cancelLive(runID string) {
	s.mu.Lock()
	lr := s.live[runID]
	s.mu.Unlock()
	if lr != nil {
		lr.cancel()
	}
}

// cancelElsewhere relays the cancel of a run another replica drives and
// waits until the run has ended, then answers its record. A run that
// pauses meanwhile is cancelled at its pause.
func (s *Server) cancelElsewhere(w http.ResponseWriter, r *http.Request, info RunInfo) {
	relay, ok := s.log.(CancelRelay)
	if !ok {
		writeError(w, errorf(http.StatusConflict, CodeRunElsewhere, "",
			"the run is driven by another server and the event log relays no cancels; send the cancel there"))
		return
	}
	if err := relay.RelayCancel(r.Context(), info.ID); err != nil {
		if errors.Is(err, ErrCancelUndelivered) {
			writeError(w, errorf(http.StatusConflict, CodeRunElsewhere, "",
				"the server driving the run does not listen for relayed cancels: "+err.Error()))
			return
		}
		writeError(w, s.unavailable("relay the cancel", err))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), relayWait)
	defer cancel()
	wait := 5 * time.Millisecond
	for {
		var err error
		info, err = s.log.Info(ctx, info.ID)
		switch {
		case r.Context().Err() != nil:
			return // the client has gone
		case ctx.Err() != nil:
			writeError(w, errorf(http.StatusGatewayTimeout, CodeCancelTimeout, "",
				"the server driving the run received the cancel, but the run has not ended within "+relayWait.String()))
			return
		case err != nil:
			writeError(w, s.unavailable("read run", err))
			return
		case info.Status.Final():
			writeJSON(w, http.StatusOK, info)
			return
		case info.Status == StatusPaused:
			s.cancelPausedRun(w, r, info)
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		wait = min(2*wait, 100*time.Millisecond)
	}
}
