package retry

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/paigasus/helikon"
)

// The defaults of a [Model].
const (
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = 250 * time.Millisecond
	DefaultMaxDelay    = 30 * time.Second
	// DefaultMaxRetryAfter is the longest RetryAfter a Model waits out.
	DefaultMaxRetryAfter = 5 * time.Minute
)

// Model is a [helikon.Model] that retries its inner model's transient
// failures (RateLimited, Unavailable, Transport) with exponential backoff
// and full jitter: before attempt n+1 it sleeps a uniformly random duration
// in [0, min(MaxDelay, BaseDelay·2ⁿ⁻¹)], and at least a RateLimited error's
// RetryAfter.
//
// A failure is retried only while nothing has streamed: once a token,
// reasoning or tool-call delta reached the caller, output cannot be taken
// back and a later error is surfaced as is. Events that carry no content
// (response info, usage) are held back until content starts, so a retried
// attempt leaves no trace in the stream. The backoff sleep ends at once when
// the context is cancelled.
//
// With a [Limiter], every attempt first waits for its share of the
// requests- and tokens-per-minute budget.
type Model struct {
	inner       helikon.Model
	maxAttempts int
	base, max   time.Duration
	// maxRetryAfter is the longest RetryAfter waited out.
	maxRetryAfter time.Duration
	limiter       *Limiter
	// sleep and jitter are replaced by tests to observe the backoff.
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func(n int64) int64
}

var (
	_ helikon.Model     = (*Model)(nil)
	_ helikon.ModelInfo = (*Model)(nil)
)

// Option configures a [Model].
type Option func(*Model)

// WithMaxAttempts sets how many times a request is tried in all, the first
// included (default [DefaultMaxAttempts]; 1 disables retries).
func WithMaxAttempts(n int) Option { return func(m *Model) { m.maxAttempts = n } }

// WithBaseDelay sets the backoff ceiling of the first retry; it doubles
// with every retry after it (default [DefaultBaseDelay]).
func WithBaseDelay(d time.Duration) Option { return func(m *Model) { m.base = d } }

// WithMaxDelay caps the backoff ceiling (default [DefaultMaxDelay]). A
// provider's RetryAfter is honoured even above it, up to [WithMaxRetryAfter].
func WithMaxDelay(d time.Duration) Option { return func(m *Model) { m.max = d } }

// WithMaxRetryAfter sets the longest RetryAfter a Model waits out
// (default [DefaultMaxRetryAfter]); a rate limit that asks for longer is
// returned at once, so the caller decides.
func WithMaxRetryAfter(d time.Duration) Option { return func(m *Model) { m.maxRetryAfter = d } }

// WithLimiter paces every attempt through l. Share one Limiter between all
// the models that draw on the same provider account.
func WithLimiter(l *Limiter) Option { return func(m *Model) { m.limiter = l } }

// New wraps inner.
func New(inner helikon.Model, opts ...Option) (*Model, error) {
	if inner == nil {
		return nil, errors.New("retry: model is required")
	}
	m := &Model{
		inner: inner, maxAttempts: DefaultMaxAttempts, base: DefaultBaseDelay, max: DefaultMaxDelay,
		maxRetryAfter: DefaultMaxRetryAfter, sleep: sleep, jitter: rand.Int64N,
	}
	for _, o := range opts {
		o(m)
	}
	switch {
	case m.maxAttempts < 1:
		return nil, fmt.Errorf("retry: max attempts must be at least 1, got %d", m.maxAttempts)
	case m.base <= 0:
		return nil, fmt.Errorf("retry: base delay must be positive, got %s", m.base)
	case m.max < m.base:
		return nil, fmt.Errorf("retry: max delay %s is below the base delay %s", m.max, m.base)
	case m.maxRetryAfter < 0:
		return nil, fmt.Errorf("retry: max retry-after must not be negative, got %s", m.maxRetryAfter)
	}
	return m, nil
}

// Capabilities reports the inner model's capabilities.
func (m *Model) Capabilities() helikon.ModelCapabilities { return m.inner.Capabilities() }

// Provider reports the inner model's provider, so traces name it.
func (m *Model) Provider() string { p, _ := helikon.DescribeModel(m.inner); return p }

// ModelID reports the inner model's id, so traces and price tables see it.
func (m *Model) ModelID() string { _, id := helikon.DescribeModel(m.inner); return id }

