package redislog

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/paigasus/helikon/server"
)

// A tail that wakes only once the run is both failed and released (Update
// came at once, Redis being found unreachable) must still end with what
// the failure says.
func TestLocalTail_ALossEndsTheTailEvenOnceTheRunIsReleased(t *testing.T) {
	lost := &WriteError{RunID: "r", From: 3, To: 5, Err: errors.New("dial tcp: connection refused")}
	ended := &WriteError{RunID: "r", From: 3, To: 5, Err: fmt.Errorf("%w: r is interrupted", server.ErrRunEnded)}
	for _, tc := range []struct {
		name    string
		failure error // nil: none
		toRedis bool  // the tail goes on in Redis rather than ending with failure
	}{
		{"records lost", lost, false},
		{"the run ended by another replica", ended, true},
		{"no failure", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &localRun{id: "r", waiters: map[chan struct{}]struct{}{}}
			r.stored([]server.Record{{Seq: 1}, {Seq: 2}}, false)
			if tc.failure != nil {
				_ = r.failed(nil, tc.failure)
			}
			r.stored(nil, true) // Update released the run
			after := int64(0)
			var got error
			goOn := r.tail(context.Background(), &after, func(_ []server.Record, err error) bool {
				if err != nil {
					got = err
				}
				return true
			})
			if after != 2 || goOn != tc.toRedis || (!tc.toRedis && !errors.Is(got, tc.failure)) {
				t.Fatalf("tail: after %d, goes on in Redis %v, error %v; want 2, %v, %v", after, goOn, got, tc.toRedis, tc.failure)
			}
		})
	}
}
