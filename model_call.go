package helikon

import "context"

// ModelCall is one model call of a run, as the observer of
// [WithModelCallObserver] sees it just before the model is invoked.
type ModelCall struct {
	// Agent is the agent whose loop calls the model; Depth is its nesting
	// in the run: 0 for the top-level agent, more for handoff targets,
	// agent tools and workflow children.
	Agent string
	Depth int
	// Model is the model's id ([DescribeModel]).
	Model string
	Turn  int
	// Request is the request exactly as the model receives it (hook
	// injections included). It is the loop's own: read it during the call;
	// do not keep or change it.
	Request *ModelRequest
	// Checkpoint is the loop at the turn boundary before the call:
	// resuming it ([LLMAgent.Resume]) makes this call again, which is how
	// a run is forked. Its conversation is the loop's own, valid during
	// the call only: marshal or copy it there.
	Checkpoint *Checkpoint
}

// WithModelCallObserver makes every loop of the run, its sub-agents'
// included, call f with each model call just before invoking the model,
// on the loop's goroutine (so f delays the call by its own time). It is
// how a debugger shows what the model saw and where it could fork; a run
// without it pays one nil check a model call.
func WithModelCallObserver(f func(ctx context.Context, call *ModelCall)) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.callObserver = f })
}

// observeCall hands the call to the run's observer. injected are the hook
// injections the request carries, which the checkpoint holds as still due.
func (d *driver) observeCall(ctx context.Context, state LoopState, req *ModelRequest, injected []string) {
	_, model := DescribeModel(d.a.model)
	d.rc.callObserver(ctx, &ModelCall{
		Agent: d.a.name, Depth: d.rc.depth, Model: model, Turn: progressOf(state).Turn, Request: req,
		Checkpoint: &Checkpoint{Agent: d.a.name, State: state, Conversation: d.tc.conversationView(), Injections: injected},
	})
}
