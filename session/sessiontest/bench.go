package sessiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// Baseline is the bare write a backend is compared with (an INSERT, an
// XADD): it stores one event's payload at position i, outside any session
// logic. A nil Baseline reports no comparison.
type Baseline func(ctx context.Context, i int, payload []byte) error

// BenchEvent is the event the benchmarks append: a user message of about
// 200 bytes of JSON, the size of a short chat turn.
func BenchEvent() helikon.SessionEvent {
	return session.UserMessage(helikon.TextPart{Text: "How much did I spend on dining last month, and am I on track for this month's budget?"})
}

// BenchAppend measures appends of batch events to s and reports events/s.
// With a baseline it also does one baseline write per event after each
// append, untimed by the benchmark but timed apart, and reports their time
// per op and the ratio append/baseline; interleaving the two keeps the
// ratio honest when the machine's load drifts during the run.
func BenchAppend(b *testing.B, s helikon.Session, batch int, baseline Baseline) {
	ctx := b.Context()
	evs := make([]helikon.SessionEvent, batch)
	for i := range evs {
		evs[i] = BenchEvent()
	}
	payload, err := json.Marshal(BenchEvent())
	if err != nil {
		b.Fatal(err)
	}
	var base time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Append(ctx, evs...); err != nil {
			b.Fatal(err)
		}
		if baseline == nil {
			continue
		}
		b.StopTimer()
		start := time.Now()
		for range batch {
			if err := baseline(ctx, n, payload); err != nil {
				b.Fatal(err)
			}
			n++
		}
		base += time.Since(start)
		b.StartTimer()
	}
	elapsed := b.Elapsed()
	b.ReportMetric(float64(b.N*batch)/elapsed.Seconds(), "events/s")
	if baseline != nil {
		b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "baseline-ns/op")
		b.ReportMetric(float64(elapsed)/float64(base), "x-baseline")
	}
}

// BenchSnapshot measures Snapshot of a log of n events that alternate user
// and assistant messages, appended to s first in batches of 100.
func BenchSnapshot(b *testing.B, s helikon.Session, n int) {
	ctx := b.Context()
	batch := make([]helikon.SessionEvent, 0, 100)
	for i := range n {
		if i%2 == 0 {
			batch = append(batch, BenchEvent())
		} else {
			batch = append(batch, session.AssistantMessage([]helikon.ContentPart{
				helikon.TextPart{Text: fmt.Sprintf("Answer %d: you spent $412.50 on dining, 82%% of the budget.", i)},
			}, "budget-assistant"))
		}
		if len(batch) == cap(batch) || i == n-1 {
			if err := s.Append(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		items, err := s.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(items) != n {
			b.Fatalf("Snapshot = %d items, want %d", len(items), n)
		}
	}
}

// BenchConcurrentWriters measures single-event appends by writers
// goroutines at once: each iteration, every writer makes perWriter appends
// to session(w). Pass a session func returning one session for all writers
// to measure contention on one log, or one per writer for distinct logs.
// It reports appends/s over all writers.
func BenchConcurrentWriters(b *testing.B, writers, perWriter int, session func(w int) helikon.Session) {
	ctx := b.Context()
	ev := BenchEvent()
	sessions := make([]helikon.Session, writers)
	for w := range sessions {
		sessions[w] = session(w)
	}
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w, s := range sessions {
			wg.Go(func() {
				for range perWriter {
					if err := s.Append(ctx, ev); err != nil {
						errs[w] = err
						return
					}
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*writers*perWriter)/b.Elapsed().Seconds(), "appends/s")
}
