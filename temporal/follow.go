package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/paigasus/helikon"
)

// follower reads a run's events from its workflow with the events query,
// until the run's terminal event.
type follower struct {
	c  client.Client
	wr client.WorkflowRun
	// wait waits for the run's wait update (see [WaitUpdate]): when set, a
	// follower that does not stream learns of a pause from it instead of
	// polling the pause query.
	wait  waitFunc
	agent string
	yield func(helikon.Event) bool
	// next is the offset of the first event not read yet.
	next     int
	terminal bool
	// paused is set when the stream ended with the run's RunPaused: the
	// workflow waits for decisions ([Runner.Resume]).
	paused bool

	// While following: the workflow's result once it closed, whether the
	// events are to be read (live, closed or paused), and where the wait
	// update's outcome arrives (nil: poll the pause query).
	res    *closed
	read   bool
	waited chan waitResult
}

type closed struct {
	out runOutput
	err error
}

// run follows the run. live polls the events while the workflow runs;
// otherwise the events are read once the workflow has closed (from its
// result, which carries them when they are small) or paused, so a run
// that pauses for approval ends the stream with its RunPaused as in
// process. The wait update tells of the pause; without one (or if it
// fails, as on a worker that predates it) the pause query is asked, at a
// slower pace.
func (f *follower) run(ctx context.Context, live bool) {
	var wg sync.WaitGroup
	defer wg.Wait()
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan closed, 1)
	wg.Go(func() {
		var c closed
		c.err = f.wr.Get(gctx, &c.out)
		done <- c
	})
	if f.wait != nil && !live {
		waited := make(chan waitResult, 1)
		f.waited = waited
		wg.Go(func() {
			var w waitResult
			w.pause, w.err = f.wait(gctx)
			waited <- w
		})
	}
	poll, pausePoll := minPoll, minPausePoll
	f.read = live
	gone := func() {
		f.yield(helikon.RunFailed{At: time.Now().UTC(), Err: &helikon.AgentError{
			Kind: helikon.KindCancelled, Agent: f.agent,
			Message: fmt.Sprintf("stopped following; the run goes on durably as workflow %s", f.wr.GetID()),
			Err:     ctx.Err(),
		}})
	}
	for {
		if f.read {
			var n int
			var ok bool
			var err error
			if res := f.res; res != nil && res.err == nil && res.out.Log != nil {
				n, ok, err = f.deliver(res.out.Log, len(res.out.Log))
			} else {
				n, ok, err = f.fetch(ctx)
			}
			if !ok {
				return
			}
			if err != nil {
				if ctx.Err() == nil {
					f.yield(helikon.RunFailed{At: time.Now().UTC(), Err: &helikon.AgentError{Kind: helikon.KindOther, Agent: f.agent, Message: "read the run's events: " + err.Error(), Err: err}})
					return
				}
			} else if n > 0 {
				poll = minPoll
			} else {
				poll = min(2*poll, maxPoll)
			}
		}
		if f.terminal {
			return
		}
		if f.res != nil {
			f.yield(helikon.RunFailed{At: time.Now().UTC(), Err: closedError(f.res, f.agent), Usage: f.res.out.Usage})
			return
		}
		var t *time.Timer
		switch {
		case live:
			t = time.NewTimer(poll)
		case f.waited == nil:
			t = time.NewTimer(pausePoll)
			pausePoll = min(2*pausePoll, maxPausePoll)
		}
		var tick <-chan time.Time
		if t != nil {
			tick = t.C
		}
		stopped := f.waitOnce(ctx, done, tick, live)
		if t != nil {
			t.Stop()
		}
		if stopped {
			gone()
			return
		}
	}
}

// waitOnce waits for the run's result, its wait update, the next poll or
// the caller's end, and reports whether the caller's context ended.
func (f *follower) waitOnce(ctx context.Context, done <-chan closed, tick <-chan time.Time, live bool) (gone bool) {
	select {
	case c := <-done:
		if ctx.Err() != nil {
			// The wait ended because the caller's context did.
			return true
		}
		f.res, f.read = &c, true
	case w := <-f.waited:
		f.waited = nil
		switch {
		case ctx.Err() != nil:
			return true
		case w.err != nil:
			// No wait update: ask the pause query from now on.
		case w.pause.PauseID != "":
			f.read = true
		default:
			// The run ended: its result follows.
			f.waited = make(chan waitResult) // never ready
		}
	case <-tick:
		if !live {
			f.read = f.pausedNow(ctx)
		}
	case <-ctx.Done():
		return true
	}
	return false
}

// waitFunc waits for the outcome of a run's wait update.
type waitFunc func(ctx context.Context) (pauseInfo, error)

