package workflow

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/eventclock"
)

// This file holds what the orchestration agents ([SequentialAgent],
// [ParallelAgent], [LoopAgent], [SwarmAgent], [GraphAgent]) share: their
// identity, their options, the way they open a run, fold a child's stream
// into their own, and fan concurrent children into one consumer.
//
// The stream convention is the handoff driver's: a child's RunStarted is
// swallowed (an AgentUpdated names the child instead), its RunCompleted and
// RunFailed stay inside (the parent folds the usage and reports one outcome
// of its own), and every other event passes through.

// composite is the identity every orchestration agent carries.
type composite struct {
	name, description string
}

// Name returns the agent's name.
func (c *composite) Name() string { return c.name }

// Description returns what the agent does.
func (c *composite) Description() string { return c.description }

// WorkflowOption configures [NewSequential], [NewParallel] and [NewLoop]:
// [Step], [KeyedStep] and [WithDescription].
type WorkflowOption interface {
	applyWorkflow()
}

// StepOption is one sub-agent of a workflow agent with the [State] key its
// final text is written under. Build it with [Step] or [KeyedStep].
type StepOption struct {
	key   string
	agent helikon.Agent
	keyed bool
}

// Step adds agent to a workflow agent, keyed by the agent's name: after it
// completes, its final text is in the run's [State] under that name.
func Step(agent helikon.Agent) StepOption { return StepOption{agent: agent} }

// KeyedStep adds agent under an explicit state key, for two steps that share
// a name or a key that reads better in instructions.
func KeyedStep(key string, agent helikon.Agent) StepOption {
	return StepOption{key: key, agent: agent, keyed: true}
}

func (StepOption) applyWorkflow() {}

// step is a validated [StepOption].
type step struct {
	key   string
	agent helikon.Agent
}

// buildSteps validates a workflow agent's options: a name, at least one
// step, no nil agent, no empty or repeated key. The options are read by
// type, not through their method, as [NewGraph] reads its own: a call
// through the interface would make every option escape, costing the
// caller an allocation per step.
func buildSteps(name string, opts []WorkflowOption) (composite, []step, error) {
	if name == "" {
		return composite{}, nil, buildErr(name, helikon.ErrInvalidOption, "name is required")
	}
	c := composite{name: name}
	n := 0
	for _, o := range opts {
		switch o := o.(type) {
		case StepOption:
			n++
		case DescriptionOption:
			c.description = o.d
		default:
			// Only a type embedding one of the two gets here.
			return composite{}, nil, buildErr(name, helikon.ErrInvalidOption, "an option is neither a Step, a KeyedStep nor WithDescription")
		}
	}
	if n == 0 {
		return composite{}, nil, buildErr(name, ErrNoSubAgents, "no steps; add them with Step or KeyedStep")
	}
	steps := make([]step, 0, n)
	for _, o := range opts {
		s, ok := o.(StepOption)
		if !ok {
			continue
		}
		i := len(steps)
		if s.agent == nil {
			return composite{}, nil, buildErr(name, helikon.ErrInvalidOption, fmt.Sprintf("step %d has no agent", i))
		}
		key := s.key
		if !s.keyed {
			key = s.agent.Name()
		}
		if key == "" {
			return composite{}, nil, buildErr(name, helikon.ErrInvalidOption, fmt.Sprintf("step %d has an empty key", i))
		}
		// A scan, not a set: a workflow has a handful of steps, and the
		// scan saves the set's allocation on every build.
		if slices.ContainsFunc(steps, func(st step) bool { return st.key == key }) {
			return composite{}, nil, buildErr(name, helikon.ErrDuplicateKey,
				fmt.Sprintf("two steps write state key %q; give one a KeyedStep", key), key)
		}
		steps = append(steps, step{key: key, agent: s.agent})
	}
	return c, steps, nil
}

// begin opens a composite agent's run: the depth check, the run's timeout,
// then RunStarted. When ok is false the run is already over. done releases
// the timeout and must be called.
func (c *composite) begin(ctx context.Context, rc *helikon.RunContext, yield func(helikon.Event) bool) (_ context.Context, _ *helikon.RunContext, _ func(helikon.Event) bool, done func(), ok bool) {
	return helikon.OpenRun(ctx, rc, c.name, c.description, false, yield)
}

