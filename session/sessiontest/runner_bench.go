package sessiontest

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/paigasus/helikon"
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
// Preparing the session (copying a template log of h runs, the warm
// process's previous run) is not timed, and its garbage is collected
// before the timed runs.
func BenchRunnerHistory(b *testing.B, st HistoryStore) {
	ctx := b.Context()
	events := s1Events(b)
	modes := []string{"cold", "warm"}
	if st.OpenSnapshotting != nil {
		modes = []string{"cold", "cold-snapshot", "warm"}
	}
	// Templates live as long as the whole benchmark: each sub-benchmark
	// function runs more than once (b.N probing, -count).
	outer := b
	type key struct {
		runs     int
		snapshot bool
	}
	templates := map[key]string{}
	template := func(b *testing.B, runs int, snapshot bool) string {
		if id, ok := templates[key{runs, snapshot}]; ok {
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
		templates[key{runs, snapshot}] = id
		outer.Cleanup(func() { _ = st.Drop(context.Background(), id) })
		return id
	}
	for _, mode := range modes {
		for _, h := range HistoryDepths {
			b.Run(fmt.Sprintf("%s/h=%d", mode, h), func(b *testing.B) {
				benchDepth(b, st, mode, h, template)
			})
		}
	}
}

// benchDepth is one sub-benchmark of [BenchRunnerHistory].
func benchDepth(b *testing.B, st HistoryStore, mode string, h int, template func(*testing.B, int, bool) string) {
	ctx := b.Context()
	r := runner.New()
	warm, snapshot := mode == "warm", mode == "cold-snapshot"
	open := st.Open
	if snapshot {
		open = st.OpenSnapshotting
	}
	wrap := func(_ string, s helikon.Session) helikon.Session { return s }
	if warm {
		cache, err := sessioncache.New()
		if err != nil {
			b.Fatal(err)
		}
		wrap = cache.Wrap
	}
	// A warm process served the session's previous run: the template
	// holds one run fewer and that run happens, untimed, in the process.
	prior := h
	if warm && h > 0 {
		prior = h - 1
	}
	var src string
	if prior > 0 {
		src = template(b, prior, snapshot)
	}
	var n int
	prepare := func() (string, helikon.Session) {
		n++
		id := fmt.Sprintf("%s-%d", UniqueID(b), n)
		if src != "" {
			if err := st.Clone(ctx, src, id); err != nil {
				b.Fatal(err)
			}
		}
		s := wrap(id, open(b, id))
		if warm && h > 0 {
			if err := s1Run(ctx, r, s); err != nil {
				b.Fatal(err)
			}
		}
		return id, s
	}
	var tH, t0 time.Duration
	odd := false
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		idH, sH := prepare()
		id0, s0 := prepare0(b, open, wrap, &n)
		// The preparation's garbage (a copied log, a warm-up load) is
		// not the measured runs' to collect.
		runtime.GC()
		b.StartTimer()
		runs := [2]func() time.Duration{
			func() time.Duration { return timed(b, ctx, r, sH) },
			func() time.Duration { return timed(b, ctx, r, s0) },
		}
		if odd {
			d0 := runs[1]()
			tH += runs[0]()
			t0 += d0
		} else {
			tH += runs[0]()
			t0 += runs[1]()
		}
		odd = !odd
		b.StopTimer()
		if err := st.Drop(ctx, idH); err != nil {
			b.Fatal(err)
		}
		if err := st.Drop(ctx, id0); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(tH.Nanoseconds())/float64(b.N), "ns-h/op")
	b.ReportMetric(float64(t0.Nanoseconds())/float64(b.N), "ns-h0/op")
	b.ReportMetric(float64(tH)/float64(t0), "x-h0")
}

func prepare0(b *testing.B, open func(testing.TB, string) helikon.Session, wrap func(string, helikon.Session) helikon.Session, n *int) (string, helikon.Session) {
	*n++
	id := fmt.Sprintf("%s-%d", UniqueID(b), *n)
	return id, wrap(id, open(b, id))
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
