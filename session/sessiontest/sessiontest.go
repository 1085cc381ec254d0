package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// The shape of the concurrent-writers check: writers goroutines each make
// appendsPerWriter calls of 1 to 5 events on one session.
const (
	writers          = 8
	appendsPerWriter = 200
)

var idCounter atomic.Int64

// UniqueID returns a session id no other call in this process returns and
// that is unlikely to collide with a concurrent test run against the same
// server: it carries the test name, the process start time and a counter.
func UniqueID(t testing.TB) string {
	name := strings.NewReplacer("/", ".", " ", "_").Replace(t.Name())
	return fmt.Sprintf("%s-%d-%d", name, startNanos, idCounter.Add(1))
}

var startNanos = time.Now().UnixNano()

// Run checks the [helikon.Session] contract on sessions from newSession,
// which must return an empty session each time it is called.
func Run(t *testing.T, newSession func(t *testing.T) helikon.Session) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, newSession(t)) })
	}
}

// RunStore runs [Run] on sessions that open fresh ids of one store, then
// checks that sessions with different ids never see each other's events.
// open must return the session with the given id, creating it if needed;
// calling it twice with one id returns two handles on the same log.
func RunStore(t *testing.T, open func(t *testing.T, id string) helikon.Session) {
	t.Helper()
	Run(t, func(t *testing.T) helikon.Session { return open(t, UniqueID(t)) })
	t.Run("IsolationBetweenIDs", func(t *testing.T) { testIsolation(t, open) })
	t.Run("TwoHandlesShareOneLog", func(t *testing.T) { testTwoHandles(t, open) })
	t.Run("IncrementalLoadUnderConcurrentWriter", func(t *testing.T) { testIncrementalUnderConcurrentWriter(t, open) })
}

var cases = []struct {
	name string
	run  func(t *testing.T, s helikon.Session)
}{
	{"EmptySessionReadsNothing", testEmpty},
	{"EveryEventKindRoundTripsWithNanosecondTimestamps", testRoundTrip},
	{"EventsAfterIsExclusive", testAfterExclusive},
	{"SequenceIDsContiguousFromZero", testContiguous},
	{"CallerSequenceIgnoredAndInputUntouched", testCallerSeqIgnored},
	{"ZeroTimeIsStamped", testZeroTime},
	{"EmptyAppendIsNoOp", testEmptyAppend},
	{"SnapshotEqualsProjectOfEvents", testSnapshot},
	{"CancelledContextPersistsNothing", testCancelled},
	{"ACancelDuringALongReadIsAllOrAnError", testCancelledMidRead},
	{"ConcurrentWritersNoGapNoDuplicateNoLoss", testConcurrent},
	{"InvalidToolArgumentsStoredLosslessly", testInvalidArgs},
	{"NULCharactersStoredLosslessly", testNUL},
}

// sampleTime has nanoseconds, which a store keeping microseconds would lose.
var sampleTime = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

// AllKinds returns one event of every kind, each with distinct nanosecond
// timestamps and every optional field set, for round-trip checks.
func AllKinds() []helikon.SessionEvent {
	evs := []helikon.SessionEvent{
		session.UserMessage(
			helikon.TextPart{Text: "héllo, wörld ✓ \"quoted\" <tag> \n newline"},
			helikon.ImagePart{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0}},
			helikon.ImagePart{URL: "https://example.com/a.png"},
		),
		session.AssistantMessage([]helikon.ContentPart{
			helikon.ReasoningPart{Text: "thinking", Signature: "sig", Data: "opaque", ID: "rs_1"},
			helikon.TextPart{Text: "let me look"},
			helikon.ToolUsePart{CallID: "call_1", Name: "lookup", Args: json.RawMessage(`{"q":"x","n":[1,2.5,true,null]}`)},
		}, "assistant-a"),
		session.ToolCalled("call_1", "lookup", json.RawMessage(`{"q":"x","nested":{"b":1,"a":2}}`)),
		session.ToolReturned("call_1", helikon.TextPart{Text: `{"total":42}`}),
		{Kind: helikon.KindToolReturned, CallID: "call_2", Name: "fail", IsError: true, Content: []helikon.ContentPart{
			helikon.ToolResultPart{CallID: "inner", Name: "n", IsError: true, Content: []helikon.ContentPart{helikon.TextPart{Text: "boom"}}},
		}},
		session.HandoffOccurred("triage", "billing"),
		session.Compacted("summary of the earlier talk", 5),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "after the summary"}}, "billing"),
		session.SystemMessage(helikon.TextPart{Text: "the account is on the Pro plan"}),
	}
	for i := range evs {
		evs[i].Time = sampleTime.Add(time.Duration(i) * 1001)
	}
	// A caller's zone must not shift the instant.
	evs[1].Time = evs[1].Time.In(time.FixedZone("IST", 5*3600+1800))
	return evs
}

