package sessioncache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session/internal/eventcodec"
	"github.com/paigasus/helikon/session/sessioncache"
)

// stored is a read-only log kept as JSON, as a backend keeps it: every
// Events call decodes fresh events, so what a cache holds shares no
// memory with the log.
type stored struct {
	helikon.Session
	payloads [][]byte
}

func (s *stored) Events(_ context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	var evs []helikon.SessionEvent
	var dec eventcodec.Decoder // one per read, as the backends keep one
	for i := int(after) + 1; i < len(s.payloads); i++ {
		ev, err := dec.Decode(int64(i), s.payloads[i])
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// s1Log returns the stored log of runs S1 runs (one tool round, then the
// answer) through the default runner.
func s1Log(tb testing.TB, runs int) *stored {
	tool := helikon.MustTool("add", "Add two integers.",
		func(tc *helikon.ToolContext, in struct {
			A int `json:"a"`
			B int `json:"b"`
		}) (struct {
			Sum int `json:"sum"`
		}, error) {
			return struct {
				Sum int `json:"sum"`
			}{in.A + in.B}, nil
		})
	agent, err := helikon.NewAgent("calc", mock.New([]mock.Script{
		mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}),
		mock.Text("sum is 42"),
	}), helikon.WithTools(tool))
	if err != nil {
		tb.Fatal(err)
	}
	mem := helikon.NewMemorySession()
	if _, err := runner.New().Run(context.Background(), agent, helikon.NewRunContext(helikon.WithSession(mem)), helikon.UserText("what is 40+2?")); err != nil {
		tb.Fatal(err)
	}
	run, err := mem.Events(context.Background(), helikon.Beginning)
	if err != nil {
		tb.Fatal(err)
	}
	s := &stored{}
	for range runs {
		for _, ev := range run {
			data, err := json.Marshal(ev)
			if err != nil {
				tb.Fatal(err)
			}
			s.payloads = append(s.payloads, data)
		}
	}
	return s
}

// heapOf returns the live heap that load adds and keeps.
func heapOf(load func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	load()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// measureCached loads sessions copies of log into a fresh cache and
// returns the live heap per cached session and the cache's estimate.
func measureCached(tb testing.TB, log *stored, sessions int) (measured, estimated float64) {
	cache, err := sessioncache.New()
	if err != nil {
		tb.Fatal(err)
	}
	grown := heapOf(func() {
		for i := range sessions {
			if _, err := cache.Load(context.Background(), fmt.Sprint("s", i), log); err != nil {
				tb.Fatal(err)
			}
		}
	})
	runtime.KeepAlive(cache)
	return float64(grown) / float64(sessions), float64(cache.Stats().Bytes) / float64(sessions)
}

// The byte budget (WithMaxBytes) is only as good as the estimate: it must
// stay near what a cached session really holds.
func TestCache_ByteEstimateTracksTheLiveHeap(t *testing.T) {
	measured, estimated := measureCached(t, s1Log(t, 1000), 8)
	t.Logf("a cached 1,000-run S1 session: %.0f bytes live, %.0f estimated", measured, estimated)
	if ratio := estimated / measured; ratio < 0.5 || ratio > 2 {
		t.Fatalf("estimate %.0f bytes is %.2f× the %.0f bytes a cached session holds; want within 2×", estimated, ratio, measured)
	}
}

// The decoder's shared string chunks grow with a read, so a cached
// session of one run does not keep a 16 KiB chunk alive for its few
// hundred bytes of text.
func TestCache_ASmallSessionHoldsNoLargeDecoderChunk(t *testing.T) {
	measured, estimated := measureCached(t, s1Log(t, 1), 256)
	t.Logf("a cached 1-run S1 session: %.0f bytes live, %.0f estimated", measured, estimated)
	if measured > 4096 {
		t.Fatalf("a cached one-run session holds %.0f bytes; want under 4 KiB", measured)
	}
}

// BenchmarkCache_MemoryPerSession reports the live heap of a cached
// session of h earlier S1 runs (bytes/session) beside the cache's own
// estimate (estimated-bytes/session) and per projected message.
func BenchmarkCache_MemoryPerSession(b *testing.B) {
	for _, h := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("h=%d", h), func(b *testing.B) {
			log := s1Log(b, h)
			var measured, estimated float64
			for b.Loop() {
				measured, estimated = measureCached(b, log, 4)
			}
			items := float64(len(helikon.Project(mustEvents(b, log))))
			b.ReportMetric(measured, "bytes/session")
			b.ReportMetric(estimated, "estimated-bytes/session")
			b.ReportMetric(measured/items, "bytes/message")
		})
	}
}

func mustEvents(tb testing.TB, s helikon.Session) []helikon.SessionEvent {
	evs, err := s.Events(context.Background(), helikon.Beginning)
	if err != nil {
		tb.Fatal(err)
	}
	return evs
}
