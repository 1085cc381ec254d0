package helikon

import (
	"context"
	"errors"
	"fmt"
	"iter"
)

// SwarmAgent is a pool of LLM agents in which every member can hand the
// conversation to every other: each member gets a transfer_to_<slug> tool
// per other member, on top of the handoffs it already had. The run starts
// at the entry member and is the ordinary handoff chain from there; it ends
// when the active member answers instead of handing off (first to answer
// wins).
//
// A ping-ponging swarm is bounded by RunConfig.MaxAgentDepth, since every
// handoff nests one level deeper ([ErrMaxAgentDepthExceeded]). The optional
// [WithMaxHandoffs] budget is tighter: the swarm counts the handoffs on its
// stream and, on the one past the budget, cancels the run and fails with
// [ErrMaxHandoffsExceeded]; that handoff is not forwarded.
type SwarmAgent struct {
	composite
	members     map[string]*LLMAgent // the wired clones, read-only once built
	order       []string
	entry       string
	maxHandoffs int // -1: unbounded
}

// SwarmOption configures [NewSwarm]: [Members], [WithEntry],
// [WithMaxHandoffs] and [WithDescription].
type SwarmOption interface {
	applySwarm(*swarmConfig)
}

type swarmConfig struct {
	description string
	members     []*LLMAgent
	entry       string
	maxHandoffs int
	bounded     bool
}

type swarmOptionFunc func(*swarmConfig)

func (f swarmOptionFunc) applySwarm(c *swarmConfig) { f(c) }

func (o DescriptionOption) applySwarm(c *swarmConfig) { c.description = o.d }

// Members adds LLM agents to a swarm, in order. Only LLM agents can be
// members: they are the only agents that call transfer tools. The swarm runs
// clones; the agents passed in are not modified.
func Members(agents ...*LLMAgent) SwarmOption {
	return swarmOptionFunc(func(c *swarmConfig) { c.members = append(c.members, agents...) })
}

// WithEntry names the member that receives the run's input (default: the
// first member added).
func WithEntry(name string) SwarmOption {
	return swarmOptionFunc(func(c *swarmConfig) { c.entry = name })
}

// WithMaxHandoffs bounds the handoffs of one run (n >= 0). Unset, only
// RunConfig.MaxAgentDepth bounds the chain.
func WithMaxHandoffs(n int) SwarmOption {
	return swarmOptionFunc(func(c *swarmConfig) { c.maxHandoffs, c.bounded = n, true })
}

// NewSwarm builds a [SwarmAgent]. It fails with a [*BuildError] for an empty
// name, no members ([ErrNoSubAgents]), a nil member or a negative budget
// ([ErrInvalidOption]), two members whose names are equal or share a
// transfer tool ([ErrDuplicateKey]), or an entry that names no member
// ([ErrUnknownKey]).
//
//	swarm, err := helikon.NewSwarm("support",
//		helikon.Members(triage, budgeting, investing),
//		helikon.WithMaxHandoffs(6))
func NewSwarm(name string, opts ...SwarmOption) (*SwarmAgent, error) {
	if name == "" {
		return nil, buildErr(name, ErrInvalidOption, "name is required")
	}
	var c swarmConfig
	for _, o := range opts {
		o.applySwarm(&c)
	}
	if len(c.members) == 0 {
		return nil, buildErr(name, ErrNoSubAgents, "no members; add them with Members")
	}
	if c.maxHandoffs < 0 {
		return nil, buildErr(name, ErrInvalidOption, fmt.Sprintf("max handoffs is %d; want at least 0", c.maxHandoffs))
	}
	s := &SwarmAgent{
		composite:   composite{name: name, description: c.description},
		members:     make(map[string]*LLMAgent, len(c.members)),
		maxHandoffs: -1,
	}
	if c.bounded {
		s.maxHandoffs = c.maxHandoffs
	}
	slugOwner := make(map[string]string, len(c.members))
	for i, m := range c.members {
		if m == nil {
			return nil, buildErr(name, ErrInvalidOption, fmt.Sprintf("member %d is nil", i))
		}
		if _, dup := s.members[m.name]; dup {
			return nil, buildErr(name, ErrDuplicateKey, fmt.Sprintf("two members are named %q", m.name), m.name)
		}
		tool := HandoffTo(m).TransferToolName()
		if prev, dup := slugOwner[tool]; dup {
			return nil, buildErr(name, ErrDuplicateKey, fmt.Sprintf("members %q and %q share the transfer tool %q", prev, m.name, tool), tool)
		}
		slugOwner[tool] = m.name
		s.members[m.name] = nil
		s.order = append(s.order, m.name)
	}
	s.entry = c.entry
	if s.entry == "" {
		s.entry = s.order[0]
	} else if _, ok := s.members[s.entry]; !ok {
		return nil, buildErr(name, ErrUnknownKey, fmt.Sprintf("entry %q is not a member", s.entry), s.entry)
	}
	// Mutual handoffs would make the clones refer to each other; each
	// member hands off to a seat that looks its target up when it runs.
	seats := make([]Handoff, len(c.members))
	for i, m := range c.members {
		seats[i] = HandoffTo(&swarmSeat{swarm: s, name: m.name, description: m.description})
	}
	for i, m := range c.members {
		others := make([]Handoff, 0, len(seats)-1)
		others = append(others, seats[:i]...)
		others = append(others, seats[i+1:]...)
		clone, err := m.Clone(WithHandoffs(others...))
		if err != nil {
			var be *BuildError
			if errors.As(err, &be) {
				return nil, buildErr(name, be.Err, fmt.Sprintf("member %q: %s", m.name, be.Detail), be.Keys...)
			}
			return nil, fmt.Errorf("helikon: agent %q: member %q: %w", name, m.name, err)
		}
		s.members[m.name] = clone
	}
	return s, nil
}