// Unwrap returns the inner model.
func (m *Model) Unwrap() helikon.Model { return m.inner }

// Invoke streams the inner model's answer, retrying as [Model] describes.
func (m *Model) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		for n := 1; ; n++ {
			var reserved int
			if m.limiter != nil {
				var err error
				if reserved, err = m.limiter.wait(ctx, req, m.Provider()); err != nil {
					yield(nil, err)
					return
				}
			}
			a := m.attempt(ctx, req, yield)
			if m.limiter != nil {
				m.limiter.settle(reserved, a.usage)
			}
			if a.stopped || a.failure == nil {
				return
			}
			if a.streamed || !helikon.IsTransient(a.failure) || n >= m.maxAttempts {
				yield(nil, a.failure)
				return
			}
			d, err := m.backoff(ctx, n, a.failure)
			if err != nil {
				yield(nil, err)
				return
			}
			noteRetry(ctx, n, d, a.failure)
			if err := m.sleep(ctx, d); err != nil {
				yield(nil, fmt.Errorf("retry: cancelled while backing off: %w; last error: %w", err, a.failure))
				return
			}
		}
	}
}

// attempt is one call to the inner model, as Invoke follows it.
type attempt struct {
	yield func(helikon.ModelEvent, error) bool
	// held keeps the events that precede content, released when content
	// starts or the call ends well.
	held     []helikon.ModelEvent
	failure  error
	streamed bool // content reached the caller
	stopped  bool // the caller stopped the stream
	usage    helikon.Usage
}

// attempt runs one call to the inner model.
func (m *Model) attempt(ctx context.Context, req *helikon.ModelRequest, yield func(helikon.ModelEvent, error) bool) *attempt {
	a := &attempt{yield: yield}
	m.inner.Invoke(ctx, req)(a.event)
	if a.failure == nil && !a.stopped {
		a.release()
	}
	return a
}

func (a *attempt) event(ev helikon.ModelEvent, err error) bool {
	if err != nil {
		a.failure = err
		return false
	}
	switch e := ev.(type) {
	case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
		if !a.streamed {
			a.streamed = true
			if !a.release() {
				return false
			}
		}
	case helikon.Usage:
		a.usage = a.usage.Add(e)
	}
	if !a.streamed {
		a.held = append(a.held, ev)
		return true
	}
	if !a.yield(ev, nil) {
		a.stopped = true
		return false
	}
	return true
}

// release yields the held events; it reports false when the caller stopped.
func (a *attempt) release() bool {
	for _, h := range a.held {
		if !a.yield(h, nil) {
			a.stopped = true
			return false
		}
	}
	a.held = nil
	return true
}

// backoff returns the sleep before the retry that follows attempt, or the
// error to end with when that retry should not be made.
func (m *Model) backoff(ctx context.Context, attempt int, failure error) (time.Duration, error) {
	ceiling := m.max
	if shift := attempt - 1; shift < 62 {
		if c := m.base << shift; c > 0 && c < m.max {
			ceiling = c
		}
	}
	d := time.Duration(m.jitter(int64(min(ceiling, math.MaxInt64-1)) + 1))
	var me *helikon.ModelError
	if errors.As(failure, &me) && me.RetryAfter > d {
		if me.RetryAfter > m.maxRetryAfter {
			return 0, fmt.Errorf("retry: not waiting the %s the provider asked for (more than %s); last error: %w",
				me.RetryAfter, m.maxRetryAfter, failure)
		}
		d = me.RetryAfter
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return 0, fmt.Errorf("retry: the %s backoff would outlast the context's deadline; last error: %w", d, failure)
	}
	return d, nil
}

// noteRetry records the retry as an event on the caller's span (the chat
// span of the turn, under an agent).
func noteRetry(ctx context.Context, attempt int, d time.Duration, failure error) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	typ := "other"
	var me *helikon.ModelError
	if errors.As(failure, &me) {
		typ = string(me.Kind)
	}
	span.AddEvent("gen_ai.retry", trace.WithAttributes(
		attribute.Int("gen_ai.retry.attempt", attempt),
		attribute.Int64("gen_ai.retry.delay_ms", d.Milliseconds()),
		attribute.String("error.type", typ),
	))
}

// sleep waits d or until ctx ends, whichever is first; a context already
// done ends it even when d is zero.
func sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
