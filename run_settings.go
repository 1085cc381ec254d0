package helikon

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"
)

// runSettings are the settings of a [RunContext] that its options set:
// a context holds them behind one pointer, which the contexts derived
// from it share, so that a fan-out's children, whose contexts are copies
// of their parent's, copy a word rather than every setting. A context
// whose options set none shares the defaults (defaultSettings).
type runSettings struct {
	user any
	// auth and redactor govern the run's tool calls; grants are the
	// allow rules "always" decisions added; optErr is a refused option's
	// error, which fails every run on the context.
	auth         Authorizer
	redactor     Redactor
	grants       []string
	optErr       error
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

// noSettings is what a context without any settings reads: the zero
// RunContext, which has no authorizer and no redactor.
var noSettings runSettings

// defaults holds the settings of a new context whose options set none,
// shared by every such context until the defaults they hold change.
var defaults atomic.Pointer[runSettings]

// defaultSettings returns the settings a new context starts from: the
// governance package's authorizer and redactor when the program links it.
// They are read again each time, since a package's init may build a
// context before governance's init has set them.
func defaultSettings() *runSettings {
	a, r := defaultAuthorizer(), defaultRedactor()
	if s := defaults.Load(); s != nil && s.auth == a && s.redactor == r {
		return s
	}
	s := &runSettings{auth: a, redactor: r}
	defaults.Store(s)
	return s
}

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
