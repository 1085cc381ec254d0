package retry

import (
	"context"
	"errors"
	"iter"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

var (
	unavailable = &helikon.ModelError{Kind: helikon.ModelUnavailable, Provider: "mock", StatusCode: 503}
	refused     = &helikon.ModelError{Kind: helikon.ModelRefused, Provider: "mock"}
)

func rateLimited(after time.Duration) error {
	return &helikon.ModelError{Kind: helikon.ModelRateLimited, Provider: "mock", StatusCode: 429, RetryAfter: after}
}

// recording wraps inner with a backoff that records its sleeps instead of
// sleeping and a jitter that returns frac of its range.
func recording(t *testing.T, inner helikon.Model, frac float64, opts ...Option) (*Model, *[]time.Duration) {
	t.Helper()
	m, err := New(inner, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var slept []time.Duration
	m.sleep = func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	m.jitter = func(n int64) int64 { return int64(float64(n-1) * frac) }
	return m, &slept
}

// drain collects a stream's text and its error.
func drain(m helikon.Model) (text string, events []helikon.ModelEvent, err error) {
	for ev, e := range m.Invoke(context.Background(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}) {
		if e != nil {
			return text, events, e
		}
		events = append(events, ev)
		if d, ok := ev.(helikon.TokenDelta); ok {
			text += d.Text
		}
	}
	return text, events, nil
}

func TestModel_RetriesTransientFailuresBeforeContent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scripts  []mock.Script
		attempts int
		wantText string
		wantErr  error
		wantReqs int
	}{
		{"unavailable then success", []mock.Script{mock.Fail(unavailable), mock.Text("ok")}, 4, "ok", nil, 2},
		{"rate limited twice then success", []mock.Script{mock.Fail(rateLimited(0)), mock.Fail(rateLimited(0)), mock.Text("ok")}, 4, "ok", nil, 3},
		{"transport error", []mock.Script{mock.Fail(&helikon.ModelError{Kind: helikon.ModelTransport}), mock.Text("ok")}, 4, "ok", nil, 2},
		{"not transient: surfaced at once", []mock.Script{mock.Fail(refused), mock.Text("ok")}, 4, "", helikon.ErrRefused, 1},
		{"attempts exhausted", []mock.Script{mock.Fail(unavailable), mock.Fail(unavailable), mock.Fail(unavailable)}, 3, "", helikon.ErrModelUnavailable, 3},
		{"one attempt disables retries", []mock.Script{mock.Fail(unavailable), mock.Text("ok")}, 1, "", helikon.ErrModelUnavailable, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := mock.New(tc.scripts)
			m, slept := recording(t, inner, 0, WithMaxAttempts(tc.attempts))
			text, _, err := drain(m)
			if text != tc.wantText || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("got %q, %v; want %q, %v", text, err, tc.wantText, tc.wantErr)
			}
			if n := len(inner.Requests()); n != tc.wantReqs {
				t.Fatalf("%d requests, want %d", n, tc.wantReqs)
			}
			if len(*slept) != tc.wantReqs-1 {
				t.Fatalf("%d backoffs for %d requests", len(*slept), tc.wantReqs)
			}
		})
	}
}

func TestModel_ErrorAfterContentIsSurfacedNotRetried(t *testing.T) {
	for name, first := range map[string]helikon.ModelEvent{
		"after a token":     helikon.TokenDelta{Text: "partial "},
		"after a tool call": helikon.ToolCallDelta{CallID: "c", Name: "add", ArgsDelta: "{"},
		"after reasoning":   helikon.ReasoningDelta{Text: "hmm"},
	} {
		t.Run(name, func(t *testing.T) {
			inner := mock.New([]mock.Script{{Events: []helikon.ModelEvent{first}, Err: unavailable}, mock.Text("ok")})
			m, _ := recording(t, inner, 0)
			_, events, err := drain(m)
			if !errors.Is(err, helikon.ErrModelUnavailable) {
				t.Fatalf("err = %v", err)
			}
			if len(events) != 1 || events[0] != first {
				t.Fatalf("events %v", events)
			}
			if n := len(inner.Requests()); n != 1 {
				t.Fatalf("%d requests: retried after content", n)
			}
		})
	}
}

