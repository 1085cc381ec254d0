package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"

	"github.com/paigasus/helikon"
)

// ErrUnknownAgent reports a run of an agent the worker has not registered.
var ErrUnknownAgent = errors.New("temporal: agent is not registered on the worker")

// ErrBadSeed reports a run seed the worker's [ContextFactory] rejected. The
// run fails at its first step, without retries.
var ErrBadSeed = errors.New("temporal: bad run seed")

// MaxSeedBytes bounds a run seed: it crosses every step's payload, so a big
// one multiplies the run's history.
const MaxSeedBytes = 64 << 10

// ContextFactory turns a run's seed (the JSON a [Runner] attached, or nil)
// into the run's user value, which tools read with [helikon.User]. It runs on
// the worker at every step, so it must be cheap and deterministic in its
// seed. An error fails the run with [ErrBadSeed].
type ContextFactory func(ctx context.Context, seed json.RawMessage) (any, error)

// registry is what a worker knows: its agents, its posture and how to turn
// a seed into a run's user value. It is read-only once the worker starts.
type registry struct {
	agents  map[string]*helikon.LLMAgent
	posture WorkerPosture
	factory ContextFactory
	// subTools are the agent tools whose sub-runs run as child workflows,
	// by subKey: their agents are registered too.
	subTools map[string]*helikon.AgentTool
}

// subKey keys an agent tool of agent.
func subKey(agent, tool string) string { return agent + "\x00" + tool }

// subTool returns the agent tool whose sub-run a is, or nil.
func (r *registry) subTool(a agentRef) *helikon.AgentTool {
	if a.Tool == "" {
		return nil
	}
	return r.subTools[subKey(a.Parent, a.Tool)]
}

// runsAsChild reports whether agent's tool t runs its sub-run as a child
// workflow.
func (r *registry) runsAsChild(agent string, t *helikon.AgentTool) bool {
	return r.subTools[subKey(agent, t.Name())] == t
}

func (r *registry) agent(name string) (*helikon.LLMAgent, error) {
	a, ok := r.agents[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownAgent, name)
	}
	return a, nil
}

// baseContext is the posture's RunContext of a's run, with no user value:
// enough to plan a run's loop in the workflow, where no user code may run.
// An agent tool's sub-run gets the tool's run configuration and no
// run-level hooks, as [helikon.ToolContext.SubRunContext] gives it in
// process.
func (r *registry) baseContext(a agentRef, opts ...helikon.ContextOption) *helikon.RunContext {
	base := r.posture.options(true)
	if t := r.subTool(a); t != nil {
		base = r.posture.options(false)
		if cfg, ok := t.RunConfig(); ok {
			base = append(base, helikon.WithRunConfig(cfg))
		}
	}
	rc := helikon.NewRunContext(append(base, opts...)...)
	for range a.Depth {
		rc = rc.Child()
	}
	return rc
}

// steps returns the steps of a run's agent on the worker, with the user
// value the seed makes.
func (r *registry) steps(ctx context.Context, in stepIn) (*helikon.Steps, error) {
	a, err := r.agent(in.Agent.Name)
	if err != nil {
		return nil, err
	}
	var opts []helikon.ContextOption
	if len(in.Allow) > 0 {
		rules := make([]governance.AllowRule, len(in.Allow))
		for i, s := range in.Allow {
			if rules[i], err = governance.ParseAllowRule(s); err != nil {
				return nil, err
			}
		}
		opts = append(opts, governance.WithAllowRules(rules...))
	}
	if len(in.Seed) > 0 && r.factory == nil {
		return nil, fmt.Errorf("%w: the worker has no context factory to read it", ErrBadSeed)
	}
	if r.factory != nil {
		if len(in.Seed) > MaxSeedBytes {
			return nil, fmt.Errorf("%w: %d bytes exceeds %d", ErrBadSeed, len(in.Seed), MaxSeedBytes)
		}
		user, err := r.factory(ctx, in.Seed)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadSeed, err)
		}
		opts = append(opts, helikon.WithUser(user))
	}
	return a.Steps(r.baseContext(in.Agent, opts...)), nil
}

// plan returns an agent's transition context and tool-call bound.
func (r *registry) plan(a agentRef) (helikon.TransitionCtx, int, error) {
	ag, err := r.agent(a.Name)
	if err != nil {
		return helikon.TransitionCtx{}, 0, err
	}
	s := ag.Steps(r.baseContext(a))
	return s.TransitionCtx(), s.ParallelToolCalls(), nil
}

// filter applies the handoff's input filter. It runs in the workflow, so
// the filter must be a pure function of the transcript, as the core asks.
func (r *registry) filter(a agentRef, target string, conv []helikon.Item) []helikon.Item {
	ag, err := r.agent(a.Name)
	if err != nil {
		return conv
	}
	if h := ag.Steps(nil).Handoff(target); h != nil && h.InputFilter != nil {
		return h.InputFilter(conv)
	}
	return conv
}
