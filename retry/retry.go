package retry

import (
	"context"
	"errors"
	"fmt"
	"iter"
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
	limiter     *Limiter
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
// provider's RetryAfter is honoured even above it.
func WithMaxDelay(d time.Duration) Option { return func(m *Model) { m.max = d } }

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
		sleep: sleep, jitter: rand.Int64N,
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
		for attempt := 1; ; attempt++ {
			var reserved int
			if m.limiter != nil {
				var err error
				if reserved, err = m.limiter.wait(ctx, req, m.Provider()); err != nil {
					yield(nil, err)
					return
				}
			}
			failure, streamed, usage, stopped := m.attempt(ctx, req, yield)
			if m.limiter != nil {
				m.limiter.settle(reserved, usage)
			}
			if stopped || failure == nil {
				return
			}
			if streamed || !helikon.IsTransient(failure) || attempt >= m.maxAttempts {
				yield(nil, failure)
				return
			}
			d := m.backoff(attempt, failure)
			noteRetry(ctx, attempt, d, failure)
			if err := m.sleep(ctx, d); err != nil {
				yield(nil, fmt.Errorf("retry: cancelled while backing off: %w; last error: %w", err, failure))
				return
			}
		}
	}
}

// attempt runs one call. It returns the call's failure, whether content
// reached the caller, the usage the call reported, and whether the caller
// stopped the stream.
func (m *Model) attempt(ctx context.Context, req *helikon.ModelRequest, yield func(helikon.ModelEvent, error) bool) (failure error, streamed bool, usage helikon.Usage, stopped bool) {
	var held []helikon.ModelEvent
	for ev, err := range m.inner.Invoke(ctx, req) {
		if err != nil {
			return err, streamed, usage, false
		}
		switch e := ev.(type) {
		case helikon.TokenDelta, helikon.ReasoningDelta, helikon.ToolCallDelta:
			if !streamed {
				streamed = true
				for _, h := range held {
					if !yield(h, nil) {
						return nil, true, usage, true
					}
				}
				held = nil
			}
		case helikon.Usage:
			usage = usage.Add(e)
		}
		if !streamed {
			held = append(held, ev)
			continue
		}
		if !yield(ev, nil) {
			return nil, true, usage, true
		}
	}
	for _, h := range held {
		if !yield(h, nil) {
			return nil, streamed, usage, true
		}
	}
	return nil, streamed, usage, false
}

// backoff returns the sleep before the retry that follows attempt.
func (m *Model) backoff(attempt int, failure error) time.Duration {
	ceiling := m.max
	if shift := attempt - 1; shift < 62 {
		if c := m.base << shift; c > 0 && c < m.max {
			ceiling = c
		}
	}
	d := time.Duration(m.jitter(int64(ceiling) + 1))
	var me *helikon.ModelError
	if errors.As(failure, &me) && me.RetryAfter > d {
		d = me.RetryAfter
	}
	return d
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
