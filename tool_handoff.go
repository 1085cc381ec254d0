package helikon

import (
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/paigasus/helikon/internal/gentrace"
)

// A live round whose calls no user code but their tools takes part in
// hands workers the tools alone: the driver admits every call before the
// round starts (the tool's lookup, the default authorizer, its span) and
// settles each after it ends (redaction, the result), and a worker runs
// only [Tool.Call]. What a worker touches then is the call's context and
// arguments, and what the driver reads back is the tool's output: on a
// machine where a cache line takes long to pass between processors, the
// hand-off of a quick call costs a fraction of what moving the whole
// call did. The grace period bounds the same thing as before, since the
// tool is the only code in such a round that may ignore cancellation.

// toolCall is what a call of a live round carries between its admission
// on the driver's goroutine, its tool's run on a worker, and its
// settlement: held by the round (liveRound.handed), not by the call's
// outcome, since a tool may keep its ToolContext, and with it the
// outcome, past its call.
type toolCall struct {
	// run is set, by the driver, when the call was admitted and its tool
	// is to run; ran, by the worker, once the tool returned.
	run, ran bool
	tool     Tool
	args     json.RawMessage
	span     trace.Span
	// What the tool returned, and when it started and ended, written by
	// the worker before it leaves the round.
	output         ToolOutput
	err            error
	started, ended time.Time
}

// handsOnlyTools reports whether a live round's calls may be admitted and
// settled on the driver's goroutine, with only their tools on workers: no
// approval handler, hook, authorizer or redactor of the user's takes part
// (each may block), and no pause's decisions are being applied.
func (d *driver) handsOnlyTools() bool {
	return d.rc.settings().approval == nil && d.paused.memo == nil && !d.userCodeAroundCalls()
}

// toolsOnly reports whether the round hands its workers only the tools:
// the driver admitted its calls (admitAll) and settles them (settleAll).
func (r *liveRound) toolsOnly() bool { return len(r.handed) > 0 }

// admitAll admits the round's calls on the driver's goroutine, before its
// workers start. The governance events their admission reports stay in
// their outcomes, for the driver to send: no worker is there to wait on.
func (r *liveRound) admitAll(ctx context.Context) {
	if cap(r.handed) < len(r.calls) {
		r.handed = make([]toolCall, len(r.calls))
	}
	r.handed = r.handed[:len(r.calls)]
	for i := range r.calls {
		out := &r.outs[i]
		// Its events are kept, not sent: the driver reads the round's
		// channel only once the round has started.
		live := out.live
		out.live = nil
		r.d.admitCall(ctx, r.calls[i], out, &r.handed[i])
		out.live = live
	}
}

// admitCall is runCall up to the tool's call: the lookup, the
// authorizer, the tool's context and span. h.run says the tool is to run;
// otherwise out holds the call's result.
func (d *driver) admitCall(ctx context.Context, call ToolCall, out *callOutcome, h *toolCall) {
	out.d = d
	if err := ctx.Err(); err != nil {
		// As runUnlessCancelled: a call of a cancelled run is not
		// admitted either.
		out.result = errorResult(call, "not run: "+err.Error())
		return
	}
	ctx, h.span = d.startTool(ctx, call)
	// As in runCall: governance's checks fail the call, not the run.
	defer func() {
		if r := recover(); r != nil {
			h.run = false
			d.callPanicked(call, out, r)
		}
	}()
	tool, ok := d.lookup(call, out)
	if !ok {
		return
	}
	args, ok := d.admitted(ctx, tool, call, out)
	if !ok {
		return
	}
	out.tc = d.toolContext(ctx, call, out)
	h.run, h.tool, h.args = true, tool, args
}

// runTool runs an admitted call's tool: a worker's share of the call.
func (r *liveRound) runTool(i int) {
	out, h := &r.outs[i], &r.handed[i]
	defer out.end()
	if !h.run {
		return
	}
	if err := r.ctx.Err(); err != nil {
		out.result = errorResult(r.calls[i], "not run: "+err.Error())
		return
	}
	h.call(&out.tc)
}

// call runs the tool on tc and notes what it returned, and when.
func (h *toolCall) call(tc *ToolContext) {
	h.started = now()
	h.output, h.err = safeCall(h.tool, tc, h.args)
	h.ended = now()
	h.ran = true
}

// settleAll settles the round's calls on the driver's goroutine once
// every worker has left it, and forgets what they carried.
func (r *liveRound) settleAll() {
	for i := range r.handed {
		h, out := &r.handed[i], &r.outs[i]
		if h.ran {
			r.settle(i)
		}
		r.d.endTool(h.span, out)
		*h = toolCall{}
	}
	r.handed = r.handed[:0]
}

// settle settles call i, whose tool ran, as runCall would: a panic
// fails the call, not the run.
func (r *liveRound) settle(i int) {
	call, out := r.calls[i], &r.outs[i]
	defer func() {
		if p := recover(); p != nil {
			r.d.callPanicked(call, out, p)
		}
	}()
	r.d.settleTool(r.ctx, call, &r.handed[i], out)
}

// settleTool turns what a call's tool returned into the call's outcome
// (settleCall), with its times.
func (d *driver) settleTool(ctx context.Context, call ToolCall, h *toolCall, out *callOutcome) {
	d.settleCall(ctx, call, h.args, h.output, h.err, out)
	out.result.StartedAt, out.result.EndedAt = h.started, h.ended
}

// endAbandoned ends the spans of a round the driver gives up on: a worker
// may still be in an admitted call's tool, so nothing it writes is read.
// The round is not reused (abandonCalls), nor is what it handed.
func (r *liveRound) endAbandoned() {
	for i := range r.handed {
		h := &r.handed[i]
		switch {
		case h.span == nil:
		case h.run:
			gentrace.EndTool(h.span, "tool_error", "the run ended without the call: cancelled, it outlived the grace period")
		default:
			r.d.endTool(h.span, &r.outs[i])
		}
	}
}