// beginFanOut is begin for a parallel or graph agent of n children, which
// stamps its own events and its children's (see fanOut): its yield stamps
// nothing. A fresh run's RunStarted says about how many events to expect
// (fanOutEvents), so that a consumer keeping them sizes its buffer once.
func (c *composite) beginFanOut(ctx context.Context, rc *helikon.RunContext, resumed bool, n int, yield func(helikon.Event) bool) (_ context.Context, _ *helikon.RunContext, _ func(helikon.Event) bool, done func(), ok bool) {
	ctx, rc, yield, done, ok = helikon.OpenStampedRun(ctx, rc, c.name, c.description, true, yield)
	if ok && !resumed && !yield(helikon.RunStarted{At: eventclock.Now(), Agent: c.name, Events: fanOutEvents(n)}) {
		done()
		return ctx, rc, yield, func() {}, false
	}
	return ctx, rc, yield, done, ok
}

// fanOutEvents is about how many events a fan-out of n children sends:
// its RunStarted, final message and RunCompleted, and for each child an
// AgentUpdated and childEvents.
func fanOutEvents(n int) int { return 3 + n*(1+childEvents) }

// childEvents is how many events a child of one model turn sends its
// parent when it folds its RunStarted and RunCompleted (see
// helikon.RunContext.FoldInto): TurnStarted, a TokenDelta of its text,
// ModelResponded and MessageOutput.
const childEvents = 4

// open is begin for a resumed run, which opens without a RunStarted.
func (c *composite) open(ctx context.Context, rc *helikon.RunContext, yield func(helikon.Event) bool) (_ context.Context, _ *helikon.RunContext, _ func(helikon.Event) bool, done func(), ok bool) {
	return helikon.OpenRun(ctx, rc, c.name, c.description, true, yield)
}

// runStep runs one step of a sequential workflow (or resumes it, with
// from), adds its usage to total and writes its final text to state. It
// returns the step's run context and how its run ended; a step that paused
// has o.Paused set and its usage left out of total. ok is false when the
// run is over: the step failed (RunFailed was emitted) or the consumer
// stopped.
func (c *composite) runStep(ctx context.Context, rc *helikon.RunContext, st step, input []helikon.Item, from *ResumePoint, total *helikon.Usage, yield func(helikon.Event) bool) (child *helikon.RunContext, o helikon.ChildOutcome, ok bool) {
	if err := ctx.Err(); err != nil {
		yield(helikon.RunFailed{Err: cancelled(c.name, err)})
		return nil, o, false
	}
	o, child, ok = RunChild(ctx, rc, st.agent, input, from, yield)
	if !ok {
		return nil, o, false
	}
	if o.Paused != nil {
		return child, o, true
	}
	*total = total.Add(o.Usage)
	if o.Err != nil {
		yield(helikon.RunFailed{Err: o.Err})
		return nil, o, false
	}
	rc.State().SetString(st.key, o.Final)
	return child, o, true
}

// stepKeys returns the steps' keys in order.
func stepKeys(steps []step) []string {
	keys := make([]string, len(steps))
	for i, st := range steps {
		keys[i] = st.key
	}
	return keys
}

// resumeChildren resumes a parallel or graph agent from its frame f, which
// must hold one child per key, in order, each paused one with its frame;
// run continues from the children's standing.
func (c *composite) resumeChildren(ctx context.Context, rc *helikon.RunContext, f *helikon.PauseFrame, ds *helikon.Decisions, kind string, keys []string,
	run func(ctx context.Context, rc *helikon.RunContext, input []helikon.Item, prior []helikon.ChildFrame, ds *helikon.Decisions, out fanOut)) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		direct := yield
		ctx, rc, yield, done, ok := c.beginFanOut(ctx, rc, true, len(keys), yield)
		if !ok {
			return
		}
		defer done()
		valid := f != nil && f.Kind == kind && f.Agent == c.name && len(f.Children) == len(keys)
		for i := 0; valid && i < len(keys); i++ {
			ch := f.Children[i]
			valid = ch.Key == keys[i] && (ch.Status == helikon.ChildPaused) == (ch.Frame != nil)
		}
		if !valid {
			yield(helikon.RunFailed{At: eventclock.Now(), Err: helikon.NotResumable(c.name, f)})
			return
		}
		run(ctx, rc, f.Input, f.Children, ds, fanOut{yield: yield, direct: direct})
	}
}

// fanOut is where a parallel or graph run sends its events, each with its
// time (its own stamped when made, its children's as stamped below):
// yield, its stream as [helikon.OpenStampedRun] made it (which closes the
// run's span on its outcome, when traced), and direct, the consumer's own
// yield beneath, which the children's events and announcements take
// without the span's wrapper: they are never the run's outcome.
type fanOut struct {
	yield, direct func(helikon.Event) bool
}

// stampsEvents reports whether every event agent's runs emit carries its
// time (an [helikon.LLMAgent]'s do), so stamping them has nothing to do.
func stampsEvents(agent helikon.Agent) bool {
	_, ok := agent.(*helikon.LLMAgent)
	return ok
}