func TestModel_RetriedAttemptLeavesNoTraceInTheStream(t *testing.T) {
	inner := mock.New([]mock.Script{
		{Events: []helikon.ModelEvent{helikon.ResponseInfo{ID: "lost"}, helikon.Usage{InputTokens: 3}}, Err: unavailable},
		{Events: []helikon.ModelEvent{helikon.ResponseInfo{ID: "kept"}, helikon.TokenDelta{Text: "ok"}, helikon.Finish{Reason: helikon.FinishStop}}},
	})
	m, _ := recording(t, inner, 0)
	_, events, err := drain(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []helikon.ModelEvent{helikon.ResponseInfo{ID: "kept"}, helikon.TokenDelta{Text: "ok"}, helikon.Finish{Reason: helikon.FinishStop}}
	if len(events) != len(want) {
		t.Fatalf("events %v, want %v", events, want)
	}
	for i := range want {
		if events[i] != want[i] {
			t.Fatalf("events %v, want %v", events, want)
		}
	}
}

func TestModel_BackoffIsExponentialFullJitterWithRetryAfterAsFloor(t *testing.T) {
	base, maxDelay := 100*time.Millisecond, 350*time.Millisecond
	for _, tc := range []struct {
		name  string
		frac  float64 // where in [0, ceiling] the jitter lands
		fails []error
		want  []time.Duration
	}{
		{"ceilings double up to the max", 1, []error{unavailable, unavailable, unavailable},
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 350 * time.Millisecond}},
		{"jitter spans from zero", 0, []error{unavailable, unavailable}, []time.Duration{0, 0}},
		{"retry-after is a floor above the jitter", 0, []error{rateLimited(3 * time.Second)}, []time.Duration{3 * time.Second}},
		{"retry-after is a floor above the max delay", 1, []error{rateLimited(time.Minute)}, []time.Duration{time.Minute}},
		{"jitter above retry-after stands", 1, []error{rateLimited(10 * time.Millisecond)}, []time.Duration{100 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var scripts []mock.Script
			for _, err := range tc.fails {
				scripts = append(scripts, mock.Fail(err))
			}
			inner := mock.New(append(scripts, mock.Text("ok")))
			m, slept := recording(t, inner, tc.frac, WithBaseDelay(base), WithMaxDelay(maxDelay), WithMaxAttempts(len(tc.fails)+1))
			if _, _, err := drain(m); err != nil {
				t.Fatal(err)
			}
			if len(*slept) != len(tc.want) {
				t.Fatalf("slept %v, want %v", *slept, tc.want)
			}
			for i := range tc.want {
				if (*slept)[i] != tc.want[i] {
					t.Fatalf("slept %v, want %v", *slept, tc.want)
				}
			}
		})
	}
}

// signalling is a model that closes attempted after its first call ends.
type signalling struct {
	*mock.Model
	once      sync.Once
	attempted chan struct{}
}

