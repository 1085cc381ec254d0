package helikon_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// endBlocker is a span processor whose OnEnd blocks for the run's own span
// (invoke_agent) until release is closed, ignoring every context, as a
// synchronous exporter on a stalled network does.
type endBlocker struct {
	entered chan struct{}
	release chan struct{}
}

func (p *endBlocker) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (p *endBlocker) OnEnd(s sdktrace.ReadOnlySpan) {
	if strings.HasPrefix(s.Name(), "invoke_agent") {
		p.entered <- struct{}{}
		<-p.release
	}
}

func (p *endBlocker) Shutdown(context.Context) error   { return nil }
func (p *endBlocker) ForceFlush(context.Context) error { return nil }

// TestCancel_ATracerBlockingInEndHoldsTheRunOnEitherPath pins what
// CancelGrace does not bound: the run's own spans end on its goroutine, so
// a tracer whose Span.End blocks (OpenTelemetry requires it not to) holds
// a cancelled run until it returns, whether the round ran on a worker (a
// plain tool) or on the run's goroutine (a tool that promises to honour
// cancellation). The inline round adds nothing the tracer did not already
// hold; once End returns, the run ends cancelled and leaves no straggler.
func TestCancel_ATracerBlockingInEndHoldsTheRunOnEitherPath(t *testing.T) {
	for _, c := range []struct {
		name    string
		promise bool
	}{
		{"live round, plain tool", false},
		{"inline round, promising tool", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			var opts []helikon.ToolOption
			if c.promise {
				opts = append(opts, helikon.WithHonoursCancellation())
			}
			polite := helikon.MustTool("polite", "Waits for cancellation.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
				started <- struct{}{}
				<-tc.Done()
				return "", tc.Err()
			}, opts...)
			p := &endBlocker{entered: make(chan struct{}), release: make(chan struct{})}
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "polite", Args: `{}`}), mock.Text("unreached"))
			a := mustAgent(t, "a", m, helikon.WithTools(polite),
				helikon.WithRunConfig(helikon.RunConfig{CancelGrace: 20 * time.Millisecond}))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := helikon.Collect(a.Run(ctx, helikon.NewRunContext(helikon.WithTracerProvider(tp)), helikon.UserText("go")))
				done <- err
			}()
			<-started
			cancel()
			select {
			case <-p.entered:
			case err := <-done:
				t.Fatalf("the run ended (%v) without ending its span", err)
			case <-time.After(10 * time.Second):
				t.Fatal("the run's span did not end within 10 s of its cancellation")
			}
			select {
			case err := <-done:
				t.Fatalf("the run ended (%v) while its span's End blocked", err)
			default:
			}
			close(p.release)
			select {
			case err := <-done:
				if !errors.Is(err, helikon.ErrCancelled) {
					t.Errorf("err = %v; want ErrCancelled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the run did not end once its span's End returned")
			}
			if n := helikon.Stragglers(); n != 0 {
				t.Errorf("Stragglers() = %d; want 0", n)
			}
		})
	}
}
