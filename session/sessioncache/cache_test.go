package sessioncache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// probe is a MemorySession that records the positions Events reads after
// and can be told to return a gap once.
type probe struct {
	*helikon.MemorySession
	mu     sync.Mutex
	afters []helikon.SequenceID
	gap    bool
	fail   error
}

func (p *probe) Events(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	p.mu.Lock()
	p.afters = append(p.afters, after)
	gap, fail := p.gap, p.fail
	p.gap, p.fail = false, nil
	p.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	evs, err := p.MemorySession.Events(ctx, after)
	if gap && len(evs) > 1 {
		evs = evs[1:]
	}
	return evs, err
}

func newProbe(t *testing.T, texts ...string) *probe {
	p := &probe{MemorySession: helikon.NewMemorySession()}
	appendTexts(t, p, texts...)
	return p
}

func appendTexts(t *testing.T, s helikon.Session, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: text})); err != nil {
			t.Fatal(err)
		}
	}
}

func mustLoad(t *testing.T, c *Cache, key string, s helikon.Session) []helikon.Item {
	t.Helper()
	items, err := c.Load(t.Context(), key, s)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(items, helikon.Project(want)) && !(len(items) == 0 && len(want) == 0) {
		t.Fatalf("Load = %v, want Project of the log", items)
	}
	return items
}

func TestCache_SecondLoadReadsOnlyNewEvents(t *testing.T) {
	c, _ := New()
	s := newProbe(t, "a", "b")
	mustLoad(t, c, "k", s)
	appendTexts(t, s, "c")
	s.afters = nil
	mustLoad(t, c, "k", s)
	if want := helikon.SequenceID(1); len(s.afters) < 1 || s.afters[0] != want {
		t.Fatalf("second load read after %v, want after %d first", s.afters, want)
	}
	if st := c.Stats(); st.Hits != 1 || st.Misses != 1 || st.Sessions != 1 || st.Bytes <= 0 {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestCache_GapOrFailedReadFallsBackToFullLoad(t *testing.T) {
	for name, spoil := range map[string]func(*probe){
		"gap":         func(p *probe) { p.gap = true },
		"failed read": func(p *probe) { p.fail = errors.New("sequence lost") },
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := New()
			s := newProbe(t, "a")
			mustLoad(t, c, "k", s)
			appendTexts(t, s, "b", "c")
			spoil(s)
			mustLoad(t, c, "k", s)
			if st := c.Stats(); st.Gaps != 1 || st.Misses != 2 {
				t.Fatalf("Stats = %+v, want one gap and two full loads", st)
			}
		})
	}
}

func TestCache_FailedFullLoadReturnsTheErrorAndCachesNothing(t *testing.T) {
	c, _ := New()
	s := newProbe(t, "a")
	s.fail = errors.New("down")
	if _, err := c.Load(t.Context(), "k", s); err == nil {
		t.Fatal("Load on a failing session succeeded")
	}
	if st := c.Stats(); st.Sessions != 0 || st.Bytes != 0 {
		t.Fatalf("Stats after a failed load = %+v", st)
	}
}

func TestCache_EvictsLeastRecentlyUsedBeyondMaxSessions(t *testing.T) {
	c, _ := New(WithMaxSessions(2))
	a, b, d := newProbe(t, "a"), newProbe(t, "b"), newProbe(t, "d")
	mustLoad(t, c, "a", a)
	mustLoad(t, c, "b", b)
	mustLoad(t, c, "a", a) // a is now the most recent
	mustLoad(t, c, "d", d) // evicts b
	if st := c.Stats(); st.Sessions != 2 || st.Evictions != 1 {
		t.Fatalf("Stats = %+v", st)
	}
	mustLoad(t, c, "a", a)
	mustLoad(t, c, "b", b)
	if st := c.Stats(); st.Misses != 4 || st.Hits != 2 {
		t.Fatalf("a stayed cached and b was loaded again: Stats = %+v", st)
	}
}

func TestCache_MaxBytesBoundsTheEstimateAndSkipsOversizeSessions(t *testing.T) {
	c, _ := New(WithMaxBytes(1000))
	big := newProbe(t, string(make([]byte, 2000)))
	mustLoad(t, c, "big", big)
	if st := c.Stats(); st.Sessions != 0 || st.Bytes != 0 {
		t.Fatalf("a session over the whole budget was kept: %+v", st)
	}
	for i := range 10 {
		mustLoad(t, c, fmt.Sprint(i), newProbe(t, "short"))
		if st := c.Stats(); st.Bytes > 1000 {
			t.Fatalf("cache holds %d bytes, over its 1000", st.Bytes)
		}
	}
}

