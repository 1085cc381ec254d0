package workflow

import (
	"context"
	"errors"
	"fmt"
	"github.com/paigasus/helikon"
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
	members     map[string]*helikon.LLMAgent // the wired clones, read-only once built
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
	members     []*helikon.LLMAgent
	entry       string
	maxHandoffs int
	bounded     bool
}

type swarmOptionFunc func(*swarmConfig)

func (f swarmOptionFunc) applySwarm(c *swarmConfig) { f(c) }

// Members adds LLM agents to a swarm, in order. Only LLM agents can be
// members: they are the only agents that call transfer tools. The swarm runs
// clones; the agents passed in are not modified.
func Members(agents ...*helikon.LLMAgent) SwarmOption {
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

// NewSwarm builds a [SwarmAgent]. It fails with a [*helikon.BuildError] for an empty
// name, no members ([ErrNoSubAgents]), a nil member or a negative budget
// ([helikon.ErrInvalidOption]), two members whose names are equal or share a
// transfer tool ([helikon.ErrDuplicateKey]), or an entry that names no member
// ([ErrUnknownKey]).
//
//	swarm, err := workflow.NewSwarm("support",
//		workflow.Members(triage, budgeting, investing),
//		workflow.WithMaxHandoffs(6))
func NewSwarm(name string, opts ...SwarmOption) (*SwarmAgent, error) {
	if name == "" {
		return nil, buildErr(name, helikon.ErrInvalidOption, "name is required")
	}
	var c swarmConfig
	for _, o := range opts {
		o.applySwarm(&c)
	}
	if len(c.members) == 0 {
		return nil, buildErr(name, ErrNoSubAgents, "no members; add them with Members")
	}
	if c.maxHandoffs < 0 {
		return nil, buildErr(name, helikon.ErrInvalidOption, fmt.Sprintf("max handoffs is %d; want at least 0", c.maxHandoffs))
	}
	s := &SwarmAgent{
		composite:   composite{name: name, description: c.description},
		members:     make(map[string]*helikon.LLMAgent, len(c.members)),
		maxHandoffs: -1,
	}
	if c.bounded {
		s.maxHandoffs = c.maxHandoffs
	}
	slugOwner := make(map[string]string, len(c.members))
	for i, m := range c.members {
		if m == nil {
			return nil, buildErr(name, helikon.ErrInvalidOption, fmt.Sprintf("member %d is nil", i))
		}
		if _, dup := s.members[m.Name()]; dup {
			return nil, buildErr(name, helikon.ErrDuplicateKey, fmt.Sprintf("two members are named %q", m.Name()), m.Name())
		}
		tool := helikon.HandoffTo(m).TransferToolName()
		if prev, dup := slugOwner[tool]; dup {
			return nil, buildErr(name, helikon.ErrDuplicateKey, fmt.Sprintf("members %q and %q share the transfer tool %q", prev, m.Name(), tool), tool)
		}
		slugOwner[tool] = m.Name()
		s.members[m.Name()] = nil
		s.order = append(s.order, m.Name())
	}
	s.entry = c.entry
	if s.entry == "" {
		s.entry = s.order[0]
	} else if _, ok := s.members[s.entry]; !ok {
		return nil, buildErr(name, ErrUnknownKey, fmt.Sprintf("entry %q is not a member", s.entry), s.entry)
	}
	// Mutual handoffs would make the clones refer to each other; each
	// member hands off to a seat that looks its target up when it runs.
	seats := make([]helikon.Handoff, len(c.members))
	for i, m := range c.members {
		seats[i] = helikon.HandoffTo(&swarmSeat{swarm: s, name: m.Name(), description: m.Description()})
	}
	for i, m := range c.members {
		others := make([]helikon.Handoff, 0, len(seats)-1)
		others = append(others, seats[:i]...)
		others = append(others, seats[i+1:]...)
		clone, err := m.Clone(helikon.WithHandoffs(others...))
		if err != nil {
			var be *helikon.BuildError
			if errors.As(err, &be) {
				return nil, buildErr(name, be.Err, fmt.Sprintf("member %q: %s", m.Name(), be.Detail), be.Keys...)
			}
			return nil, fmt.Errorf("helikon: agent %q: member %q: %w", name, m.Name(), err)
		}
		s.members[m.Name()] = clone
	}
	return s, nil
}

// Entry returns the name of the member that receives the input.
func (s *SwarmAgent) Entry() string { return s.entry }

// Run streams one run of the swarm. See [Agent].
func (s *SwarmAgent) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		ctx, rc, yield, done, ok := s.begin(ctx, rc, yield)
		if !ok {
			return
		}
		defer done()
		entry := s.members[s.entry]
		s.follow(ctx, rc, func(ctx context.Context, child *helikon.RunContext) iter.Seq[helikon.Event] {
			return entry.Run(ctx, child, input)
		}, yield)
	}
}

