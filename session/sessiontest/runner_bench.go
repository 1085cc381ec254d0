package sessiontest

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/internal/cputime"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session/sessioncache"
)

// HistoryStore is what [BenchRunnerHistory] needs of a backend: sessions by
// id, a fast copy of one session's log under another id (so that every
// timed run sees exactly the history it is meant to), and a way to drop a
// log the benchmark is done with.
type HistoryStore struct {
	// Open returns a handle on the session id.
	Open func(tb testing.TB, id string) helikon.Session
	// Clone copies the log of from, whole, and its compacted snapshot if
	// it has one, to the empty session to.
	Clone func(ctx context.Context, from, to string) error
	// Drop deletes the log of id and its snapshot.
	Drop func(ctx context.Context, id string) error
	// OpenSnapshotting, when set, returns a handle on the session id that
	// keeps a compacted snapshot, and SaveSnapshot stores one of id.
	OpenSnapshotting func(tb testing.TB, id string) helikon.Session
	SaveSnapshot     func(ctx context.Context, id string) error
	// LegacyEvents, when set, reads the whole log of id as the backend did
	// before loads became incremental and one-pass: the same query, every
	// payload through the general decoder (the event's UnmarshalJSON).
	// The benchmarks measure it, projected with [helikon.Project], as
	// "before", side by side with today's load in the same iterations.
	LegacyEvents func(ctx context.Context, id string) ([]helikon.SessionEvent, error)
	// LegacyLayout, when set, rewrites the log of id as the backend
	// stored it before (where its layout has changed since), so that
	// LegacyEvents reads what the code it stands for read. The benchmarks
	// call it, untimed, on a copy of the history the "before" side loads.
	LegacyLayout func(ctx context.Context, id string) error
}

// legacySession is a session whose Snapshot loads as every backend did
// before issue 22: the whole log, decoded by the general decoder, then
// projected.
type legacySession struct {
	helikon.Session
	id     string
	events func(ctx context.Context, id string) ([]helikon.SessionEvent, error)
}

func (s legacySession) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	evs, err := s.events(ctx, s.id)
	if err != nil {
		return nil, err
	}
	return helikon.Project(evs), nil
}

// HistoryDepths are the histories [BenchRunnerHistory] measures: runs
// already in the session when the timed run starts.
var HistoryDepths = []int{0, 100, 1000}

// s1Tool is the S1 scenario's tool.
var s1Tool = helikon.MustTool("add", "Add two integers.",
	func(tc *helikon.ToolContext, in struct {
		A int `json:"a" jsonschema:"first addend"`
		B int `json:"b" jsonschema:"second addend"`
	}) (struct {
		Sum int `json:"sum"`
	}, error) {
		return struct {
			Sum int `json:"sum"`
		}{in.A + in.B}, nil
	},
	helikon.WithEffect(helikon.ReadOnly))

func s1Run(ctx context.Context, r *runner.Runner, s helikon.Session) error {
	agent, err := helikon.NewAgent("calc", mock.New([]mock.Script{
		mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}),
		mock.Text("sum is 42"),
	}), helikon.WithTools(s1Tool))
	if err != nil {
		return err
	}
	res, err := r.Run(ctx, agent, helikon.NewRunContext(helikon.WithSession(s)), helikon.UserText("what is 40+2?"))
	if err != nil {
		return err
	}
	if res.FinalOutput != "sum is 42" {
		return fmt.Errorf("final output %q, want %q", res.FinalOutput, "sum is 42")
	}
	return nil
}