func TestCache_IdleSessionsAreForgotten(t *testing.T) {
	c, _ := New(WithIdleTimeout(time.Minute))
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return clock }
	mustLoad(t, c, "old", newProbe(t, "a"))
	clock = clock.Add(2 * time.Minute)
	mustLoad(t, c, "new", newProbe(t, "b"))
	if st := c.Stats(); st.Sessions != 1 || st.Evictions != 1 {
		t.Fatalf("Stats = %+v, want the idle session gone", st)
	}
}

func TestCache_InvalidateForcesAFullLoad(t *testing.T) {
	c, _ := New()
	s := newProbe(t, "a")
	mustLoad(t, c, "k", s)
	c.Invalidate("k")
	mustLoad(t, c, "k", s)
	if st := c.Stats(); st.Misses != 2 || st.Sessions != 1 {
		t.Fatalf("Stats = %+v", st)
	}
}

// Runs on one session load and append concurrently; every load is a
// consistent projection and the views handed out never change.
func TestCache_ConcurrentRunsOnOneSession(t *testing.T) {
	c, _ := New()
	s := helikon.NewMemorySession()
	w := c.Wrap("k", s)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				items, err := w.Snapshot(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				before := fmt.Sprint(items)
				if err := w.Append(context.Background(),
					session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: fmt.Sprint(g, i)}}, "a"),
					session.ToolCalled(fmt.Sprint(g, i), "t", nil)); err != nil {
					t.Error(err)
					return
				}
				if fmt.Sprint(items) != before {
					t.Error("a view changed after it was handed out")
					return
				}
			}
		})
	}
	wg.Wait()
	mustLoad(t, c, "k", s)
}

func TestNew_RejectsLimitsThatAreNotPositive(t *testing.T) {
	for _, o := range []Option{WithMaxSessions(0), WithMaxBytes(-1), WithIdleTimeout(0)} {
		if _, err := New(o); !errors.Is(err, ErrInvalidCache) {
			t.Errorf("New = %v, want ErrInvalidCache", err)
		}
	}
}

// TestCache_ACallerWritingWhatItLoadedChangesNothingCached pins the fail
// closed read: whatever a Snapshot caller does to the list it got (items
// overwritten, a content list rewritten, the order changed, the slice
// reused), the next load and a run on the session see the log's
// projection. Before, Snapshot handed out the cache's own list.
func TestCache_ACallerWritingWhatItLoadedChangesNothingCached(t *testing.T) {
	c, _ := New()
	s := newProbe(t, "first", "second", "third")
	w := c.Wrap("k", s)
	want := mustLoad(t, c, "k", s)
	wantCopy := append([]helikon.Item(nil), want...)
	got, err := w.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got[0] = helikon.SystemItem("injected")
	got[1].Content[0] = helikon.TextPart{Text: "rewritten"}
	got[2].Content = nil
	got[1], got[2] = got[2], got[1]
	_ = append(got[:1], helikon.UserText("reused")...)

	again, err := w.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, wantCopy) {
		t.Fatalf("after the caller's writes, Snapshot = %v, want %v", again, wantCopy)
	}
	shared, err := w.(interface {
		SharedSnapshot(context.Context) ([]helikon.Item, error)
	}).SharedSnapshot(t.Context())
	if err != nil || !reflect.DeepEqual(shared, wantCopy) {
		t.Fatalf("after the caller's writes, the shared list = %v, %v; want %v", shared, err, wantCopy)
	}
}

// TestCache_ViewSharesTheCachedList pins what the runner's read saves: two
// views of an unchanged session are one list, not two copies.
func TestCache_ViewSharesTheCachedList(t *testing.T) {
	c, _ := New()
	s := newProbe(t, "first", "second")
	a, err := c.View(t.Context(), "k", s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.View(t.Context(), "k", s)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 2 || &a[0] != &b[0] {
		t.Fatalf("views %p and %p of %d items: want one shared list", a, b, len(a))
	}
	l, err := c.Load(t.Context(), "k", s)
	if err != nil {
		t.Fatal(err)
	}
	if &l[0] == &a[0] || &l[0].Content[0] == &a[0].Content[0] {
		t.Fatal("Load handed out the cached list or its content lists")
	}
}