func (m *signalling) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		defer m.once.Do(func() { close(m.attempted) })
		for ev, err := range m.Model.Invoke(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

func TestModel_CancelAbortsTheBackoffSleep(t *testing.T) {
	// A backoff of an hour: only the cancel can end the call.
	inner := &signalling{Model: mock.New([]mock.Script{mock.Fail(rateLimited(time.Hour)), mock.Text("never")}), attempted: make(chan struct{})}
	m, err := New(inner, WithBaseDelay(time.Hour), WithMaxDelay(time.Hour), WithMaxRetryAfter(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var got error
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, err := range m.Invoke(ctx, &helikon.ModelRequest{}) {
			if err != nil {
				got = err
			}
		}
	})
	<-inner.attempted // the first attempt failed: the cancel lands in the sleep
	cancel()
	wg.Wait()
	if !errors.Is(got, context.Canceled) || !errors.Is(got, helikon.ErrRateLimited) {
		t.Fatalf("err = %v; want context.Canceled wrapping the rate limit", got)
	}
	if n := len(inner.Requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
}

// A retry whose wait is not worth making is not made: the failure comes
// back at once, still matching its kind, and nothing is slept.
func TestModel_ReturnsAtOnceWhenTheWaitIsNotWorthIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		failure error
		opts    []Option
		timeout time.Duration // of the caller's context; 0 for none
		want    string
	}{
		{"retry-after beyond the bound", rateLimited(9e9 * time.Second), nil, 0, "not waiting"},
		{"retry-after beyond a tighter bound", rateLimited(2 * time.Minute), []Option{WithMaxRetryAfter(time.Minute)}, 0, "not waiting"},
		{"retry-after past the deadline", rateLimited(4 * time.Minute), nil, time.Minute, "outlast the context's deadline"},
		{"backoff past the deadline", unavailable, []Option{WithBaseDelay(time.Hour), WithMaxDelay(time.Hour)}, time.Minute, "outlast the context's deadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := mock.New([]mock.Script{mock.Fail(tc.failure), mock.Text("never")})
			m, slept := recording(t, inner, 1, tc.opts...)
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			var got error
			for _, err := range m.Invoke(ctx, &helikon.ModelRequest{Messages: helikon.UserText("hi")}) {
				if err != nil {
					got = err
				}
			}
			var me *helikon.ModelError
			if !errors.As(got, &me) || !strings.Contains(got.Error(), tc.want) {
				t.Fatalf("err = %v; want the model error with %q", got, tc.want)
			}
			if len(*slept) != 0 || len(inner.Requests()) != 1 {
				t.Fatalf("slept %v over %d requests; want no retry", *slept, len(inner.Requests()))
			}
		})
	}
}

// The largest max delay is usable: the jitter's range does not overflow.
func TestModel_MaxDelayAtTheLimitDoesNotOverflow(t *testing.T) {
	inner := mock.New([]mock.Script{mock.Fail(unavailable), mock.Text("ok")})
	m, err := New(inner, WithMaxDelay(math.MaxInt64), WithBaseDelay(math.MaxInt64))
	if err != nil {
		t.Fatal(err)
	}
	m.sleep = func(context.Context, time.Duration) error { return nil }
	if text, _, err := drain(m); err != nil || text != "ok" {
		t.Fatalf("%q %v", text, err)
	}
}

func TestNew_RejectsInvalidSettings(t *testing.T) {
	inner := mock.Scripted()
	for name, opts := range map[string][]Option{
		"zero attempts":        {WithMaxAttempts(0)},
		"zero base":            {WithBaseDelay(0)},
		"max below base":       {WithBaseDelay(time.Second), WithMaxDelay(time.Millisecond)},
		"negative base delay":  {WithBaseDelay(-time.Second)},
		"negative retry-after": {WithMaxRetryAfter(-time.Second)},
	} {
		if _, err := New(inner, opts...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := New(nil); err == nil {
		t.Error("nil model accepted")
	}
}

func TestModel_ReportsTheInnerModelsIdentity(t *testing.T) {
	m, _ := New(mock.New(nil, mock.WithModelID("gpt-x")))
	if p, id := helikon.DescribeModel(m); p != "mock" || id != "gpt-x" {
		t.Fatalf("DescribeModel = %q, %q", p, id)
	}
}

func TestModel_RetryIsRecordedOnTheChatSpan(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	m, _ := recording(t, mock.Scripted(mock.Fail(rateLimited(2*time.Second)), mock.Text("ok")), 0)
	agent, _ := helikon.NewAgent("a", m)
	if _, err := helikon.Collect(agent.Run(context.Background(), helikon.NewRunContext(helikon.WithTracerProvider(tp)), helikon.UserText("hi"))); err != nil {
		t.Fatal(err)
	}
	for _, s := range sr.Ended() {
		if s.Name() != "chat mock" {
			continue
		}
		evs := s.Events()
		if len(evs) != 1 || evs[0].Name != "gen_ai.retry" {
			t.Fatalf("chat span events %+v", evs)
		}
		got := map[string]string{}
		for _, kv := range evs[0].Attributes {
			got[string(kv.Key)] = kv.Value.Emit()
		}
		if got["gen_ai.retry.attempt"] != "1" || got["gen_ai.retry.delay_ms"] != "2000" || got["error.type"] != "rate_limited" {
			t.Fatalf("retry event attributes %v", got)
		}
		return
	}
	t.Fatal("no chat span")
}