// awaitHandle waits for the outcome of the wait update h.
func awaitHandle(h client.WorkflowUpdateHandle) waitFunc {
	return func(ctx context.Context) (pauseInfo, error) {
		var p pauseInfo
		err := h.Get(ctx, &p)
		return p, err
	}
}

// sendWait sends the wait update to the run wr, for a pause after the
// one named after (empty: any), then waits for its outcome.
func sendWait(c client.Client, wr client.WorkflowRun, after string) waitFunc {
	return func(ctx context.Context) (pauseInfo, error) {
		h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: wr.GetID(), RunID: wr.GetRunID(),
			UpdateName: WaitUpdate, Args: []any{waitIn{After: after}}, WaitForStage: client.WorkflowUpdateStageAccepted,
		})
		if err != nil {
			return pauseInfo{}, err
		}
		return awaitHandle(h)(ctx)
	}
}

// waitResult is the outcome of the wait update.
type waitResult struct {
	pause pauseInfo
	err   error
}

// pausedNow reports whether the run waits for decisions. A failed query
// reports false: the result or the next query tells.
func (f *follower) pausedNow(ctx context.Context) bool {
	v, err := f.c.QueryWorkflow(ctx, f.wr.GetID(), f.wr.GetRunID(), PauseQuery)
	var p pauseInfo
	if err == nil {
		err = v.Get(&p)
	}
	return err == nil && p.PauseID != ""
}

// fetch reads the events after f.next with the events query and yields
// them. ok is false when the consumer stopped.
func (f *follower) fetch(ctx context.Context) (n int, ok bool, err error) {
	var p rawPage
	if err := query(ctx, f.c, f.wr.GetID(), f.wr.GetRunID(), &p, EventsQuery, f.next); err != nil {
		return 0, true, err
	}
	return f.deliver(p.Events, p.Next)
}

// deliver decodes and yields raw, the events up to offset next, from
// f.next on.
func (f *follower) deliver(raw []json.RawMessage, next int) (n int, ok bool, err error) {
	if start := len(raw) - (next - f.next); start > 0 {
		raw = raw[start:]
	}
	for _, r := range raw {
		ev, err := decodeEvent(r)
		if err != nil {
			return n, true, err
		}
		switch ev.(type) {
		case helikon.RunCompleted, helikon.RunFailed:
			f.terminal = true
		case helikon.RunPaused:
			f.terminal, f.paused = true, true
		}
		f.next++
		n++
		if !f.yield(ev) {
			return n, false, nil
		}
	}
	f.next = next
	return n, true, nil
}

// closedError describes a workflow that closed without a terminal event:
// it timed out, was terminated or failed.
func closedError(c *closed, agent string) error {
	if c.err == nil {
		if c.out.Err != nil {
			return c.out.Err
		}
		return &helikon.AgentError{Kind: helikon.KindOther, Agent: agent, Message: "the run's workflow closed without a terminal event"}
	}
	var te *temporal.TimeoutError
	if errors.As(c.err, &te) {
		// Only the workflow's own run timeout closes it so: its steps'
		// timeouts are retried or become the step's result. The run
		// failed as an in-process run past its timeout does.
		return &helikon.AgentError{Kind: helikon.KindCancelled, Agent: agent, Message: "the run timed out (WithRunTimeout or RunConfig.Timeout)", Err: fmt.Errorf("%w: %w", context.DeadlineExceeded, c.err)}
	}
	var ce *temporal.CanceledError
	kind := helikon.KindOther
	switch {
	case errors.As(c.err, &ce),
		// The caller's own context ending while the client polls is a
		// cancellation too, whichever call noticed it first.
		errors.Is(c.err, context.Canceled), errors.Is(c.err, context.DeadlineExceeded):
		kind = helikon.KindCancelled
	}
	return &helikon.AgentError{Kind: kind, Agent: agent, Message: "the run's workflow: " + c.err.Error(), Err: c.err}
}

// query asks workflow id (run runID, empty: the latest) the query name
// with args and decodes the answer into out. A query that failed for
// another reason than a missing workflow is asked again, twice at most: a
// query is read-only, and the ways one fails on a healthy cluster pass (a
// query the server sent to a worker that was stopping fails with that
// worker's cancellation or times out on its sticky queue, and the next one
// reaches a live worker; a stream reset under load).
func query(ctx context.Context, c client.Client, id, runID string, out any, name string, args ...any) error {
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		v, err := c.QueryWorkflow(ctx, id, runID, name, args...)
		if err == nil {
			return v.Get(out)
		}
		var notFound *serviceerror.NotFound
		if attempt == 3 || ctx.Err() != nil || errors.As(err, &notFound) {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
		backoff *= 2
	}
}
