package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/paigasus/helikon"
)

// ErrPersist matches every [*PersistError].
var ErrPersist = errors.New("runner: session append failed")

// PersistError reports a run whose events the runner could not store in
// its session: the last append of the run failed, with the batches earlier
// appends had carried over to it. It is the error of the run's terminal
// [helikon.RunFailed], so [helikon.Collect] and [Runner.Run] return it with
// the run's result.
//
// When RunErr is nil the run itself completed: its answer is in the events
// the stream delivered (the result's FinalOutput) but not in the session.
// Appending Unsaved to the session, once it works again, completes the log
// exactly as the run would have left it; until then a later run does not
// see this one.
type PersistError struct {
	// Unsaved are the session events that were not stored, in order.
	Unsaved []helikon.SessionEvent
	// Err is the session's error from the last append.
	Err error
	// RunErr is the run's own failure, nil when the run completed or
	// paused.
	RunErr error
	// Terminal is the run's own terminal event ([helikon.RunCompleted],
	// [helikon.RunFailed] or [helikon.RunPaused]) that the failure
	// replaced; a paused run's state is still in it.
	Terminal helikon.Event
}

// Error says how many events were lost and why, and the run's own failure
// if it had one.
func (e *PersistError) Error() string {
	msg := fmt.Sprintf("runner: %d session events not stored: %v", len(e.Unsaved), e.Err)
	if e.RunErr != nil {
		msg += "; the run also failed: " + e.RunErr.Error()
	}
	return msg
}

// Unwrap returns the append error and the run's failure, so errors.Is and
// errors.As see both.
func (e *PersistError) Unwrap() []error {
	if e.RunErr == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.RunErr}
}

// Is reports whether target is [ErrPersist].
func (e *PersistError) Is(target error) bool { return target == ErrPersist }

// Fail returns the [helikon.RunFailed] that reports e in place of the run's
// terminal event final (a [helikon.RunCompleted], [helikon.RunFailed] or
// [helikon.RunPaused]), which it keeps in e.Terminal, with the run's own
// failure in e.RunErr. Another runner that stores a run's events in its
// session (the durable one, say) reports a failed append with it, as this
// one does. Any other event is returned as it is.
func (e *PersistError) Fail(final helikon.Event) helikon.Event {
	e.Terminal = final
	switch ev := final.(type) {
	case helikon.RunCompleted:
		return helikon.RunFailed{At: time.Now().UTC(), Err: e, Usage: ev.Usage}
	case helikon.RunPaused:
		return helikon.RunFailed{At: time.Now().UTC(), Err: e, Usage: ev.Usage}
	case helikon.RunFailed:
		e.RunErr = ev.Err
		return helikon.RunFailed{At: time.Now().UTC(), Err: e, Usage: ev.Usage}
	}
	return final
}
