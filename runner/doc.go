// Package runner is Helikon's default [helikon.Runner]: it runs an agent in
// the calling goroutine and wires the run's lifecycle around it. Before a
// run it loads the session's history and prepends it to the input; during
// the run a [SessionRecorder] turns the event stream into session
// events, appended at every settled turn boundary and at the end; the
// RunContext's RunConfig.Timeout bounds the whole run. [Runner.Resume]
// continues a conversation a crash or a cancellation left unanswered.
// A run that pauses for a human's approval is stored in its session:
// [Pending] lists the pauses and [Runner.ResumePaused] continues one by run
// id, from any process, at most once.
//
// The smallest use, with a session that outlives the run:
//
//	sess := helikon.NewMemorySession() // or session/sqlite, postgres, redis
//	rc := helikon.NewRunContext(helikon.WithSession(sess))
//	res, err := runner.New().Run(ctx, agent, rc, helikon.UserText("hi"))
//
// Retries of transient provider errors and client-side rate limits are a
// model concern: wrap the model with the retry package.
package runner