func testEmpty(t *testing.T, s helikon.Session) {
	ctx := t.Context()
	evs, err := s.Events(ctx, helikon.Beginning)
	if err != nil {
		t.Fatalf("Events on an empty session: %v", err)
	}
	if len(evs) != 0 {
		t.Fatalf("Events on an empty session = %d events, want 0", len(evs))
	}
	items, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot on an empty session: %v", err)
	}
	if len(items) != 0 {
		t.Fatalf("Snapshot on an empty session = %d items, want 0", len(items))
	}
}

func testRoundTrip(t *testing.T, s helikon.Session) {
	want := AllKinds()
	mustAppend(t, s, want[:3]...)
	mustAppend(t, s, want[3:]...)
	got := mustEvents(t, s, helikon.Beginning)
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i := range want {
		want[i].Seq = helikon.SequenceID(i)
		if d := DiffEvent(want[i], got[i]); d != "" {
			t.Errorf("event %d (%s): %s", i, want[i].Kind, d)
		}
	}
}

func testAfterExclusive(t *testing.T, s helikon.Session) {
	mustAppend(t, s, texts("a", "b", "c", "d", "e")...)
	for _, tc := range []struct {
		after helikon.SequenceID
		want  []string
	}{
		{helikon.Beginning, []string{"a", "b", "c", "d", "e"}},
		{0, []string{"b", "c", "d", "e"}},
		{2, []string{"d", "e"}},
		{3, []string{"e"}},
		{4, nil},
		{100, nil},
		// The extremes a caller can pass: nothing follows the largest
		// position (after+1 overflows), and a position before Beginning
		// reads the whole log.
		{math.MaxInt64, nil},
		{math.MinInt64, []string{"a", "b", "c", "d", "e"}},
	} {
		got := mustEvents(t, s, tc.after)
		if g := textsOf(got); !reflect.DeepEqual(g, tc.want) {
			t.Errorf("Events(after %d) = %q, want %q", tc.after, g, tc.want)
		}
		for i, ev := range got {
			if want := max(tc.after, helikon.Beginning) + 1 + helikon.SequenceID(i); ev.Seq != want {
				t.Errorf("Events(after %d)[%d].Seq = %d, want %d", tc.after, i, ev.Seq, want)
			}
		}
	}
}

func testContiguous(t *testing.T, s helikon.Session) {
	mustAppend(t, s, texts("1")...)
	mustAppend(t, s, texts("2", "3", "4")...)
	mustAppend(t, s, texts("5")...)
	mustAppend(t, s, texts("6", "7")...)
	got := mustEvents(t, s, helikon.Beginning)
	checkContiguous(t, got, 7)
	if g, w := textsOf(got), []string{"1", "2", "3", "4", "5", "6", "7"}; !reflect.DeepEqual(g, w) {
		t.Fatalf("order = %q, want %q", g, w)
	}
}

func testCallerSeqIgnored(t *testing.T, s helikon.Session) {
	in := texts("x", "y")
	in[0].Seq, in[1].Seq = 41, 7
	mustAppend(t, s, in...)
	if in[0].Seq != 41 || in[1].Seq != 7 {
		t.Errorf("Append modified the caller's events: Seq = %d, %d", in[0].Seq, in[1].Seq)
	}
	checkContiguous(t, mustEvents(t, s, helikon.Beginning), 2)
}

