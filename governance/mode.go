package governance

import (
	"errors"
	"fmt"

	"github.com/paigasus/helikon"
)

// PermissionMode sets how tool calls are authorised when no rule decides.
type PermissionMode int

// The permission modes.
const (
	// PermissionDefault defers to the PermissionPolicy; permissive when none.
	PermissionDefault PermissionMode = iota
	// PermissionAcceptEdits auto-approves tools whose effect is Write.
	PermissionAcceptEdits
	// PermissionPlan denies every tool that is not ReadOnly.
	PermissionPlan
	// PermissionBypass allows everything; deny and guard rules still apply.
	PermissionBypass
	// PermissionDontAsk denies by default; only allow rules permit a call.
	PermissionDontAsk
)

// String returns the mode's snake_case name.
func (m PermissionMode) String() string {
	switch m {
	case PermissionAcceptEdits:
		return "accept_edits"
	case PermissionPlan:
		return "plan"
	case PermissionBypass:
		return "bypass"
	case PermissionDontAsk:
		return "dont_ask"
	}
	return "default"
}

// ErrPermissionModeLoosened reports an attempt to leave
// [PermissionBypass] for anything but [PermissionDontAsk], or to leave
// [PermissionDontAsk] at all.
var ErrPermissionModeLoosened = errors.New("governance: permission mode may only tighten")

// checkModeChange enforces the tighten-only rule.
func checkModeChange(from, to PermissionMode) error {
	if from == to {
		return nil
	}
	if from == PermissionDontAsk || (from == PermissionBypass && to != PermissionDontAsk) {
		return fmt.Errorf("%w: %s cannot become %s", ErrPermissionModeLoosened, from, to)
	}
	return nil
}

// WithPermissionMode sets the run's permission mode. Two modes are
// one-way: on a context already in [PermissionBypass] only
// [PermissionDontAsk] is accepted, and [PermissionDontAsk] is terminal;
// the other modes may change into one another either way. A refused change
// keeps the stricter mode and makes every run on the context fail with a
// [helikon.KindConfig] error wrapping [ErrPermissionModeLoosened]; use
// [ChangeMode] to get the error at once.
func WithPermissionMode(m PermissionMode) helikon.ContextOption {
	return refine(func(s *settings) error {
		if err := checkModeChange(s.mode, m); err != nil {
			return err
		}
		s.mode = m
		return nil
	})
}

// ChangeMode returns a copy of rc in mode m, or an error wrapping
// [ErrPermissionModeLoosened] when m would loosen Bypass or DontAsk.
func ChangeMode(rc *helikon.RunContext, m PermissionMode) (*helikon.RunContext, error) {
	if err := checkModeChange(ModeOf(rc), m); err != nil {
		return nil, err
	}
	return rc.Derive(WithPermissionMode(m)), nil
}

// ModeOf returns the permission mode of the run behind c (a
// [*helikon.RunContext] or a [*helikon.ToolContext]): [PermissionDefault]
// when its authorizer is not this package's.
func ModeOf(c interface{ Authorizer() helikon.Authorizer }) PermissionMode {
	if s := of(c); s != nil {
		return s.mode
	}
	return PermissionDefault
}
