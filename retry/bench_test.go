package retry_test

import (
	"context"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/retry"
)

// benchInvoke streams one ten-delta answer from m.
func benchInvoke(b *testing.B, wrap func(helikon.Model) helikon.Model) {
	parts := make([]string, 10)
	for i := range parts {
		parts[i] = "tok "
	}
	script := mock.Deltas(parts...)
	req := &helikon.ModelRequest{Messages: helikon.UserText("hi")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m := wrap(mock.Scripted(script))
		for _, err := range m.Invoke(ctx, req) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkInvokeDirect(b *testing.B) {
	benchInvoke(b, func(m helikon.Model) helikon.Model { return m })
}

func BenchmarkInvokeRetrying(b *testing.B) {
	benchInvoke(b, func(m helikon.Model) helikon.Model { r, _ := retry.New(m); return r })
}

func BenchmarkInvokeRetryingLimited(b *testing.B) {
	l, _ := retry.NewLimiter(1_000_000_000, 1_000_000_000)
	benchInvoke(b, func(m helikon.Model) helikon.Model { r, _ := retry.New(m, retry.WithLimiter(l)); return r })
}