func testZeroTime(t *testing.T, s helikon.Session) {
	before := time.Now()
	mustAppend(t, s, helikon.SessionEvent{Kind: helikon.KindUserMessage, Content: []helikon.ContentPart{helikon.TextPart{Text: "t"}}})
	got := mustEvents(t, s, helikon.Beginning)
	if len(got) != 1 {
		t.Fatalf("read %d events, want 1", len(got))
	}
	if ts := got[0].Time; ts.Before(before.Add(-time.Minute)) || ts.After(time.Now().Add(time.Minute)) {
		t.Fatalf("zero Time stored as %v, want the append time", ts)
	}
}

func testEmptyAppend(t *testing.T, s helikon.Session) {
	if err := s.Append(t.Context()); err != nil {
		t.Fatalf("Append with no events: %v", err)
	}
	mustAppend(t, s, texts("only")...)
	checkContiguous(t, mustEvents(t, s, helikon.Beginning), 1)
}

func testSnapshot(t *testing.T, s helikon.Session) {
	evs := AllKinds()
	// A second turn after the marker, with a tool round trip, so the
	// projection exercises grouping after a compaction too.
	evs = append(evs,
		session.UserMessage(helikon.TextPart{Text: "and then?"}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "checking"}}, "billing"),
		session.ToolCalled("c9", "t", json.RawMessage(`{}`)),
		session.ToolCalled("c10", "t", json.RawMessage(`{"k":1}`)),
		session.ToolReturned("c9", helikon.TextPart{Text: "1"}),
		session.ToolReturned("c10", helikon.TextPart{Text: "2"}),
	)
	mustAppend(t, s, evs...)
	got, err := s.Snapshot(t.Context())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	want := helikon.Project(mustEvents(t, s, helikon.Beginning))
	if d := diffJSON(want, got); d != "" {
		t.Fatalf("Snapshot != Project(Events): %s", d)
	}
	if len(got) == 0 {
		t.Fatal("Snapshot is empty")
	}
}

func testCancelled(t *testing.T, s helikon.Session) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := s.Append(ctx, texts("lost")...)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Append with a cancelled context = %v, want an error wrapping context.Canceled", err)
	}
	if got := mustEvents(t, s, helikon.Beginning); len(got) != 0 {
		t.Fatalf("a cancelled Append persisted %d events", len(got))
	}
	mustAppend(t, s, texts("kept")...)
	checkContiguous(t, mustEvents(t, s, helikon.Beginning), 1)
}

// testCancelledMidRead cancels reads of a log of several thousand events
// (several pages, batches and round trips on every backend) at moments
// spread over the read: each returns the whole log or an error matching
// context.Canceled, never a part of the log, and the session reads whole
// afterwards (no connection is left mid-reply for the next caller).
func testCancelledMidRead(t *testing.T, s helikon.Session) {
	const batches, perBatch = 30, 100
	batch := make([]string, perBatch)
	for i := range batch {
		batch[i] = fmt.Sprintf("event %d of a long log, long enough to fill pages and batches", i)
	}
	for range batches {
		mustAppend(t, s, texts(batch...)...)
	}
	const want = batches * perBatch
	reads := []struct {
		name string
		n    func(ctx context.Context) (int, error)
	}{
		{"Events", func(ctx context.Context) (int, error) {
			evs, err := s.Events(ctx, helikon.Beginning)
			return len(evs), err
		}},
		{"Snapshot", func(ctx context.Context) (int, error) {
			items, err := s.Snapshot(ctx)
			return len(items), err
		}},
	}
	outcomes := map[string]int{}
	check := func(name, when string, n int, err error) {
		switch {
		case err == nil && n == want:
			outcomes["whole"]++
		case err != nil && errors.Is(err, context.Canceled):
			outcomes["cancelled"]++
		case err == nil:
			t.Fatalf("%s cancelled %s returned %d of %d events and no error", name, when, n, want)
		default:
			t.Fatalf("%s cancelled %s = %v, want the whole log or an error matching context.Canceled", name, when, err)
		}
	}
	// At 40 moments of the wall clock, spread over a read.
	for step := range 40 {
		for _, read := range reads {
			ctx, cancel := context.WithCancel(t.Context())
			after := time.Duration(step) * 150 * time.Microsecond
			timer := time.AfterFunc(after, cancel)
			n, err := read.n(ctx)
			timer.Stop()
			cancel()
			check(read.name, fmt.Sprint("after ", after), n, err)
		}
	}
	timed := maps.Clone(outcomes)
	clear(outcomes)
	// At each of the first 40 points where the read looks at its context,
	// the same points in every run: the first look must be able to stop it.
	for look := 1; look <= 40; look++ {
		for _, read := range reads {
			ctx := newCountdownContext(look)
			n, err := read.n(ctx)
			ctx.cancel()
			check(read.name, fmt.Sprint("at its look number ", look, " at the context"), n, err)
		}
	}
	if outcomes["cancelled"] == 0 {
		t.Fatalf("no read stopped when its context was cancelled at one of its first 40 looks at it: %v", outcomes)
	}
	t.Logf("reads cancelled at 40 moments: %v; at 40 looks at the context: %v", timed, outcomes)
	checkContiguous(t, mustEvents(t, s, helikon.Beginning), want)
}

