package helikon

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/paigasus/helikon/internal/straggler"
)

// GuardrailInputKind says which side of the agent a guardrail checks.
type GuardrailInputKind int

// The guardrail inputs.
const (
	GuardUserText GuardrailInputKind = iota
	GuardModelOutput
)

// GuardrailInput is the text a [Guardrail] checks.
type GuardrailInput struct {
	Kind GuardrailInputKind
	Text string
}

// GuardrailKind classifies a tripwire.
type GuardrailKind string

// The guardrail kinds.
const (
	GuardrailInputPolicy  GuardrailKind = "input_policy"
	GuardrailOutputPolicy GuardrailKind = "output_policy"
	GuardrailOther        GuardrailKind = "other"
)

// Tripwire is a guardrail's verdict that halts the run.
type Tripwire struct {
	Kind   GuardrailKind `json:"kind"`
	Reason string        `json:"reason,omitempty"` // for Other, the failure
	Info   any           `json:"info,omitempty"`   // free-form detail
}

// Guardrail checks text entering or leaving an agent: nil passes, a
// [Tripwire] halts the run, and so does an error (a tripwire of kind Other).
type Guardrail interface {
	Check(ctx context.Context, rc *RunContext, in GuardrailInput) (*Tripwire, error)
}

// GuardrailFunc adapts a function to [Guardrail].
type GuardrailFunc func(ctx context.Context, rc *RunContext, in GuardrailInput) (*Tripwire, error)

// Check calls f.
func (f GuardrailFunc) Check(ctx context.Context, rc *RunContext, in GuardrailInput) (*Tripwire, error) {
	return f(ctx, rc, in)
}

func (d *driver) checkInput(ctx context.Context, input []Item, yield func(Event) bool) bool {
	return d.runGuardrails(ctx, d.a.inputGuards, GuardrailInput{Kind: GuardUserText, Text: userText(input)}, yield)
}

func userText(input []Item) string {
	var b strings.Builder
	for _, it := range input {
		if it.Role == RoleUser {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(it.Text())
		}
	}
	return b.String()
}

func (d *driver) checkOutput(ctx context.Context, text string, yield func(Event) bool) bool {
	return d.runGuardrails(ctx, d.a.outputGuards, GuardrailInput{Kind: GuardModelOutput, Text: text}, yield)
}

// runGuardrails reports false, the failure emitted, when one of gs trips.
func (d *driver) runGuardrails(ctx context.Context, gs []Guardrail, in GuardrailInput, yield func(Event) bool) bool {
	tw, err := d.firstTripwire(ctx, gs, in)
	if tw == nil {
		return true
	}
	d.tripped(tw, err, yield)
	return false
}

// firstTripwire runs gs in order and returns the first tripwire; a
// guardrail's error becomes a tripwire of kind Other.
func (d *driver) firstTripwire(ctx context.Context, gs []Guardrail, in GuardrailInput) (*Tripwire, error) {
	for _, g := range gs {
		tw, err := d.checkOne(ctx, g, in)
		if err != nil {
			return &Tripwire{Kind: GuardrailOther, Reason: err.Error(), Info: err.Error()}, err
		}
		if tw != nil {
			return tw, nil
		}
	}
	return nil, nil
}

// checkOne runs one guardrail, its panic counting as its error: the input
// check runs on its own goroutine, where a panic would kill the process.
func (d *driver) checkOne(ctx context.Context, g Guardrail, in GuardrailInput) (tw *Tripwire, err error) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("helikon: guardrail panicked", "agent", d.a.name, "panic", r, "stack", string(debug.Stack()))
			tw, err = nil, fmt.Errorf("guardrail panicked: %v", r)
		}
	}()
	return g.Check(ctx, d.rc, in)
}

func (d *driver) tripped(tw *Tripwire, err error, yield func(Event) bool) {
	at := now()
	if yield(GuardrailTriggered{Kind: tw.Kind, Info: tw.Info, At: at}) {
		yield(RunFailed{At: at, Err: &AgentError{Kind: KindGuardrail, Agent: d.a.name, Message: guardrailMessage(tw), Err: err}})
	}
}

