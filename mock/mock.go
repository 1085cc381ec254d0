package mock

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/paigasus/helikon"
)

// Script is what the model streams for one invocation: Events in order,
// then Err if it is set.
type Script struct {
	Events []helikon.ModelEvent
	Err    error
	// Request is the request a recording saw for this invocation; nil in a
	// hand-written script.
	Request *Request
	// Gaps, in a recording, are the waits before each event and, last,
	// before Err; a Model made [WithRecordedGaps] waits them.
	Gaps []time.Duration
}

// Model is a scripted [helikon.Model]: each Invoke pops the next script.
// When the scripts run out, Invoke yields a ModelError rather than looping.
// A Model is safe for concurrent use, but concurrent runs sharing one Model
// take scripts in arrival order; build one Model per run when order matters.
type Model struct {
	mu       sync.Mutex
	scripts  []Script
	next     int
	requests []*helikon.ModelRequest
	delay    time.Duration
	// deltaDelay is waited before each delta event, on top of delay.
	deltaDelay time.Duration
	// gaps makes play wait each script's recorded gaps.
	gaps bool
	id   string
	caps helikon.ModelCapabilities
}

// Option configures a Model.
type Option func(*Model)

// WithDelay waits d before each streamed event, like a network would; the
// wait ends early when the context is cancelled.
func WithDelay(d time.Duration) Option { return func(m *Model) { m.delay = d } }

// WithDeltaDelay waits d before each delta event (text, reasoning and tool
// call deltas), so a streamed answer arrives piece by piece at a pace a
// person can watch; other events are not delayed. The wait ends early when
// the context is cancelled.
func WithDeltaDelay(d time.Duration) Option { return func(m *Model) { m.deltaDelay = d } }

// WithRecordedGaps makes the model wait each script's recorded [Script].Gaps
// before its events, so a recording plays at the pace it was recorded
// (for a demo); without it a recording plays at once.
func WithRecordedGaps() Option { return func(m *Model) { m.gaps = true } }

// WithModelID sets the id the model reports (default "mock").
func WithModelID(id string) Option { return func(m *Model) { m.id = id } }

// WithCapabilities overrides the reported capabilities.
func WithCapabilities(c helikon.ModelCapabilities) Option { return func(m *Model) { m.caps = c } }

// New returns a Model that plays scripts in order.
func New(scripts []Script, opts ...Option) *Model {
	m := &Model{
		scripts: scripts,
		id:      "mock",
		caps: helikon.ModelCapabilities{
			Streaming: true, Tools: true, ParallelToolCalls: true, StructuredOutput: true,
			Reasoning: true, Vision: true, HonoursCancellation: true,
		},
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Scripted returns a Model that plays scripts in order, with default options.
func Scripted(scripts ...Script) *Model { return New(scripts) }

// Push appends scripts.
func (m *Model) Push(scripts ...Script) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scripts = append(m.scripts, scripts...)
}

// Requests returns the requests the model received, in order.
func (m *Model) Requests() []*helikon.ModelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*helikon.ModelRequest(nil), m.requests...)
}

// Remaining returns how many scripts are left.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.scripts) - m.next
}

// Capabilities reports the model's flags.
func (m *Model) Capabilities() helikon.ModelCapabilities { return m.caps }

// Provider returns "mock".
func (m *Model) Provider() string { return "mock" }

// ModelID returns the configured id.
func (m *Model) ModelID() string { return m.id }

// Invoke streams the next script.
func (m *Model) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		m.mu.Lock()
		m.requests = append(m.requests, req)
		if m.next >= len(m.scripts) {
			n := m.next
			m.mu.Unlock()
			yield(nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: "mock",
				Message: fmt.Sprintf("script exhausted: invocation %d has no script", n+1)})
			return
		}
		s := m.scripts[m.next]
		m.next++
		m.mu.Unlock()
		m.play(ctx, s, yield)
	}
}

// play streams s, waiting the configured delays before its events.
func (m *Model) play(ctx context.Context, s Script, yield func(helikon.ModelEvent, error) bool) {
	var timer *time.Timer
	for i, ev := range s.Events {
		wait := m.delay
		if isDelta(ev) {
			wait += m.deltaDelay
		}
		if m.gaps && i < len(s.Gaps) {
			wait += s.Gaps[i]
		}
		if wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
				defer timer.Stop()
			} else {
				timer.Reset(wait)
			}
			select {
			case <-ctx.Done():
				yield(nil, &helikon.ModelError{Kind: helikon.ModelTransport, Provider: "mock", Err: ctx.Err()})
				return
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			yield(nil, &helikon.ModelError{Kind: helikon.ModelTransport, Provider: "mock", Err: ctx.Err()})
			return
		}
		if !yield(ev, nil) {
			return
		}
	}
	if s.Err != nil {
		if n := len(s.Events); m.gaps && n < len(s.Gaps) && s.Gaps[n] > 0 {
			t := time.NewTimer(s.Gaps[n])
			defer t.Stop()
			select {
			case <-ctx.Done():
				yield(nil, &helikon.ModelError{Kind: helikon.ModelTransport, Provider: "mock", Err: ctx.Err()})
				return
			case <-t.C:
			}
		}
		yield(nil, s.Err)
	}
}

// isDelta reports whether ev is a piece of a streamed answer.
func isDelta(ev helikon.ModelEvent) bool {
	switch ev.(type) {
	case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
		return true
	}
	return false
}