// countdownContext is cancelled at the nth look at it (a call of Done or
// Err), so that a read can be cancelled at each point where it checks,
// the same points in every run.
type countdownContext struct {
	context.Context
	mu   sync.Mutex
	left int
	done chan struct{}
}

func newCountdownContext(n int) *countdownContext {
	return &countdownContext{Context: context.Background(), left: n, done: make(chan struct{})}
}

// look counts a look and reports whether the context is cancelled.
func (c *countdownContext) look() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left > 0 {
		if c.left--; c.left == 0 {
			close(c.done)
		}
	}
	return c.left == 0
}

// cancel cancels the context if no look has yet.
func (c *countdownContext) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left > 0 {
		c.left = 0
		close(c.done)
	}
}

func (c *countdownContext) Done() <-chan struct{} {
	c.look()
	return c.done
}

func (c *countdownContext) Err() error {
	if c.look() {
		return context.Canceled
	}
	return nil
}

func testConcurrent(t *testing.T, s helikon.Session) {
	// batches[w][a] is the size of writer w's a-th append.
	batches := make([][]int, writers)
	total := 0
	for w := range batches {
		r := rand.New(rand.NewPCG(uint64(w), 42))
		batches[w] = make([]int, appendsPerWriter)
		for a := range batches[w] {
			batches[w][a] = 1 + r.IntN(5)
			total += batches[w][a]
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for a, n := range batches[w] {
				evs := make([]helikon.SessionEvent, n)
				for e := range evs {
					evs[e] = session.UserMessage(helikon.TextPart{Text: fmt.Sprintf("w%d/a%d/e%d", w, a, e)})
				}
				if err := s.Append(t.Context(), evs...); err != nil {
					errs <- fmt.Errorf("writer %d append %d: %w", w, a, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	got := mustEvents(t, s, helikon.Beginning)
	checkContiguous(t, got, total)
	seen := make(map[string]int, total)
	for i, ev := range got {
		text := textsOf([]helikon.SessionEvent{ev})[0]
		if j, dup := seen[text]; dup {
			t.Fatalf("event %q stored twice, at %d and %d", text, j, i)
		}
		seen[text] = i
	}
	for w, sizes := range batches {
		last := -1
		for a, n := range sizes {
			first := seen[fmt.Sprintf("w%d/a%d/e0", w, a)]
			for e := range n {
				key := fmt.Sprintf("w%d/a%d/e%d", w, a, e)
				at, ok := seen[key]
				if !ok {
					t.Fatalf("event %q lost", key)
				}
				if at != first+e {
					t.Fatalf("batch w%d/a%d interleaved: event %d at %d, want %d", w, a, e, at, first+e)
				}
			}
			if first <= last {
				t.Fatalf("writer %d: append %d stored before its previous append", w, a)
			}
			last = first
		}
	}
}

func testIsolation(t *testing.T, open func(t *testing.T, id string) helikon.Session) {
	base := UniqueID(t)
	// Ids that are prefixes of each other or hold separators must still
	// name distinct logs.
	ids := []string{base, base + "-2", base + ":events", base + "}{x", base + " ünïcode"}
	sessions := make([]helikon.Session, len(ids))
	for i, id := range ids {
		sessions[i] = open(t, id)
	}
	for i, s := range sessions {
		for j := 0; j <= i; j++ {
			mustAppend(t, s, texts(fmt.Sprintf("%d/%d", i, j))...)
		}
	}
	for i, s := range sessions {
		got := mustEvents(t, s, helikon.Beginning)
		checkContiguous(t, got, i+1)
		for _, text := range textsOf(got) {
			if !strings.HasPrefix(text, fmt.Sprintf("%d/", i)) {
				t.Errorf("session %q sees %q, written to another session", ids[i], text)
			}
		}
	}
}

func testTwoHandles(t *testing.T, open func(t *testing.T, id string) helikon.Session) {
	id := UniqueID(t)
	a, b := open(t, id), open(t, id)
	mustAppend(t, a, texts("from a")...)
	mustAppend(t, b, texts("from b")...)
	for _, s := range []helikon.Session{a, b} {
		got := mustEvents(t, s, helikon.Beginning)
		checkContiguous(t, got, 2)
		if g, w := textsOf(got), []string{"from a", "from b"}; !reflect.DeepEqual(g, w) {
			t.Fatalf("log = %q, want %q", g, w)
		}
	}
}

func mustAppend(t *testing.T, s helikon.Session, evs ...helikon.SessionEvent) {
	t.Helper()
	if err := s.Append(t.Context(), evs...); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

func mustEvents(t *testing.T, s helikon.Session, after helikon.SequenceID) []helikon.SessionEvent {
	t.Helper()
	evs, err := s.Events(t.Context(), after)
	if err != nil {
		t.Fatalf("Events(after %d): %v", after, err)
	}
	return evs
}

func checkContiguous(t *testing.T, evs []helikon.SessionEvent, want int) {
	t.Helper()
	if len(evs) != want {
		t.Fatalf("log holds %d events, want %d", len(evs), want)
	}
	for i, ev := range evs {
		if ev.Seq != helikon.SequenceID(i) {
			t.Fatalf("event %d has Seq %d, want %d", i, ev.Seq, i)
		}
	}
}

func texts(ss ...string) []helikon.SessionEvent {
	out := make([]helikon.SessionEvent, len(ss))
	for i, s := range ss {
		out[i] = session.UserMessage(helikon.TextPart{Text: s})
	}
	return out
}

func textsOf(evs []helikon.SessionEvent) []string {
	var out []string
	for _, ev := range evs {
		var b strings.Builder
		for _, p := range ev.Content {
			if tp, ok := p.(helikon.TextPart); ok {
				b.WriteString(tp.Text)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// DiffEvent describes how got differs from want, or returns "" when they are
// the same event. Times compare with [time.Time.Equal] (to the nanosecond,
// in any zone) and JSON arguments compare as JSON values, since a JSONB
// store may reorder object keys.
func DiffEvent(want, got helikon.SessionEvent) string {
	var diffs []string
	if want.Seq != got.Seq {
		diffs = append(diffs, fmt.Sprintf("Seq = %d, want %d", got.Seq, want.Seq))
	}
	if !want.Time.Equal(got.Time) {
		diffs = append(diffs, fmt.Sprintf("Time = %s, want %s", got.Time.Format(time.RFC3339Nano), want.Time.Format(time.RFC3339Nano)))
	}
	want.Time, got.Time = time.Time{}, time.Time{}
	if d := diffJSON(want, got); d != "" {
		diffs = append(diffs, d)
	}
	return strings.Join(diffs, "; ")
}

// diffJSON compares two values by their JSON encodings decoded as generic
// values, so key order inside raw JSON does not matter.
func diffJSON(want, got any) string {
	w, err := generic(want)
	if err != nil {
		return err.Error()
	}
	g, err := generic(got)
	if err != nil {
		return err.Error()
	}
	if reflect.DeepEqual(w, g) {
		return ""
	}
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	return fmt.Sprintf("got %s, want %s", gj, wj)
}

func generic(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("unmarshal: %w", err)
	}
	return out, nil
}
