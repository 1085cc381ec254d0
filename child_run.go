package helikon

import "context"

// This file is the sub-run API: what an agent that drives sub-agents (the
// workflow package's Sequential, Parallel, Loop, Swarm and Graph, or a kind
// of its own) needs from the core to open its run, fold a child's stream
// into its own, and pause and resume.
//
// The stream convention is the handoff driver's: a child's RunStarted is
// swallowed (an AgentUpdated names the child instead), its RunCompleted and
// RunFailed stay inside (the parent folds the usage and reports one outcome
// of its own), and every other event passes through. A parent may ask a
// child to leave its RunStarted and RunCompleted out ([RunContext.FoldInto]).

// OpenRun opens the run of agent, an agent that drives sub-agents (a
// workflow): it checks the depth bound, applies the [RunConfig] timeout,
// opens the agent's invoke_agent span, which its children's spans nest
// under, and, unless the run is resumed from a pause, emits RunStarted. It
// returns the run's context, its [RunContext] (rc, or [Ephemeral] for nil)
// and the yield to send the run's events through (it closes the span on
// the run's terminal event) and stamps every event that has no time yet
// ([StampEvent]). When ok is false the run is already over.
// done releases the timeout and the span and must be called.
//
// OpenRun, [RunInto], [ChildOutcome], [SubagentStopped] and [EmitPaused]
// are the sub-run API the workflow package builds its agents on (its
// RunChild runs a child with them); a new kind of workflow agent uses them
// the same way.
func OpenRun(ctx context.Context, rc *RunContext, agent, description string, resumed bool, yield func(Event) bool) (_ context.Context, _ *RunContext, _ func(Event) bool, done func(), ok bool) {
	// The agent's own events (its RunStarted, AgentUpdated, outcome) are
	// stamped as they pass; its LLM children's arrive stamped.
	return openRun(ctx, rc, agent, description, resumed, stamping(yield))
}

// OpenStampedRun is [OpenRun] for an agent that sends only events that
// carry their time (or none, the raw deltas): its own stamped when made,
// its children's as they arrive from an [LLMAgent], whose are, and the
// others' through [StampEvent]. The yield it returns stamps nothing: an
// untraced run gets yield itself, which saves the wrapper's allocation
// and a call an event (the workflow package's parallel and graph agents
// open their runs with it).
func OpenStampedRun(ctx context.Context, rc *RunContext, agent, description string, resumed bool, yield func(Event) bool) (_ context.Context, _ *RunContext, _ func(Event) bool, done func(), ok bool) {
	return openRun(ctx, rc, agent, description, resumed, yield)
}

// openRun is OpenRun with yield already stamping, or not needing to.
func openRun(ctx context.Context, rc *RunContext, agent, description string, resumed bool, yield func(Event) bool) (_ context.Context, _ *RunContext, _ func(Event) bool, done func(), ok bool) {
	started := !resumed
	if rc == nil {
		rc = Ephemeral()
	}
	var cfg RunConfig
	if rc.config != nil {
		cfg = *rc.config
	}
	cfg = cfg.withDefaults()
	if limit := rc.depthLimit(cfg.MaxAgentDepth); rc.depth > limit {
		yield(RunFailed{At: now(), Err: agentErrorf(KindMaxAgentDepthExceeded, agent, "depth %d exceeds %d", rc.depth, limit)})
		return ctx, rc, yield, func() {}, false
	}
	done = func() {}
	if cfg.Timeout > 0 {
		ctx, done = context.WithTimeout(ctx, cfg.Timeout)
	}
	// The agent's own invoke_agent span, which its children nest under.
	ctx, tr := startAgentTrace(ctx, rc, agent, description, nil)
	if tr != nil {
		// Children's terminal events stay inside, so the only RunCompleted
		// or RunFailed this yield sees is the agent's own: its span takes
		// the summed usage and the failure from it.
		var (
			usage  Usage
			runErr error
		)
		inner, release := yield, done
		yield = func(ev Event) bool {
			switch e := ev.(type) {
			case RunCompleted:
				usage = e.Usage
			case RunFailed:
				usage, runErr = e.Usage, e.Err
			case RunPaused:
				usage = e.Usage
			}
			return inner(ev)
		}
		done = func() { endTrace(tr, usage, runErr); release() }
	}
	// Stamped here: stamping boxes an event that has no time a second time.
	if started && !yield(RunStarted{At: now(), Agent: agent}) {
		done()
		return ctx, rc, yield, func() {}, false
	}
	return ctx, rc, yield, done, true
}

