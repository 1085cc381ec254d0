package sessiontest

import (
	"fmt"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/sessioncache"
)

// testIncrementalUnderConcurrentWriter pins incremental loading: a process
// that keeps the session's projection ([sessioncache.Cache]) and another
// handle on the same log (another process) appending between and during
// its loads. Every load sees a prefix of the other writer's events, in
// order, each once, and the load after the writer stops sees them all.
func testIncrementalUnderConcurrentWriter(t *testing.T, open func(t *testing.T, id string) helikon.Session) {
	id := UniqueID(t)
	cache, err := sessioncache.New()
	if err != nil {
		t.Fatal(err)
	}
	mine := cache.Wrap(id, open(t, id))
	other := open(t, id)
	mustAppend(t, mine, texts("mine 0")...)
	const batches = 40
	done := make(chan error, 1)
	go func() {
		defer close(done)
		for i := range batches {
			evs := texts(fmt.Sprintf("other %d a", i), fmt.Sprintf("other %d b", i))
			if err := other.Append(t.Context(), evs...); err != nil {
				done <- err
				return
			}
		}
	}()
	check := func(items []helikon.Item) int {
		t.Helper()
		if len(items) == 0 || items[0].Text() != "mine 0" {
			t.Fatalf("load lost the first event: %d items", len(items))
		}
		for i, it := range items[1:] {
			if want := fmt.Sprintf("other %d %c", i/2, 'a'+rune(i%2)); it.Text() != want {
				t.Fatalf("load: item %d = %q, want %q (order, duplicates or loss)", i+1, it.Text(), want)
			}
		}
		return len(items)
	}
	last := 0
	for running := true; running; {
		select {
		case err, ok := <-done:
			if ok && err != nil {
				t.Fatal(err)
			}
			running = false
		default:
		}
		items, err := mine.Snapshot(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		n := check(items)
		if n < last {
			t.Fatalf("a load saw %d items after one saw %d", n, last)
		}
		last = n
	}
	items, err := mine.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n := check(items); n != 1+2*batches {
		t.Fatalf("after the writer stopped the load holds %d items, want %d", n, 1+2*batches)
	}
	want := helikon.Project(mustEvents(t, other, helikon.Beginning))
	if d := diffJSON(want, items); d != "" {
		t.Fatalf("cached projection != Project(Events): %s", d)
	}
	if st := cache.Stats(); st.Hits == 0 {
		t.Fatalf("no load was incremental: %+v", st)
	}
}
