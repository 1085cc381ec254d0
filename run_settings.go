package helikon

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// runSettings are the settings of a [RunContext] that its options set
// and few runs have: a context holds them behind one pointer, which the
// contexts derived from it share, so that a fan-out's children, whose
// contexts are copies of their parent's, copy a word rather than every
// setting.
type runSettings struct {
	tracer       TracerHandle
	stateKey     []byte // signs paused run states (WithRunStateKey)
	tp           trace.TracerProvider
	prices       Prices
	budget       Budget
	callObserver func(context.Context, *ModelCall)
	approval     ApprovalHandler
	meter        *budgetMeter // the top-level run's spend, with a budget
	// owner is the context whose options wrote these settings: only its
	// options write them again, in place.
	owner *RunContext
}

// noSettings is what a context without any of the settings reads.
var noSettings runSettings

// settings returns rc's settings, to read only: they may be shared.
func (rc *RunContext) settings() *runSettings {
	if rc.rare == nil {
		return &noSettings
	}
	return rc.rare
}

// setting returns rc's settings for an option to write: a copy of those
// rc shares with the context it was derived from (see
// [RunContext.Derive]), so that writing them leaves that one as it was,
// made once however many options write.
func (rc *RunContext) setting() *runSettings {
	if rc.rare == nil || rc.rare.owner != rc {
		s := new(runSettings)
		*s = *rc.settings()
		s.owner = rc
		rc.rare = s
	}
	return rc.rare
}
