package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/textcut"
	"github.com/paigasus/helikon/runner"
)

// The artifacts a [Server] writes. StreamArtifact receives the run's text
// as the model streams it, in chunks; OutputArtifact holds the final
// output once the run completes: a text part, or a data part for
// structured output.
const (
	StreamArtifact = "stream"
	OutputArtifact = "output"
)

// Keys of the data parts a [Server] puts in status messages: a paused run's
// id and pending approvals, a tool call, a handoff; and the key a
// resuming message's data part carries its decisions under.
const (
	KeyRunID     = "run_id"
	KeyApprovals = "approvals"
	KeyDecisions = "decisions"
	KeyToolCall  = "tool_call"
	KeyHandoff   = "handoff"
)

// Streamed text is sent once [chunkBytes] have gathered or this long
// after the first of them: the SDK saves the whole task on each event, so
// an event per token would make a long answer quadratic.
const streamChunkEvery = 50 * time.Millisecond

// executor runs the [Server]'s agent for each A2A message.
type executor struct{ s *Server }

var _ a2asrv.AgentExecutor = (*executor)(nil)

// Execute runs the agent on the message, or resumes the task's paused run
// with the decisions the message carries, and writes what the run says to
// the task's queue.
func (e *executor) Execute(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
	s := e.s
	if req.StoredTask == nil {
		if err := q.Write(ctx, a2apb.NewSubmittedTask(req, req.Message)); err != nil {
			return err
		}
	}
	// Working before any artifact: the SDK appends artifacts to the task
	// it last saved in place, and a status update makes that a copy, not
	// the task just written, which its stream may still be encoding.
	if err := q.Write(ctx, a2apb.NewStatusUpdateEvent(req, a2apb.TaskStateWorking, nil)); err != nil {
		return err
	}
	principal := principalFrom(ctx)
	sess, err := s.sessionFor(ctx, principal, req.ContextID)
	if err != nil {
		s.logger().Error("a2a: session unavailable", "task", req.TaskID, "principal", principal, "err", err)
		return writeStatus(ctx, q, req, a2apb.TaskStateFailed, "the session is unavailable")
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !s.track(req.TaskID, cancel) {
		return writeStatus(ctx, q, req, a2apb.TaskStateFailed, "the server is shutting down")
	}
	defer s.untrack(req.TaskID)
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()

	agent := s.agent
	if s.cfg.factory != nil {
		if agent, err = s.cfg.factory(ctx); err != nil {
			s.logger().Error("a2a: agent factory failed", "task", req.TaskID, "principal", principal, "err", err)
			return writeStatus(ctx, q, req, a2apb.TaskStateFailed, "the agent is unavailable")
		}
	}
	rc := s.cfg.newContext(sess)
	var stream iter.Seq[helikon.Event]
	if st := req.StoredTask; st != nil && st.Status.State == a2apb.TaskStateInputRequired {
		runID, decisions, err := decisionsFor(runCtx, sess, st, req.Message)
		if err != nil {
			// The run stays paused: say what a resuming message must hold.
			return writePaused(ctx, q, req, runID, nil, err.Error())
		}
		stream = s.runner.ResumePausedStreamed(runCtx, agent, rc, runID, decisions)
	} else {
		input, err := itemsFrom(req.Message)
		if err != nil {
			return writeStatus(ctx, q, req, a2apb.TaskStateFailed, err.Error())
		}
		stream = s.runner.RunStreamed(runCtx, agent, rc, input)
	}
	return e.relay(ctx, runCtx, q, req, stream)
}

// relay writes the run's events to the queue as the task's updates.
func (e *executor) relay(ctx, runCtx context.Context, q eventqueue.Queue, req *a2asrv.RequestContext, stream iter.Seq[helikon.Event]) error {
	w := &streamWriter{ctx: ctx, q: q, req: req}
	var final string
	for ev := range stream {
		if _, ok := ev.(helikon.TokenDelta); !ok {
			if err := w.flush(); err != nil {
				return err
			}
		}
		switch ev := ev.(type) {
		case helikon.TokenDelta:
			if err := w.add(ev.Text); err != nil {
				return err
			}
		case helikon.MessageOutput:
			final = ev.Item.Text()
		case helikon.ToolCallItem:
			for _, u := range ev.Item.ToolUses() {
				// The SDK copies tasks with gob, which takes only plain
				// JSON values: the arguments go decoded.
				var args any
				if json.Unmarshal(u.Args, &args) != nil {
					args = string(u.Args)
				}
				data := map[string]any{KeyToolCall: map[string]any{"id": u.CallID, "name": u.Name, "args": args}}
				if err := writeWorking(ctx, q, req, a2apb.DataPart{Data: data}); err != nil {
					return err
				}
			}
		case helikon.HandoffItem:
			data := map[string]any{KeyHandoff: map[string]any{"from": ev.From, "to": ev.To}}
			if err := writeWorking(ctx, q, req, a2apb.DataPart{Data: data}); err != nil {
				return err
			}
		case helikon.RunPaused:
			return writePaused(ctx, q, req, ev.State.RunID, ev.State.Pending, "")
		case helikon.RunCompleted:
			if err := writeOutput(ctx, q, req, final, ev.Structured); err != nil {
				return err
			}
			return writeFinal(ctx, q, req, a2apb.TaskStateCompleted, nil)
		case helikon.RunFailed:
			if runCtx.Err() != nil && ctx.Err() == nil && e.s.ctx.Err() == nil {
				// tasks/cancel: the SDK applied the cancellation already.
				return nil
			}
			e.s.logger().Warn("a2a: run failed", "task", req.TaskID, "principal", principalFrom(ctx), "err", ev.Err)
			return writeStatus(ctx, q, req, a2apb.TaskStateFailed, errorText(ev.Err))
		}
	}
	return writeStatus(ctx, q, req, a2apb.TaskStateFailed, "the run ended without a final event")
}

// Cancel cancels the task's run and reports the task canceled; the SDK
// also cancels the execution's context once it applies the event.
func (e *executor) Cancel(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
	e.s.cancelRun(req.TaskID)
	return writeFinal(ctx, q, req, a2apb.TaskStateCanceled, nil)
}

// streamWriter sends streamed text as chunks of the stream artifact.
type streamWriter struct {
	ctx     context.Context
	q       eventqueue.Queue
	req     *a2asrv.RequestContext
	buf     strings.Builder
	since   time.Time
	started bool
	id      a2apb.ArtifactID
}

func (w *streamWriter) add(text string) error {
	if w.buf.Len() == 0 {
		w.since = time.Now()
	}
	w.buf.WriteString(text)
	if w.buf.Len() >= chunkBytes || time.Since(w.since) >= streamChunkEvery {
		return w.flush()
	}
	return nil
}

func (w *streamWriter) flush() error {
	if w.buf.Len() == 0 {
		return nil
	}
	text := w.buf.String()
	w.buf.Reset()
	for chunk := range chunks(text) {
		part := a2apb.TextPart{Text: chunk}
		var ev *a2apb.TaskArtifactUpdateEvent
		if !w.started {
			w.started = true
			ev = a2apb.NewArtifactEvent(w.req, part)
			w.id = ev.Artifact.ID
		} else {
			ev = a2apb.NewArtifactUpdateEvent(w.req, w.id, part)
		}
		ev.Artifact.Name = StreamArtifact
		if err := w.q.Write(w.ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// chunks splits text into pieces of at most [chunkBytes], whole characters
// each.
func chunks(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for text != "" {
			chunk, _ := textcut.Prefix(text, chunkBytes)
			if !yield(chunk) {
				return
			}
			text = text[len(chunk):]
		}
	}
}

// chunkBytes bounds the text of one artifact event. The a2a-go client
// (v0.3.3) reads a stream line by line with a 64 KiB limit, and JSON may
// write a byte of text as six ("\u0000"): 8 KiB of text always fits.
const chunkBytes = 8 << 10

// writeOutput writes the final output as the output artifact, text in
// chunks a streaming client can read.
func writeOutput(ctx context.Context, q eventqueue.Queue, req *a2asrv.RequestContext, final string, structured bool) error {
	part := outputPart(final, structured)
	tp, isText := part.(a2apb.TextPart)
	if !isText || len(tp.Text) <= chunkBytes {
		ev := a2apb.NewArtifactEvent(req, part)
		ev.Artifact.Name, ev.LastChunk = OutputArtifact, true
		return q.Write(ctx, ev)
	}
	var id a2apb.ArtifactID
	left := len(tp.Text)
	for chunk := range chunks(tp.Text) {
		left -= len(chunk)
		var ev *a2apb.TaskArtifactUpdateEvent
		if id == "" {
			ev = a2apb.NewArtifactEvent(req, a2apb.TextPart{Text: chunk})
			id = ev.Artifact.ID
		} else {
			ev = a2apb.NewArtifactUpdateEvent(req, id, a2apb.TextPart{Text: chunk})
		}
		ev.Artifact.Name, ev.LastChunk = OutputArtifact, left == 0
		if err := q.Write(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// outputPart is the final output as a part: structured output that is a
// JSON object as a data part, anything else as text.
func outputPart(final string, structured bool) a2apb.Part {
	if structured {
		var obj map[string]any
		if json.Unmarshal([]byte(final), &obj) == nil && obj != nil {
			return a2apb.DataPart{Data: obj}
		}
	}
	return a2apb.TextPart{Text: final}
}

func writeWorking(ctx context.Context, q eventqueue.Queue, req *a2asrv.RequestContext, parts ...a2apb.Part) error {
	msg := a2apb.NewMessageForTask(a2apb.MessageRoleAgent, req, parts...)
	return q.Write(ctx, a2apb.NewStatusUpdateEvent(req, a2apb.TaskStateWorking, msg))
}

func writeStatus(ctx context.Context, q eventqueue.Queue, req *a2asrv.RequestContext, state a2apb.TaskState, text string) error {
	return writeFinal(ctx, q, req, state, a2apb.NewMessageForTask(a2apb.MessageRoleAgent, req, a2apb.TextPart{Text: text}))
}

func writeFinal(ctx context.Context, q eventqueue.Queue, req *a2asrv.RequestContext, state a2apb.TaskState, msg *a2apb.Message) error {
	ev := a2apb.NewStatusUpdateEvent(req, state, msg)
	ev.Final = true
	return q.Write(ctx, ev)
}

// writePaused leaves the task input-required, its status message naming
// the paused run and the calls awaiting a decision. pending nil keeps the
// approvals the task's last status listed (a resume that could not use
// the message it got).
func writePaused(ctx context.Context, q eventqueue.Queue, req *a2asrv.RequestContext, runID string, pending []helikon.PendingApproval, problem string) error {
	if pending == nil && req.StoredTask != nil {
		if p, ok := pausedOf(req.StoredTask); ok {
			pending = p.Approvals
		}
	}
	var b strings.Builder
	if problem != "" {
		b.WriteString(problem + "\n")
	}
	b.WriteString("Approval needed before the run goes on:")
	for _, p := range pending {
		fmt.Fprintf(&b, "\n- %s (%s)", p.Tool, p.ID)
		if p.Prompt != "" {
			b.WriteString(": " + p.Prompt)
		}
	}
	b.WriteString("\nReply \"approve\" or \"reject\", or send a data part {\"decisions\": [{\"id\": ..., \"kind\": \"approve\"}]}.")
	approvals, err := toData(pending)
	if err != nil {
		return err
	}
	data := a2apb.DataPart{Data: map[string]any{KeyRunID: runID, KeyApprovals: approvals}}
	msg := a2apb.NewMessageForTask(a2apb.MessageRoleAgent, req, a2apb.TextPart{Text: b.String()}, data)
	return writeFinal(ctx, q, req, a2apb.TaskStateInputRequired, msg)
}

// paused is what an input-required task's status message says of its run.
type paused struct {
	RunID     string                    `json:"run_id"`
	Approvals []helikon.PendingApproval `json:"approvals"`
}

func pausedOf(t *a2apb.Task) (paused, bool) {
	if t.Status.Message == nil {
		return paused{}, false
	}
	for _, p := range t.Status.Message.Parts {
		dp, ok := p.(a2apb.DataPart)
		if !ok || dp.Data[KeyRunID] == nil {
			continue
		}
		raw, err := json.Marshal(dp.Data)
		if err != nil {
			return paused{}, false
		}
		var out paused
		if json.Unmarshal(raw, &out) != nil || out.RunID == "" {
			return paused{}, false
		}
		return out, true
	}
	return paused{}, false
}

// errNoDecision reports a message on a paused task that decides nothing.
var errNoDecision = errors.New(`the message decides nothing: reply "approve" or "reject", or send decisions in a data part`)

// decisionsFor reads the decisions a message on a paused task carries:
// a data part's decisions, or "approve"/"reject" in text for every call
// the run waits on (read from the session, the pause's record).
func decisionsFor(ctx context.Context, sess helikon.Session, t *a2apb.Task, msg *a2apb.Message) (string, []helikon.Decision, error) {
	p, ok := pausedOf(t)
	if !ok {
		return "", nil, errors.New("the task's paused run is unknown")
	}
	for _, part := range msg.Parts {
		if dp, ok := part.(a2apb.DataPart); ok && dp.Data[KeyDecisions] != nil {
			raw, err := json.Marshal(dp.Data[KeyDecisions])
			if err != nil {
				return p.RunID, nil, fmt.Errorf("reading decisions: %w", err)
			}
			var ds []helikon.Decision
			if err := json.Unmarshal(raw, &ds); err != nil {
				return p.RunID, nil, fmt.Errorf("reading decisions: %w", err)
			}
			return p.RunID, ds, nil
		}
	}
	var text strings.Builder
	for _, part := range msg.Parts {
		if tp, ok := part.(a2apb.TextPart); ok {
			text.WriteString(tp.Text)
		}
	}
	var kind helikon.DecisionKind
	switch strings.ToLower(strings.TrimSpace(strings.Trim(text.String(), ".!"))) {
	case "approve", "approved", "yes", "y", "ok":
		kind = helikon.DecisionApprove
	case "reject", "rejected", "deny", "denied", "no", "n":
		kind = helikon.DecisionReject
	default:
		return p.RunID, nil, errNoDecision
	}
	pauses, err := runner.Pending(ctx, sess)
	if err != nil {
		return p.RunID, nil, fmt.Errorf("reading the paused run: %w", err)
	}
	for _, pause := range pauses {
		if pause.RunID != p.RunID {
			continue
		}
		ds := make([]helikon.Decision, 0, len(pause.Pending))
		for _, pa := range pause.Pending {
			ds = append(ds, helikon.Decision{ID: pa.ID, Kind: kind, Message: rejectMessage(kind)})
		}
		return p.RunID, ds, nil
	}
	return p.RunID, nil, errors.New("the task's run is no longer paused")
}

func rejectMessage(k helikon.DecisionKind) string {
	if k == helikon.DecisionReject {
		return "the caller rejected this call"
	}
	return ""
}

// toData turns v into the generic JSON a data part holds.
func toData(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, err
}

// errorText is what a caller is told of a failed run: the error's message,
// which the core already redacts of the secrets it knows.
func errorText(err error) string {
	if err == nil {
		return "the run failed"
	}
	return err.Error()
}