// BenchRunnerHistory measures the S1 scenario (one tool round, then the
// answer) through the default runner on a session that already holds h
// earlier S1 runs, for each h of [HistoryDepths]: cold (a process that has
// not seen the session: a full load of the log), cold-snapshot (the same
// from a compacted snapshot taken at the end of the h runs, when the store
// has OpenSnapshotting) and warm (a process that served the session's
// previous run and keeps its projection in a [sessioncache.Cache]).
//
// Every iteration times one run at depth h and one on an empty session
// (h=0), in alternating order, and reports both (ns-h/op, ns-h0/op) and
// their ratio (x-h0), so load drift on a shared machine hits both alike.
// With LegacyEvents, cold-vs-before/h=N pairs a cold run at depth N with
// one whose load is the pre-issue-22 path on the same history (in the
// store's earlier layout, with LegacyLayout) and reports
// ns-after/op, ns-before/op and speedup (before over after).
// Preparing the session (copying a template log of h runs, the warm
// process's previous run) is not timed, and its garbage is collected
// before the timed runs.
func BenchRunnerHistory(b *testing.B, st HistoryStore) {
	events := s1Events(b)
	modes := []string{"cold", "warm"}
	if st.OpenSnapshotting != nil {
		modes = []string{"cold", "cold-snapshot", "warm"}
	}
	template := templates(b, st, events)
	for _, mode := range modes {
		for _, h := range HistoryDepths {
			b.Run(fmt.Sprintf("%s/h=%d", mode, h), func(b *testing.B) {
				open := st.Open
				if mode == "cold-snapshot" {
					open = st.OpenSnapshotting
				}
				warm := mode == "warm"
				hs := side{open: open, h: h, snapshot: mode == "cold-snapshot"}
				h0 := side{open: open}
				benchPair(b, st, warm, hs, h0, template, "ns-h/op", "ns-h0/op", "x-h0")
			})
		}
	}
	if st.LegacyEvents == nil {
		return
	}
	legacy := func(tb testing.TB, id string) helikon.Session {
		return legacySession{Session: st.Open(tb, id), id: id, events: st.LegacyEvents}
	}
	for _, h := range HistoryDepths[1:] {
		b.Run(fmt.Sprintf("cold-vs-before/h=%d", h), func(b *testing.B) {
			after := side{open: st.Open, h: h}
			before := side{open: legacy, h: h, legacy: true}
			benchPair(b, st, false, after, before, template, "ns-after/op", "ns-before/op", "speedup")
		})
	}
}

// templateFunc returns the id of a session holding runs S1 runs (and a
// snapshot at its end if asked), creating it the first time.
type templateFunc func(b *testing.B, runs int, snapshot bool) string