// ResumeFrame resumes the member chain where it paused; the handoff budget
// counts afresh from the resume.
func (s *SwarmAgent) ResumeFrame(ctx context.Context, rc *helikon.RunContext, f *helikon.PauseFrame, ds *helikon.Decisions) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		ctx, rc, yield, done, ok := s.open(ctx, rc, yield)
		if !ok {
			return
		}
		defer done()
		entry := s.members[s.entry]
		if f == nil || f.Kind != frameSwarm || f.Agent != s.name || len(f.Children) != 1 || f.Children[0].Frame == nil {
			yield(helikon.RunFailed{Err: helikon.NotResumable(s.name, f)})
			return
		}
		s.follow(ctx, rc, func(ctx context.Context, child *helikon.RunContext) iter.Seq[helikon.Event] {
			return entry.ResumeFrame(ctx, child, f.Children[0].Frame, ds)
		}, yield)
	}
}

// follow runs the entry member's stream, enforcing the handoff budget.
func (s *SwarmAgent) follow(ctx context.Context, rc *helikon.RunContext, stream func(context.Context, *helikon.RunContext) iter.Seq[helikon.Event], yield func(helikon.Event) bool) {
	entry := s.members[s.entry]
	if !yield(helikon.AgentUpdated{Agent: entry.Name()}) {
		return
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	child := rc.Child()
	var o helikon.ChildOutcome
	handoffs := 0
	var over *helikon.HandoffItem
	for ev := range stream(runCtx, child) {
		if h, ok := ev.(helikon.HandoffItem); ok {
			if handoffs++; s.maxHandoffs >= 0 && handoffs > s.maxHandoffs {
				over = &h
				// Leaving the range stops the chain; cancelling ends
				// whatever its tools still have in flight.
				cancel()
				break
			}
		}
		if o.See(ev) && !yield(ev) {
			return
		}
	}
	helikon.SubagentStopped(ctx, rc, entry.Name())
	if child.Actions().Escalated() {
		rc.Actions().Escalate()
	}
	if over != nil {
		yield(helikon.RunFailed{Err: agentErrorf(helikon.KindMaxHandoffsExceeded, s.name,
			"handoff %d (%s → %s) exceeds the budget of %d", handoffs, over.From, over.To, s.maxHandoffs)})
		return
	}
	o.End(entry.Name())
	if o.Paused != nil {
		helikon.EmitPaused(rc, s.name, &helikon.PauseFrame{Kind: frameSwarm, Agent: s.name, Children: []helikon.ChildFrame{
			{Key: entry.Name(), Status: helikon.ChildPaused, Usage: o.Usage, Frame: o.Paused.Frame()},
		}}, o.Usage, yield)
		return
	}
	if o.Err != nil {
		yield(helikon.RunFailed{Err: o.Err})
		return
	}
	yield(helikon.RunCompleted{Agent: o.Agent, Usage: o.Usage, Structured: o.Structured})
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
func (m *swarmSeat) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return m.swarm.members[m.name].Run(ctx, rc, input)
}

func (m *swarmSeat) ResumeFrame(ctx context.Context, rc *helikon.RunContext, f *helikon.PauseFrame, ds *helikon.Decisions) iter.Seq[helikon.Event] {
	return m.swarm.members[m.name].ResumeFrame(ctx, rc, f, ds)
}