// Entry returns the name of the member that receives the input.
func (s *SwarmAgent) Entry() string { return s.entry }

// Run streams one run of the swarm. See [Agent].
func (s *SwarmAgent) Run(ctx context.Context, rc *RunContext, input []Item) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, rc, yield, done, ok := s.begin(ctx, rc, yield)
		if !ok {
			return
		}
		defer done()
		entry := s.members[s.entry]
		s.follow(ctx, rc, func(ctx context.Context, child *RunContext) iter.Seq[Event] {
			return entry.Run(ctx, child, input)
		}, yield)
	}
}

// resumeFrame resumes the member chain where it paused; the handoff budget
// counts afresh from the resume.
func (s *SwarmAgent) resumeFrame(ctx context.Context, rc *RunContext, f *pauseFrame, ds *decisionSet) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, rc, yield, done, ok := s.open(ctx, rc, yield, false)
		if !ok {
			return
		}
		defer done()
		entry := s.members[s.entry]
		if f == nil || f.Kind != frameSwarm || f.Agent != s.name || len(f.Children) != 1 || f.Children[0].Frame == nil {
			yield(RunFailed{Err: notResumable(s.name, f)})
			return
		}
		s.follow(ctx, rc, func(ctx context.Context, child *RunContext) iter.Seq[Event] {
			return entry.resumeFrame(ctx, child, f.Children[0].Frame, ds)
		}, yield)
	}
}

// follow runs the entry member's stream, enforcing the handoff budget.
func (s *SwarmAgent) follow(ctx context.Context, rc *RunContext, stream func(context.Context, *RunContext) iter.Seq[Event], yield func(Event) bool) {
	entry := s.members[s.entry]
	if !yield(AgentUpdated{Agent: entry.name}) {
		return
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	child := rc.Child()
	var o childOutcome
	handoffs := 0
	var over *HandoffItem
	for ev := range stream(runCtx, child) {
		if h, ok := ev.(HandoffItem); ok {
			if handoffs++; s.maxHandoffs >= 0 && handoffs > s.maxHandoffs {
				over = &h
				// Leaving the range stops the chain; cancelling ends
				// whatever its tools still have in flight.
				cancel()
				break
			}
		}
		if o.see(ev) && !yield(ev) {
			return
		}
	}
	subagentStopped(ctx, rc, entry.name)
	if child.actions.Escalated() {
		rc.actions.Escalate()
	}
	if over != nil {
		yield(RunFailed{Err: agentErrorf(KindMaxHandoffsExceeded, s.name,
			"handoff %d (%s → %s) exceeds the budget of %d", handoffs, over.From, over.To, s.maxHandoffs)})
		return
	}
	o.end(entry.name)
	if o.paused != nil {
		emitPaused(rc, s.name, &pauseFrame{Kind: frameSwarm, Agent: s.name, Children: []childFrame{
			{Key: entry.name, Status: childPaused, Usage: o.usage, Frame: o.paused.root},
		}}, o.usage, yield)
		return
	}
	if o.err != nil {
		yield(RunFailed{Err: o.err})
		return
	}
	yield(RunCompleted{Agent: o.agent, Usage: o.usage, Structured: o.structured})
}

// swarmSeat stands in for a member inside the other members' handoffs and
// runs the member's wired clone.
type swarmSeat struct {
	swarm             *SwarmAgent
	name, description string
}

func (m *swarmSeat) Name() string        { return m.name }
func (m *swarmSeat) Description() string { return m.description }

// Run runs the member under rc as is: the handoff already made rc a child.
func (m *swarmSeat) Run(ctx context.Context, rc *RunContext, input []Item) iter.Seq[Event] {
	return m.swarm.members[m.name].Run(ctx, rc, input)
}

func (m *swarmSeat) resumeFrame(ctx context.Context, rc *RunContext, f *pauseFrame, ds *decisionSet) iter.Seq[Event] {
	return m.swarm.members[m.name].resumeFrame(ctx, rc, f, ds)
}