// templates returns the template maker of a benchmark. Templates live as
// long as the whole benchmark: each sub-benchmark function runs more than
// once (b.N probing, -count).
func templates(outer *testing.B, st HistoryStore, events []helikon.SessionEvent) templateFunc {
	type key struct {
		runs     int
		snapshot bool
	}
	made := map[key]string{}
	return func(b *testing.B, runs int, snapshot bool) string {
		ctx := b.Context()
		if id, ok := made[key{runs, snapshot}]; ok {
			return id
		}
		id := UniqueID(outer) + fmt.Sprintf("-template-%d-%t", runs, snapshot)
		s := st.Open(b, id)
		batch := make([]helikon.SessionEvent, 0, 100*len(events))
		for i := range runs {
			batch = append(batch, events...)
			if len(batch) == cap(batch) || i == runs-1 {
				if err := s.Append(ctx, batch...); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		if snapshot {
			if err := st.SaveSnapshot(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
		made[key{runs, snapshot}] = id
		outer.Cleanup(func() { _ = st.Drop(context.Background(), id) })
		return id
	}
}

// side is one of the two runs a paired iteration times: a session opened
// with open on a copy of a template of h runs.
type side struct {
	open     func(tb testing.TB, id string) helikon.Session
	h        int
	snapshot bool
	legacy   bool // the log in the store's earlier layout (LegacyLayout)
}

// benchPair times, in every iteration and in alternating order, one run on
// side a and one on side z, and reports their times per op under aName
// and zName and the ratio a/z under ratio. With warm, both sides run in a
// process that served the session's previous run.
func benchPair(b *testing.B, st HistoryStore, warm bool, a, z side, template templateFunc, aName, zName, ratio string) {
	ctx := b.Context()
	r := runner.New()
	wrap := func(_ string, s helikon.Session) helikon.Session { return s }
	if warm {
		cache, err := sessioncache.New()
		if err != nil {
			b.Fatal(err)
		}
		wrap = cache.Wrap
	}
	var n int
	prepareFor := func(sd side) func() (string, helikon.Session) {
		// A warm process served the session's previous run: the template
		// holds one run fewer and that run happens, untimed, in the process.
		prior := sd.h
		if warm && sd.h > 0 {
			prior = sd.h - 1
		}
		var src string
		if prior > 0 {
			src = template(b, prior, sd.snapshot)
		}
		return func() (string, helikon.Session) {
			n++
			id := fmt.Sprintf("%s-%d", UniqueID(b), n)
			if src != "" {
				if err := st.Clone(ctx, src, id); err != nil {
					b.Fatal(err)
				}
				if sd.legacy && st.LegacyLayout != nil {
					if err := st.LegacyLayout(ctx, id); err != nil {
						b.Fatal(err)
					}
				}
			}
			s := wrap(id, sd.open(b, id))
			if warm && sd.h > 0 {
				if err := s1Run(ctx, r, s); err != nil {
					b.Fatal(err)
				}
			}
			return id, s
		}
	}
	prepA, prepZ := prepareFor(a), prepareFor(z)
	var tA, tZ time.Duration
	odd := false
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		idA, sA := prepA()
		idZ, sZ := prepZ()
		// The preparation's garbage (a copied log, a warm-up load) is
		// not the measured runs' to collect.
		runtime.GC()
		b.StartTimer()
		if odd {
			tZ += timed(b, ctx, r, sZ)
			tA += timed(b, ctx, r, sA)
		} else {
			tA += timed(b, ctx, r, sA)
			tZ += timed(b, ctx, r, sZ)
		}
		odd = !odd
		b.StopTimer()
		if err := st.Drop(ctx, idA); err != nil {
			b.Fatal(err)
		}
		if err := st.Drop(ctx, idZ); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(tA.Nanoseconds())/float64(b.N), aName)
	b.ReportMetric(float64(tZ.Nanoseconds())/float64(b.N), zName)
	if ratio == "speedup" {
		b.ReportMetric(float64(tZ)/float64(tA), ratio)
	} else {
		b.ReportMetric(float64(tA)/float64(tZ), ratio)
	}
}

// BenchLoadHistory measures the load alone, the part of a run that grew
// with the history: a cold process reading the projection of a session
// that holds h earlier S1 runs (h = 100 and 1000; cold and, when the store
// has OpenSnapshotting, cold-snapshot) against the pre-issue-22 load of the
// same log (LegacyEvents, then [helikon.Project], on a copy in the earlier
// layout when the store has LegacyLayout), paired in every
// iteration ([benchpair.Run]): ns-after/op, ns-before/op and x-after, the
// speed-up (before over after). allocs-after/op and allocs-before/op are
// each side's allocations, counted apart before the timed loop, and
// cpu-ns-after/op, cpu-ns-before/op and cpu-x-after (before over after)
// each side's CPU time in this process over 10 untimed calls (collection
// included, the server's share not): on a loaded machine wall time also
// counts the waits for a core and for the server, which both sides share.
func BenchLoadHistory(b *testing.B, st HistoryStore) {
	if st.LegacyEvents == nil {
		b.Skip("the store gives no LegacyEvents to compare with")
	}
	events := s1Events(b)
	perRun := len(helikon.Project(events))
	template := templates(b, st, events)
	modes := []string{"cold"}
	if st.OpenSnapshotting != nil {
		modes = append(modes, "cold-snapshot")
	}
	for _, mode := range modes {
		for _, h := range HistoryDepths[1:] {
			b.Run(fmt.Sprintf("%s/h=%d", mode, h), func(b *testing.B) {
				ctx := b.Context()
				snapshot := mode == "cold-snapshot"
				id := template(b, h, snapshot)
				open := st.Open
				if snapshot {
					open = st.OpenSnapshotting
				}
				s := open(b, id)
				want := perRun * h
				legacyID := id
				if st.LegacyLayout != nil {
					legacyID = UniqueID(b) + "-legacy"
					if err := st.Clone(ctx, id, legacyID); err != nil {
						b.Fatal(err)
					}
					if err := st.LegacyLayout(ctx, legacyID); err != nil {
						b.Fatal(err)
					}
					defer func() { _ = st.Drop(context.Background(), legacyID) }()
				}
				after := func() {
					items, err := s.Snapshot(ctx)
					if err != nil || len(items) != want {
						b.Fatalf("load: %d items, %v; want %d", len(items), err, want)
					}
				}
				before := func() {
					evs, err := st.LegacyEvents(ctx, legacyID)
					if err != nil {
						b.Fatal(err)
					}
					if items := helikon.Project(evs); len(items) != want {
						b.Fatalf("legacy load: %d items, want %d", len(items), want)
					}
				}
				allocsAfter := testing.AllocsPerRun(2, after)
				allocsBefore := testing.AllocsPerRun(2, before)
				cpuAfter, cpuBefore := cputime.PerCall(after, 10), cputime.PerCall(before, 10)
				benchpair.Run(b, "after", after, "before", before)
				b.ReportMetric(allocsAfter, "allocs-after/op")
				b.ReportMetric(allocsBefore, "allocs-before/op")
				if cpuAfter > 0 && cpuBefore > 0 {
					b.ReportMetric(cpuAfter, "cpu-ns-after/op")
					b.ReportMetric(cpuBefore, "cpu-ns-before/op")
					b.ReportMetric(cpuBefore/cpuAfter, "cpu-x-after")
				}
			})
		}
	}
}

func timed(b *testing.B, ctx context.Context, r *runner.Runner, s helikon.Session) time.Duration {
	start := time.Now()
	if err := s1Run(ctx, r, s); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// s1Events returns the session events one S1 run records.
func s1Events(b *testing.B) []helikon.SessionEvent {
	s := helikon.NewMemorySession()
	if err := s1Run(b.Context(), runner.New(), s); err != nil {
		b.Fatal(err)
	}
	evs, err := s.Events(b.Context(), helikon.Beginning)
	if err != nil {
		b.Fatal(err)
	}
	return evs
}
