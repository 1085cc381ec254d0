package helikon

import "context"

// RunContext is the per-run state shared by the loop, tools, guardrails and
// hooks: the user value, the session, run-level hooks, trace attributes,
// run-scoped [State], the governance seams and the agent depth. Build one
// with [NewRunContext]; a run does not modify it, and agents derive child
// contexts for handoffs and sub-agents, which share State, hooks and seams.
type RunContext struct {
	session Session
	hooks   *HookRegistry
	state   *State
	actions *Actions
	depth   int
	// depthBound is the tightest MaxAgentDepth of the runs this one is
	// nested in (0: none), so a parent's bound holds along a handoff chain
	// without its other knobs leaking into the target.
	depthBound int
	config     *RunConfig
	// rare holds the settings the context's options set, shared with the
	// contexts derived from it (nil: none, not even the defaults).
	rare *runSettings
	// fold, for a run of foldAgent on this context, is the outcome the
	// run's RunStarted and RunCompleted settle into instead of its stream
	// (FoldInto). The contexts derived from this one drop it.
	fold      *ChildOutcome
	foldAgent Agent
}

// ContextOption configures a [RunContext].
type ContextOption interface {
	applyContext(*RunContext)
}

type contextOptionFunc func(*RunContext)

func (f contextOptionFunc) applyContext(rc *RunContext) { f(rc) }

// NewRunContext returns a RunContext with an in-memory session, an empty
// hook registry and fresh state, adjusted by opts.
func NewRunContext(opts ...ContextOption) *RunContext {
	rc := &RunContext{rare: defaultSettings()}
	for _, o := range opts {
		o.applyContext(rc)
	}
	if rc.session == nil {
		rc.session = NewMemorySession()
	}
	if rc.hooks == nil {
		rc.hooks = &HookRegistry{}
	}
	if rc.state == nil {
		rc.state = NewState()
	}
	if rc.actions == nil {
		rc.actions = &Actions{}
	}
	return rc
}

// Ephemeral returns a RunContext with every default: an in-memory session,
// no hooks, no user value.
func Ephemeral() *RunContext { return NewRunContext() }

// WithUser attaches an application value to the run; tools read it back with
// [User].
func WithUser(v any) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().user = v })
}

// WithSession sets the session a runner loads from and persists to.
func WithSession(s Session) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.session = s })
}

// WithHookRegistry sets the run-level hooks.
func WithHookRegistry(h *HookRegistry) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.hooks = h })
}

// WithTracer sets the trace attributes stamped on the run's spans.
func WithTracer(t TracerHandle) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().tracer = t })
}

// WithState shares an existing State with the run.
func WithState(s *State) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.state = s })
}

// User returns the run's user value, which [WithUser] attached, as a T.
func (rc *RunContext) User() any { return rc.settings().user }

// Session returns the run's session.
func (rc *RunContext) Session() Session { return rc.session }

// Hooks returns the run-level hook registry.
func (rc *RunContext) Hooks() *HookRegistry { return rc.hooks }

// Tracer returns the run's trace attributes.
func (rc *RunContext) Tracer() TracerHandle { return rc.settings().tracer }

// State returns the run-scoped state.
func (rc *RunContext) State() *State { return rc.state }

// Actions returns the run's action handle.
func (rc *RunContext) Actions() *Actions { return rc.actions }

// Depth returns how deeply this run is nested (0 for a top-level run).
func (rc *RunContext) Depth() int { return rc.depth }

// Config returns the run's RunConfig, or nil when none was set on the
// context.
func (rc *RunContext) Config() *RunConfig { return rc.config }

// Child derives the context of a nested run (a handoff target or a
// sub-agent): depth plus one and a fresh action handle, the rest shared.
func (rc *RunContext) Child() *RunContext {
	c := *rc
	c.depth++
	c.actions = &Actions{}
	c.fold, c.foldAgent = nil, nil
	return &c
}

// depthLimit returns the depth bound of a run whose own configuration says
// own: the tighter of own and the bound inherited from enclosing runs.
func (rc *RunContext) depthLimit(own int) int {
	if rc.depthBound > 0 && rc.depthBound < own {
		return rc.depthBound
	}
	return own
}

// Derive returns a copy of rc adjusted by opts.
func (rc *RunContext) Derive(opts ...ContextOption) *RunContext {
	c := *rc
	c.fold, c.foldAgent = nil, nil
	for _, o := range opts {
		o.applyContext(&c)
	}
	return &c
}

// User returns the user value c carries (c is a [*RunContext] or a
// [*ToolContext]) as a T, and whether it was one.
func User[T any](c interface{ User() any }) (T, bool) {
	v, ok := c.User().(T)
	return v, ok
}

// TracerHandle carries run-scoped trace attributes: a session id, a user id
// and tags, stamped on the run's spans.
type TracerHandle struct {
	SessionID string
	UserID    string
	Tags      []string
}

// ToolContext is what a tool sees of its run: a context.Context that ends
// with the run, the user value, state, action handle, authorizer and depth.
// It has no session handle, so tools cannot bypass the runner's persistence.
type ToolContext struct {
	context.Context
	rc       *RunContext
	CallID   string // the call the tool serves
	ToolName string // the name the model called
	Agent    string // whose loop runs the tool
	// depthLimit is the calling run's MaxAgentDepth bound (0 outside a run).
	depthLimit int
	// call is the outcome of the call the tool serves, which takes the
	// events of the sub-run an agent tool starts ([SubRunEvent]); nil
	// outside a run.
	call *callOutcome
}

// NewToolContext returns a ToolContext for calling a tool outside a run (in a
// test, or from another tool). rc may be nil.
func NewToolContext(ctx context.Context, rc *RunContext, callID, toolName string) *ToolContext {
	if rc == nil {
		rc = Ephemeral()
	}
	return &ToolContext{Context: ctx, rc: rc, CallID: callID, ToolName: toolName}
}

// User returns the run's user value; see [User] for a typed accessor.
func (tc *ToolContext) User() any { return tc.rc.settings().user }

// State returns the run-scoped state.
func (tc *ToolContext) State() *State { return tc.rc.state }

// Actions returns the handle a tool uses to signal its agent (Escalate).
func (tc *ToolContext) Actions() *Actions { return tc.rc.actions }

// Authorizer returns the authorizer of the run that calls the tool.
func (tc *ToolContext) Authorizer() Authorizer { return tc.rc.settings().auth }

// Depth returns the nesting depth of the run that calls the tool.
func (tc *ToolContext) Depth() int { return tc.rc.depth }

// Tracer returns the run's trace attributes.
func (tc *ToolContext) Tracer() TracerHandle { return tc.rc.settings().tracer }

// SubRunContext derives the context of a nested run the tool starts (an
// agent tool's): as [RunContext.Child], but with a fresh in-memory session
// (the caller's never crosses), empty run-level hooks and no RunConfig.
func (tc *ToolContext) SubRunContext() *RunContext {
	c := tc.rc.Child()
	c.session = NewMemorySession()
	c.hooks = &HookRegistry{}
	c.config = nil
	return c
}
