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

	// One run more than the store holds: a store without shares drops
	// alice's run for it. Each run is past the run bound (10 MiB), so
	// mallory's share (16 runs) is past its byte bound too.
	big := strings.Repeat("x", 1<<20)
	for i := range maxCapturedRuns + 1 {
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
	if got := st.list(fmt.Sprintf("mallory-%d", maxCapturedRuns)); !got.Captured || !got.Truncated {
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

// TestCallStore_CallsKeptArePrefixOfTheRuns: once a call is dropped for
// the run's byte bound, a later smaller call is not kept either, so that
// call i of the answer is the run's call i and "truncated" means the later
// ones are missing.
func TestCallStore_CallsKeptArePrefixOfTheRuns(t *testing.T) {
	var st callStore
	obs := st.observer("r", "alice", nil)
	call := func(text string) *helikon.ModelCall {
		return &helikon.ModelCall{Agent: "a", Model: "m", Request: &helikon.ModelRequest{Messages: helikon.UserText(text)}}
	}
	obs(context.Background(), call("first"))
	obs(context.Background(), call(strings.Repeat("x", maxCapturedRunBytes+1)))
	obs(context.Background(), call("third"))

	got := st.list("r")
	if !got.Truncated || len(got.Calls) != 1 {
		t.Fatalf("truncated %v with %d calls, want truncated with the first call only", got.Truncated, len(got.Calls))
	}
	if p, _ := got.Calls[0].Request.Messages[0].Content[0].(helikon.TextPart); p.Text != "first" {
		t.Errorf("call 0 is %+v, want the run's first call", got.Calls[0].Request.Messages)
	}
}
