package helikon

import (
	"cmp"
	"encoding/json"
	"fmt"
)

// DecisionKind says how a human answered a [PendingApproval].
type DecisionKind string

// The decision kinds.
const (
	// DecisionApprove runs the call as requested.
	DecisionApprove DecisionKind = "approve"
	// DecisionApproveWithArgs runs the call with the decision's Args,
	// which pass the deny and guard rules again first.
	DecisionApproveWithArgs DecisionKind = "approve_with_args"
	// DecisionReject does not run the call; the model sees the decision's
	// Message as the call's error result.
	DecisionReject DecisionKind = "reject"
	// DecisionAlways runs the call and grants an allow rule, so later
	// calls it matches run without asking (see [Decision].Rule and Scope).
	DecisionAlways DecisionKind = "always"
)

// DecisionScope says how long an "always" decision's allow rule lasts.
type DecisionScope string

// The decision scopes.
const (
	// ScopeRun keeps the rule for the rest of the run, across its pauses.
	ScopeRun DecisionScope = "run"
	// ScopeSession keeps the rule for the rest of the run and, under a
	// runner, for every later run on the same session.
	ScopeSession DecisionScope = "session"
)

// Decision is a human's answer to one [PendingApproval], named by its
// approval id ([Approve], [ApproveWithArgs], [Reject], [Always]).
type Decision struct {
	ID   string       `json:"id"`
	Kind DecisionKind `json:"kind"`
	// Args replace the call's arguments (approve_with_args).
	Args json.RawMessage `json:"args,omitempty"`
	// Message is what the model sees of a rejection.
	Message string `json:"message,omitempty"`
	// Rule is the allow rule an "always" decision grants, as the run's
	// [Granter] reads it ("Bash(git)"); empty grants the call's whole tool.
	Rule string `json:"rule,omitempty"`
	// Scope is how long the rule lasts; empty means [ScopeRun].
	Scope DecisionScope `json:"scope,omitempty"`
}

// Approve runs the call awaiting approval id as requested.
func Approve(id string) Decision { return Decision{ID: id, Kind: DecisionApprove} }

// ApproveWithArgs runs the call with args instead of the model's; they pass
// the deny and guard rules again (this decision answers a guard that asks).
func ApproveWithArgs(id string, args json.RawMessage) Decision {
	return Decision{ID: id, Kind: DecisionApproveWithArgs, Args: args}
}

// Reject refuses the call; the model sees message as its error result.
func Reject(id, message string) Decision {
	return Decision{ID: id, Kind: DecisionReject, Message: message}
}

// Always runs the call and grants rule (see [Decision].Rule) for scope.
func Always(id, rule string, scope DecisionScope) Decision {
	return Decision{ID: id, Kind: DecisionAlways, Rule: rule, Scope: scope}
}

// Decisions is the decisions of one resume, checked against the paused
// state; [Resume] hands it down the paused agents ([Resumer]).
type Decisions struct {
	byID   map[string]Decision
	grants []string // the allow rules of the "always" decisions
}

// newDecisionSet checks decisions against the state's pending approvals:
// every id pending and named once, every decision well formed, every
// granted rule one rc's [Granter] reads.
func newDecisionSet(rc *RunContext, st *RunState, decisions []Decision) (*Decisions, error) {
	pending := make(map[string]PendingApproval, len(st.Pending))
	for _, p := range st.Pending {
		pending[p.ID] = p
	}
	ds := &Decisions{byID: make(map[string]Decision, len(decisions))}
	for _, d := range decisions {
		p, ok := pending[d.ID]
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrUnknownApproval, d.ID)
		}
		if _, dup := ds.byID[d.ID]; dup {
			return nil, fmt.Errorf("%w: two decisions for %q", ErrInvalidDecision, d.ID)
		}
		switch d.Kind {
		case DecisionApprove, DecisionReject:
		case DecisionApproveWithArgs:
			if len(d.Args) > MaxDecisionArgsSize {
				return nil, fmt.Errorf("%w: %q: replaced arguments of %d bytes exceed %d", ErrInvalidDecision, d.ID, len(d.Args), MaxDecisionArgsSize)
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(d.Args, &obj); err != nil || obj == nil {
				return nil, fmt.Errorf("%w: %q: replaced arguments are not a JSON object", ErrInvalidDecision, d.ID)
			}
		case DecisionAlways:
			rule := cmp.Or(d.Rule, p.Tool)
			g, ok := rc.settings().auth.(Granter)
			if !ok {
				return nil, fmt.Errorf("%w: %q: the run's authorizer grants no rules", ErrInvalidDecision, d.ID)
			}
			if err := g.CheckGrant(rule); err != nil {
				return nil, fmt.Errorf("%q: %w", d.ID, err)
			}
			switch d.Scope {
			case "", ScopeRun, ScopeSession:
			default:
				return nil, fmt.Errorf("%w: %q: unknown scope %q", ErrInvalidDecision, d.ID, d.Scope)
			}
			ds.grants = append(ds.grants, rule)
		default:
			return nil, fmt.Errorf("%w: %q: unknown kind %q", ErrInvalidDecision, d.ID, d.Kind)
		}
		ds.byID[d.ID] = d
	}
	return ds, nil
}