// RunInto runs agent on input under rc and sends its events to yield, as
// calling the iterator agent.Run(ctx, rc, input) returns would. For an
// [LLMAgent] it makes no iterator: a parent that holds its children as
// Agents (a workflow's fan-out), whose iterators escape, saves an
// allocation for each.
func RunInto(ctx context.Context, agent Agent, rc *RunContext, input []Item, yield func(Event) bool) {
	if a, ok := agent.(*LLMAgent); ok {
		a.newDriver(orEphemeral(rc)).start(ctx, nil, input, yield)
		return
	}
	agent.Run(ctx, rc, input)(yield)
}

// Children returns the contexts of n nested runs of rc's run, each what
// [RunContext.Child] returns, with their action handles made in one
// allocation for up to four and two for more: an agent that runs n
// sub-agents in one run (a parallel or graph workflow) makes their
// contexts at once.
func (rc *RunContext) Children(n int) []RunContext {
	var cs []RunContext
	var acts []Actions
	if n <= smallChildren {
		// Most runs have a handful of children: one allocation for both.
		s := new(smallChildContexts)
		cs, acts = s.cs[:n], s.acts[:n]
	} else {
		cs, acts = make([]RunContext, n), make([]Actions, n)
	}
	for i := range cs {
		cs[i] = *rc
		cs[i].depth++
		cs[i].actions = &acts[i]
		cs[i].fold, cs[i].foldAgent = nil, nil
	}
	return cs
}

// smallChildren is the most children whose contexts Children makes in one
// allocation.
const smallChildren = 4

type smallChildContexts struct {
	cs   [smallChildren]RunContext
	acts [smallChildren]Actions
}

// FoldInto asks agent's runs on rc, a context of the caller's own from
// [RunContext.Child] or [RunContext.Children] that agent is about to run
// on (once, as a workflow's child), to settle their RunStarted and
// RunCompleted into o as [ChildOutcome.See] would, instead of sending them
// down the stream: a
// parent that folds its child's stream (a workflow's fan-out) then pays
// for neither event, which it would only swallow. An [LLMAgent] run
// directly on rc does so; any other agent, and a run on a context derived
// from rc, sends the events as ever, and See folds them into the same
// outcome. Its RunFailed and RunPaused always go down the stream.
func (rc *RunContext) FoldInto(agent Agent, o *ChildOutcome) {
	rc.fold, rc.foldAgent = o, agent
}

// ChildOutcome is what a parent keeps of one sub-agent's run: feed it
// every event of the child's stream with [ChildOutcome.See], then call
// [ChildOutcome.End]. A child asked to with [RunContext.FoldInto] settles
// its RunStarted and RunCompleted in it directly.
type ChildOutcome struct {
	Final string // the child's last message text: its final output
	// Content is the content of the child's last message, whose text is
	// Final: a parent that ends with the same message can reuse it.
	Content    []ContentPart
	Agent      string // the agent that ended the child's run
	Structured bool   // the final output is structured
	Usage      Usage
	Err        error // the child's failure
	// Finished reports that the child's stream ended with a terminal event
	// (or End settled it).
	Finished bool
	// Paused is the state of a child that paused for approval. Err is set
	// too, so a parent that cannot pause fails instead.
	Paused *RunState
}

// See folds ev into o and reports whether the parent forwards it: a
// child's RunStarted, RunCompleted, RunFailed and RunPaused stay inside.
func (o *ChildOutcome) See(ev Event) bool {
	switch e := ev.(type) {
	case RunStarted:
		return false
	case RunCompleted:
		o.completed(e)
		return false
	case RunFailed:
		o.Err, o.Finished = e.Err, true
		return false
	case RunPaused:
		o.Paused, o.Usage, o.Finished = e.State, e.Usage, true
		o.Err = &AgentError{Kind: KindOther, Agent: e.Agent, Message: errPauseUnsupported.Error(), Err: errPauseUnsupported}
		return false
	case MessageOutput:
		o.Final, o.Content = e.Item.Text(), e.Item.Content
	}
	return true
}

// completed folds the child's RunCompleted into o.
func (o *ChildOutcome) completed(e RunCompleted) {
	o.Usage, o.Agent, o.Structured, o.Finished = e.Usage, e.Agent, e.Structured, true
}

// End settles o once the stream of the child named agent is over; a
// stream that stopped without a terminal event counts as a failure.
func (o *ChildOutcome) End(agent string) {
	if !o.Finished {
		o.Err = agentErrorf(KindOther, agent, "run ended without RunCompleted or RunFailed")
		o.Finished = true
	}
}

// SubagentStopped fires the run-level OnSubagentStop hooks; a stop cannot
// be refused.
func SubagentStopped(ctx context.Context, rc *RunContext, agent string) {
	if rc.hooks.Len() > 0 {
		fireHooks(ctx, rc, nil, &HookEvent{Kind: OnSubagentStop, Agent: agent})
	}
}