func guardrailMessage(tw *Tripwire) string {
	if tw.Reason != "" {
		return string(tw.Kind) + ": " + tw.Reason
	}
	return string(tw.Kind)
}

// inputCheck runs the input guardrails beside the first model call. The
// driver owns its goroutine: stop cancels and waits for it, at most the
// cancel grace period; then the straggler registry owns it.
type inputCheck struct {
	// model is the first model call's context; a tripwire cancels it.
	model       context.Context
	cancelModel context.CancelFunc
	cancelCheck context.CancelFunc
	done        chan struct{}
	tw          *Tripwire // set before done closes
	err         error
	held        []Event // the model call's events, until the verdict

	// mu guards returned and abandoned: whether the check's goroutine
	// returned, and whether the driver gave up on it.
	mu        sync.Mutex
	returned  bool
	abandoned bool
}

func (d *driver) startInputCheck(ctx context.Context, input []Item) *inputCheck {
	ic := &inputCheck{done: make(chan struct{})}
	ic.model, ic.cancelModel = context.WithCancel(ctx)
	checkCtx, cancelCheck := context.WithCancel(ctx)
	ic.cancelCheck = cancelCheck
	in := GuardrailInput{Kind: GuardUserText, Text: userText(input)}
	go func() {
		defer close(ic.done)
		tw, err := d.firstTripwire(checkCtx, d.a.inputGuards, in)
		ic.mu.Lock()
		defer ic.mu.Unlock()
		ic.returned = true
		if ic.abandoned {
			straggler.Done()
			return
		}
		ic.tw, ic.err = tw, err
		if tw != nil {
			ic.cancelModel()
		}
	}()
	return ic
}

// stop ends the check (see inputCheck): a guardrail is user code, and one
// that ignores its context would otherwise hold a cancelled run for ever.
func (ic *inputCheck) stop(d *driver) {
	ic.cancelCheck()
	ic.cancelModel()
	select {
	case <-ic.done:
		return
	default:
	}
	ic.mu.Lock()
	gaveUp := ic.abandoned
	ic.mu.Unlock()
	if gaveUp {
		// Stopped twice (the first model call's end, the run's): the
		// first stop gave up on it.
		return
	}
	g := newGraceTimer(d.cfg)
	defer g.Stop()
	if g.Wait(ic.done) {
		return
	}
	ic.mu.Lock()
	defer ic.mu.Unlock()
	if ic.returned {
		return
	}
	ic.abandoned = true
	straggler.Add(1)
	slog.Warn("helikon: an input guardrail ignored cancellation; the run ended without it",
		"agent", d.a.name, "grace", g.Duration())
}

// passed reports, without waiting, whether every guardrail has passed.
func (ic *inputCheck) passed() bool {
	select {
	case <-ic.done:
		return ic.tw == nil
	default:
		return false
	}
}

func (ic *inputCheck) flush(yield func(Event) bool) bool {
	for _, ev := range ic.held {
		if !yield(ev) {
			return false
		}
	}
	ic.held = nil
	return true
}

// callModelGuarded runs the first model call beside the input guardrails
// (see [WithBlockingInputGuardrails]).
func (d *driver) callModelGuarded(ctx context.Context, state LoopState, req *ModelRequest, yield func(Event) bool) (TransitionInput, bool) {
	ic := d.input
	d.input = nil
	defer ic.stop(d)
	hold := func(ev Event) bool {
		if ic.passed() {
			return ic.flush(yield) && yield(ev)
		}
		ic.held = append(ic.held, ev)
		return true
	}
	// The call runs under ic.model, which a tripwire cancels; stopper
	// gives it a cancel func of its own, so that the call's end stops the
	// call, not the run.
	in, ok := d.callModel(ic.model, state, req, hold)
	if !ok {
		return nil, false
	}
	select {
	case <-ic.done:
	default:
		select {
		case <-ic.done:
		case <-ctx.Done():
			return Abort{Err: cancelled(d.a.name, ctx.Err())}, true
		}
	}
	if ic.tw != nil {
		d.tripped(ic.tw, ic.err, yield)
		return nil, false
	}
	if !ic.flush(yield) {
		return nil, false
	}
	return in, true
}
