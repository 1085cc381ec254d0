package server

import (
	"testing"
	"time"
)

// SetRelayWait shortens how long a relayed cancel waits for its run to
// end, for the rest of the test.
func SetRelayWait(t *testing.T, d time.Duration) {
	old := relayWait
	relayWait = d
	t.Cleanup(func() { relayWait = old })
}