// WorkflowError is the aggregate failure of a [ParallelAgent] or
// [GraphAgent]: every sub-agent that failed and, for a graph, every node
// skipped because an ancestor failed. It is the cause of the run's
// [*AgentError] (reach it with errors.As); errors.Is sees through it to each
// sub-agent's failure.
type WorkflowError struct {
	// Agent names the workflow agent.
	Agent string
	// Failed lists the failed sub-agents in declaration order.
	Failed []ChildFailure
	// Skipped lists, in declaration order, the graph nodes that never ran.
	Skipped []string
}

// ChildFailure is one failed sub-agent of a [WorkflowError].
type ChildFailure struct {
	// Key is the sub-agent's state key (branch key or node name).
	Key string
	Err error
}

// Error names the failed and skipped sub-agents.
func (e *WorkflowError) Error() string {
	var b strings.Builder
	b.WriteString("failed: ")
	for i, f := range e.Failed {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Key + " (" + f.Err.Error() + ")")
	}
	if len(e.Skipped) > 0 {
		b.WriteString("; skipped: " + strings.Join(e.Skipped, ", "))
	}
	return b.String()
}

// Unwrap returns the failures.
func (e *WorkflowError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

// aggregate wraps a WorkflowError in the AgentError a RunFailed carries. Its
// kind is Cancelled when the run's context ended, the failures' kind when
// they agree, Other otherwise.
func (e *WorkflowError) aggregate(ctx context.Context) *helikon.AgentError {
	kind := helikon.KindCancelled
	if ctx.Err() == nil {
		kind = kindOf(e.Failed[0].Err)
		for _, f := range e.Failed[1:] {
			if kindOf(f.Err) != kind {
				kind = helikon.KindOther
				break
			}
		}
	}
	return &helikon.AgentError{Kind: kind, Agent: e.Agent, Message: e.Error(), Err: e}
}

// mergedOutput is the final text of n sub-agents: a JSON object with one
// string member per key, so the text does not depend on completion order.
// entry(k) is the k-th member, in key order (see [sortedBy]). The text is
// what encoding/json writes for the map of the members with HTML escaping
// off (keeping the text as the sub-agents wrote it), without its
// reflection, which cost a Parallel run of three one-turn agents about as
// much as one of the agents.
func mergedOutput(n int, entry func(k int) (key, text string)) string {
	size := 2
	for k := range n {
		key, text := entry(k)
		size += len(key) + len(text) + 6
	}
	b := make([]byte, 0, size)
	b = append(b, '{')
	for k := range n {
		if k > 0 {
			b = append(b, ',')
		}
		key, text := entry(k)
		b = appendJSONString(b, key)
		b = append(b, ':')
		b = appendJSONString(b, text)
	}
	b = append(b, '}')
	// b is never written again: the string can share its bytes, as
	// strings.Builder's does, instead of copying them.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// sortedBy returns the indices 0..n-1 ordered by key(i), the order
// [mergedOutput] takes its members in.
func sortedBy(n int, key func(i int) string) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(key(a), key(b)) })
	return order
}

// appendJSONString appends s as encoding/json writes a string with HTML
// escaping off: '"', '\\' and control characters escaped (\b \f \n \r \t
// by name), invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// finalMessage is the assistant message a composite agent ends with,
// carrying text, stamped now (stamping it later would box it a second
// time). When a child's last message was that text alone (content), the
// message shares its content rather than building its own.
func finalMessage(agent, text string, content []helikon.ContentPart) helikon.MessageOutput {
	if len(content) != 1 {
		content = nil
	} else if t, ok := content[0].(helikon.TextPart); !ok || t.Text != text {
		content = nil
	}
	if content == nil {
		content = []helikon.ContentPart{helikon.TextPart{Text: text}}
	}
	return helikon.MessageOutput{At: eventclock.Now(), Item: helikon.Item{Role: helikon.RoleAssistant, Agent: agent, Content: content}}
}

// growStack grows a fresh goroutine's stack to what an agent run needs
// while the stack is still shallow. The run would otherwise outgrow the
// initial stack deep inside the loop, and the runtime would copy and adjust
// every frame on the way: in BenchmarkParallel3Branches that was a fifth of
// the CPU time. With this frame on top of the initial stack, a CPU profile
// of that benchmark shows no more stack growth inside the run.
//
//go:noinline
func growStack(i int) byte {
	var buf [8 << 10]byte
	buf[i] = 1
	return buf[(i+1)%len(buf)]
}

// The frame kinds of this package's agents ([helikon.PauseFrame].Kind).
const (
	frameSequential = "sequential"
	frameParallel   = "parallel"
	frameGraph      = "graph"
	frameLoop       = "loop"
	frameSwarm      = "swarm"
)
