package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

// BenchmarkCallStore_ObserveCall is one captured model call's cost to the
// run's loop at a conversation of n items of 1 KiB (a long tool loop's
// later turns): encoding, redaction, and marshalling the messages and the
// checkpoint. A run's calls cost the sum over its turns, quadratic in its
// length until the run's 8 MiB bound stops the capture.
func BenchmarkCallStore_ObserveCall(b *testing.B) {
	for _, n := range []int{10, 100, 500} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			conv := make([]helikon.Item, 0, n)
			for i := range n {
				conv = append(conv, helikon.UserText(fmt.Sprintf("%d %s", i, strings.Repeat("x", 1<<10)))...)
			}
			call := &helikon.ModelCall{Agent: "a", Model: "m", Turn: n,
				Request:    &helikon.ModelRequest{Messages: conv},
				Checkpoint: &helikon.Checkpoint{Agent: "a", State: helikon.CallingModel{}, Conversation: conv}}
			b.ReportAllocs()
			for b.Loop() {
				var st callStore // a fresh store: every call is kept
				st.observer("r", "alice", nil)(context.Background(), call)
			}
		})
	}
}
