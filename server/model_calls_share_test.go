package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

// TestCallStore_OnePrincipalsCapturesNeverEvictAnothers pins the store's
// fairness: a principal starting many captured runs, each as large as a
// run may be, pushes out and truncates its own captures only, and the
// store as a whole stays within its byte bound.
func TestCallStore_OnePrincipalsCapturesNeverEvictAnothers(t *testing.T) {
	var st callStore
	call := func(text string) *helikon.ModelCall {
		return &helikon.ModelCall{Agent: "a", Model: "m", Request: &helikon.ModelRequest{Messages: helikon.UserText(text)}}
	}
	st.observer("alice-1", "alice", nil)(context.Background(), call("alice's question"))

	big := strings.Repeat("x", 1<<20)
	for i := range 3 * maxCapturedRuns {
		obs := st.observer(fmt.Sprintf("mallory-%d", i), "mallory", nil)
		for range 10 {
			obs(context.Background(), call(big))
		}
	}

	if got := st.list("alice-1"); !got.Captured || len(got.Calls) != 1 {
		t.Fatalf("alice's capture after mallory's flood: %+v, want kept with its one call", got)
	}
	if n := st.owners["mallory"].runs; n > maxCapturedOwnerRuns {
		t.Errorf("mallory holds %d captured runs, want at most %d", n, maxCapturedOwnerRuns)
	}
	if st.owners["mallory"].bytes > maxCapturedOwnerBytes || st.bytes > maxCapturedBytes {
		t.Errorf("store holds %d bytes (mallory %d), bounds %d and %d", st.bytes, st.owners["mallory"].bytes, maxCapturedBytes, maxCapturedOwnerBytes)
	}
	if got := st.list(fmt.Sprintf("mallory-%d", 3*maxCapturedRuns-1)); !got.Captured || !got.Truncated {
		t.Errorf("mallory's newest run: captured %v truncated %v, want kept and truncated past its share", got.Captured, got.Truncated)
	}
}

// TestCallStore_AFullStoreMakesRoomAtTheCostOfItsLargestHolder: with
// every run slot taken, a newcomer's capture evicts a run of whoever holds
// the most, not the oldest run of anyone.
func TestCallStore_AFullStoreMakesRoomAtTheCostOfItsLargestHolder(t *testing.T) {
	var st callStore
	st.observer("alice-1", "alice", nil)
	for p := range maxCapturedRuns / maxCapturedOwnerRuns {
		for i := range maxCapturedOwnerRuns {
			if p == 0 && i == 0 {
				continue // alice-1 took this slot
			}
			st.observer(fmt.Sprintf("p%d-%d", p, i), fmt.Sprintf("p%d", p), nil)
		}
	}
	if len(st.order) != maxCapturedRuns {
		t.Fatalf("store holds %d runs, want it full at %d", len(st.order), maxCapturedRuns)
	}
	st.observer("carol-1", "carol", nil)
	if !st.kept("alice-1") || !st.kept("carol-1") {
		t.Fatalf("alice-1 kept %v, carol-1 kept %v: want both", st.kept("alice-1"), st.kept("carol-1"))
	}
	if len(st.order) != maxCapturedRuns {
		t.Errorf("store holds %d runs, want %d", len(st.order), maxCapturedRuns)
	}
}
