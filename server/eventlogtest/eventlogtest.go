// Package eventlogtest is the conformance suite every [server.EventLog]
// passes: ordered replay from any position, live tails that end with the
// run and follow it across a pause, queued runs that take their turn or
// are cancelled while they wait, claims that only one caller wins (as
// running, or queued for the session's turn), unknown runs, cancellation,
// pruning and concurrent runs.
//
//	func TestLog_Conformance(t *testing.T) {
//		eventlogtest.Run(t, func(t *testing.T) server.EventLog { return server.NewMemoryLog() })
//	}
package eventlogtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paigasus/helikon/server"
)

// Run runs the suite; open returns a log for one subtest (it may be shared
// with other subtests: the suite uses fresh run ids).
func Run(t *testing.T, open func(t *testing.T) server.EventLog) {
	t.Run("ReplayFromAnyPosition", func(t *testing.T) { testReplay(t, open(t)) })
	t.Run("TailFollowsUntilFinish", func(t *testing.T) { testLiveTail(t, open(t)) })
	t.Run("PauseAndClaimOnce", func(t *testing.T) { testPause(t, open(t)) })
	t.Run("QueuedRunTakesItsTurn", func(t *testing.T) { testQueued(t, open(t)) })
	t.Run("QueuedRunCancelledWhileWaiting", func(t *testing.T) { testQueuedCancelled(t, open(t)) })
	t.Run("ClaimedQueuedTakesItsTurn", func(t *testing.T) { testClaimedQueued(t, open(t)) })
	t.Run("EndedRunRefusesWrites", func(t *testing.T) { testEnded(t, open(t)) })
	t.Run("UnknownRun", func(t *testing.T) { testUnknown(t, open(t)) })
	t.Run("DuplicateCreate", func(t *testing.T) { testDuplicate(t, open(t)) })
	t.Run("TailEndsWithContext", func(t *testing.T) { testCancel(t, open(t)) })
	t.Run("TailPastTheEndEndsWithTheRun", func(t *testing.T) { testPastTheEnd(t, open(t)) })
	t.Run("PruneByAgeAndCount", func(t *testing.T) { testPrune(t, open(t)) })
	t.Run("ConcurrentRuns", func(t *testing.T) { testConcurrent(t, open(t)) })
}

func newRun(t *testing.T, l server.EventLog) server.RunInfo {
	t.Helper()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
	if err := l.Create(context.Background(), info); err != nil {
		t.Fatal(err)
	}
	return info
}

func record(seq int64) server.Record {
	typ := "token_delta"
	data := `{"type":"token_delta","text":"` + strconv.FormatInt(seq, 10) + `"}`
	return server.Record{Seq: seq, Type: typ, Data: []byte(data)}
}

func appendN(t *testing.T, l server.EventLog, id string, from, to int64) {
	t.Helper()
	for i := from; i <= to; i++ {
		if err := l.Append(context.Background(), id, record(i)); err != nil {
			t.Fatal(err)
		}
	}
}

func finish(t *testing.T, l server.EventLog, info server.RunInfo, at time.Time) {
	t.Helper()
	info.Status, info.FinishedAt = server.StatusCompleted, &at
	info.Result = &server.RunOutput{FinalOutput: "done"}
	if err := l.Update(context.Background(), info); err != nil {
		t.Fatal(err)
	}
}

// collect drains a tail, checking positions are consecutive from after+1.
func collect(t *testing.T, l server.EventLog, ctx context.Context, id string, after int64) ([]server.Record, error) {
	t.Helper()
	var out []server.Record
	for batch, err := range l.Tail(ctx, id, after) {
		if err != nil {
			return out, err
		}
		for _, r := range batch {
			if want := after + int64(len(out)) + 1; r.Seq != want {
				return out, fmt.Errorf("record %d: want %d", r.Seq, want)
			}
			if string(r.Data) != string(record(r.Seq).Data) || r.Type != "token_delta" {
				return out, fmt.Errorf("record %d came back as %s %s", r.Seq, r.Type, r.Data)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

type tailResult struct {
	recs []server.Record
	err  error
}

// tailAsync collects the run's whole tail in a goroutine; the caller
// receives its result once the run has ended.
// pausedRun creates a run, appends its records 1 to n, starts a tail of
// it and pauses it at "p1" after record n.
func pausedRun(t *testing.T, l server.EventLog, n int64) (server.RunInfo, <-chan tailResult) {
	t.Helper()
	info := newRun(t, l)
	appendN(t, l, info.ID, 1, n)
	res := tailAsync(t, l, info.ID)
	paused := info
	paused.Status, paused.PauseID, paused.LastEvent = server.StatusPaused, "p1", n
	if err := l.Update(context.Background(), paused); err != nil {
		t.Fatal(err)
	}
	return info, res
}

func tailAsync(t *testing.T, l server.EventLog, id string) <-chan tailResult {
	res := make(chan tailResult, 1)
	go func() {
		recs, err := collect(t, l, context.Background(), id, 0)
		res <- tailResult{recs, err}
	}()
	return res
}

func testReplay(t *testing.T, l server.EventLog) {
	info := newRun(t, l)
	appendN(t, l, info.ID, 1, 20)
	finish(t, l, info, time.Now())
	for _, after := range []int64{0, 1, 19, 20} {
		got, err := collect(t, l, context.Background(), info.ID, after)
		if err != nil {
			t.Fatalf("after %d: %v", after, err)
		}
		if len(got) != int(20-after) {
			t.Fatalf("after %d: %d records, want %d", after, len(got), 20-after)
		}
	}
	got, err := l.Info(context.Background(), info.ID)
	if err != nil || got.Status != server.StatusCompleted || got.Result == nil || got.Result.FinalOutput != "done" {
		t.Fatalf("info = %+v, %v", got, err)
	}
}

func testLiveTail(t *testing.T, l server.EventLog) {
	info := newRun(t, l)
	appendN(t, l, info.ID, 1, 3)
	res := tailAsync(t, l, info.ID)
	time.Sleep(20 * time.Millisecond) // let the tail catch up and wait
	appendN(t, l, info.ID, 4, 50)
	finish(t, l, info, time.Now())
	r := <-res
	if r.err != nil || len(r.recs) != 50 {
		t.Fatalf("tail got %d records, %v; want 50", len(r.recs), r.err)
	}
}

func testPause(t *testing.T, l server.EventLog) {
	ctx := context.Background()
	info, res := pausedRun(t, l, 3)
	if got, err := l.Info(ctx, info.ID); err != nil || got.Status != server.StatusPaused || got.PauseID != "p1" {
		t.Fatalf("paused run reads %+v, %v", got, err)
	}
	if _, err := l.Claim(ctx, info.ID, "other", server.StatusRunning); !errors.Is(err, server.ErrNotPaused) {
		t.Fatalf("claim of another pause = %v, want ErrNotPaused", err)
	}
	const claimers = 8
	wins := make(chan server.RunInfo, claimers)
	var wg sync.WaitGroup
	for range claimers {
		wg.Go(func() {
			got, err := l.Claim(ctx, info.ID, "p1", server.StatusRunning)
			if err == nil {
				wins <- got
			} else if !errors.Is(err, server.ErrNotPaused) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	close(wins)
	if len(wins) != 1 {
		t.Fatalf("%d of %d concurrent claims won, want 1", len(wins), claimers)
	}
	if got := <-wins; got.Status != server.StatusRunning || got.LastEvent != 3 || got.PauseID != "" {
		t.Fatalf("claimed run = %+v", got)
	}
	// The continuation appends on; the tail that saw the pause sees it.
	appendN(t, l, info.ID, 4, 6)
	finish(t, l, info, time.Now())
	r := <-res
	if r.err != nil || len(r.recs) != 6 {
		t.Fatalf("a tail across the pause got %d records, %v; want 6", len(r.recs), r.err)
	}
}

// newQueuedRun creates a run waiting for its session's turn.
func newQueuedRun(t *testing.T, l server.EventLog) server.RunInfo {
	t.Helper()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", SessionID: "s", Status: server.StatusQueued, CreatedAt: time.Now().UTC()}
	if err := l.Create(context.Background(), info); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Info(context.Background(), info.ID); err != nil || got.Status != server.StatusQueued {
		t.Fatalf("a queued run reads %+v, %v", got, err)
	}
	return info
}

func testQueued(t *testing.T, l server.EventLog) {
	ctx := context.Background()
	info := newQueuedRun(t, l)
	res := tailAsync(t, l, info.ID) // a tail of the queued run follows it
	running := info
	running.Status = server.StatusRunning
	if err := l.Update(ctx, running); err != nil {
		t.Fatalf("queued to running: %v", err)
	}
	if got, err := l.Info(ctx, info.ID); err != nil || got.Status != server.StatusRunning {
		t.Fatalf("the run that took its turn reads %+v, %v", got, err)
	}
	appendN(t, l, info.ID, 1, 5)
	finish(t, l, running, time.Now())
	r := <-res
	if r.err != nil || len(r.recs) != 5 {
		t.Fatalf("a tail from the queue got %d records, %v; want 5", len(r.recs), r.err)
	}
	if got, _ := collect(t, l, ctx, info.ID, 0); len(got) != 5 {
		t.Fatalf("a replay got %d records, want 5", len(got))
	}
}

func testQueuedCancelled(t *testing.T, l server.EventLog) {
	ctx := context.Background()
	info := newQueuedRun(t, l)
	// The server ends a run cancelled in the queue with its run_failed.
	appendN(t, l, info.ID, 1, 1)
	at := time.Now()
	info.Status, info.FinishedAt, info.LastEvent = server.StatusCancelled, &at, 1
	if err := l.Update(ctx, info); err != nil {
		t.Fatal(err)
	}
	got, err := l.Info(ctx, info.ID)
	if err != nil || got.Status != server.StatusCancelled {
		t.Fatalf("the run cancelled in the queue reads %+v, %v", got, err)
	}
	if recs, err := collect(t, l, ctx, info.ID, 0); err != nil || len(recs) != 1 {
		t.Fatalf("its stream: %d records, %v; want 1", len(recs), err)
	}
}

// testClaimedQueued claims a paused run as queued, its continuation
// waiting for its session's turn: a claim as a status that is not live is
// refused and leaves the run paused, the queued claim reads queued, and
// the run takes its turn and appends on from its pause.
func testClaimedQueued(t *testing.T, l server.EventLog) {
	ctx := context.Background()
	info, res := pausedRun(t, l, 2)
	for _, st := range []server.RunStatus{server.StatusCompleted, server.StatusPaused, ""} {
		if _, err := l.Claim(ctx, info.ID, "p1", st); err == nil {
			t.Fatalf("a claim as %q succeeded", st)
		}
	}
	if got, err := l.Info(ctx, info.ID); err != nil || got.Status != server.StatusPaused || got.PauseID != "p1" {
		t.Fatalf("after the refused claims the run reads %+v, %v; want it paused at p1", got, err)
	}
	claimed, err := l.Claim(ctx, info.ID, "p1", server.StatusQueued)
	if err != nil || claimed.Status != server.StatusQueued || claimed.PauseID != "" || claimed.LastEvent != 2 {
		t.Fatalf("claimed queued: %+v, %v", claimed, err)
	}
	if got, err := l.Info(ctx, info.ID); err != nil || got.Status != server.StatusQueued {
		t.Fatalf("the run claimed queued reads %+v, %v", got, err)
	}
	if _, err := l.Claim(ctx, info.ID, "p1", server.StatusRunning); !errors.Is(err, server.ErrNotPaused) {
		t.Fatalf("a second claim = %v, want ErrNotPaused", err)
	}
	running := claimed
	running.Status = server.StatusRunning
	if err := l.Update(ctx, running); err != nil {
		t.Fatalf("queued to running: %v", err)
	}
	appendN(t, l, info.ID, 3, 4)
	finish(t, l, running, time.Now())
	r := <-res
	if r.err != nil || len(r.recs) != 4 {
		t.Fatalf("a tail across the queued claim got %d records, %v; want 4", len(r.recs), r.err)
	}
}

func testEnded(t *testing.T, l server.EventLog) {
	ctx := context.Background()
	info := newRun(t, l)
	appendN(t, l, info.ID, 1, 2)
	finish(t, l, info, time.Now())
	if err := l.Update(ctx, info); !errors.Is(err, server.ErrRunEnded) {
		t.Fatalf("Update after the end = %v, want ErrRunEnded", err)
	}
	if err := l.Append(ctx, info.ID, record(3)); err == nil {
		t.Fatal("Append after the end succeeded")
	}
	if _, err := l.Claim(ctx, info.ID, "", server.StatusRunning); !errors.Is(err, server.ErrNotPaused) {
		t.Fatalf("Claim after the end = %v, want ErrNotPaused", err)
	}
}

func testUnknown(t *testing.T, l server.EventLog) {
	if _, err := l.Info(context.Background(), uuid.NewString()); !errors.Is(err, server.ErrRunNotFound) {
		t.Fatalf("Info = %v, want ErrRunNotFound", err)
	}
	for _, err := range l.Tail(context.Background(), uuid.NewString(), 0) {
		if !errors.Is(err, server.ErrRunNotFound) {
			t.Fatalf("Tail = %v, want ErrRunNotFound", err)
		}
		return
	}
	t.Fatal("Tail of an unknown run yielded nothing")
}

func testDuplicate(t *testing.T, l server.EventLog) {
	info := newRun(t, l)
	if err := l.Create(context.Background(), info); !errors.Is(err, server.ErrRunExists) {
		t.Fatalf("second Create = %v, want ErrRunExists", err)
	}
}

func testCancel(t *testing.T, l server.EventLog) {
	info := newRun(t, l)
	appendN(t, l, info.ID, 1, 2)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := collect(t, l, ctx, info.ID, 0)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("tail ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tail did not end after its context was cancelled")
	}
}

// testPastTheEnd pins that a tail after a position a live run never
// reaches (a resume point no stream sent) ends once the run ends, without
// records: the log must not wait for records past the run's last.
func testPastTheEnd(t *testing.T, l server.EventLog) {
	info := newRun(t, l)
	appendN(t, l, info.ID, 1, 3)
	// The deadline only keeps a tail that never ends from hanging the
	// test.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := make(chan tailResult, 1)
	go func() {
		recs, err := collect(t, l, ctx, info.ID, math.MaxInt64)
		res <- tailResult{recs, err}
	}()
	info.LastEvent = 3
	finish(t, l, info, time.Now())
	if r := <-res; r.err != nil || len(r.recs) != 0 {
		t.Fatalf("a tail past the run's end: %d records, %v; want it to end with the run, with none", len(r.recs), r.err)
	}
}

func testPrune(t *testing.T, l server.EventLog) {
	ctx := context.Background()
	base := time.Now().Add(-time.Hour)
	var ids []string
	for i := range 5 {
		info := newRun(t, l)
		appendN(t, l, info.ID, 1, 2)
		finish(t, l, info, base.Add(time.Duration(i)*time.Minute))
		ids = append(ids, info.ID)
	}
	running := newRun(t, l)
	// Older than base+2m: the first two go.
	if _, err := l.Prune(ctx, base.Add(2*time.Minute), 0); err != nil {
		t.Fatal(err)
	}
	// Keep at most the newest two of all finished runs the log holds:
	// of ours, the last two survive.
	if _, err := l.Prune(ctx, base.Add(-time.Hour), 2); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		_, err := l.Info(ctx, id)
		if gone := errors.Is(err, server.ErrRunNotFound); gone != (i < 3) {
			t.Errorf("run %d: Info = %v; want pruned = %v", i, err, i < 3)
		}
	}
	if _, err := l.Info(ctx, running.ID); err != nil {
		t.Errorf("a running run was pruned: %v", err)
	}
}

func testConcurrent(t *testing.T, l server.EventLog) {
	const runs, records, tails = 8, 100, 3
	var wg sync.WaitGroup
	errs := make(chan error, runs*(tails+1))
	for range runs {
		info := newRun(t, l)
		for range tails {
			wg.Go(func() {
				got, err := collect(t, l, context.Background(), info.ID, 0)
				if err == nil && len(got) != records {
					err = fmt.Errorf("tail got %d records, want %d", len(got), records)
				}
				errs <- err
			})
		}
		wg.Go(func() {
			for i := int64(1); i <= records; i++ {
				if err := l.Append(context.Background(), info.ID, record(i)); err != nil {
					errs <- err
					return
				}
			}
			now := time.Now()
			info.Status, info.FinishedAt = server.StatusCompleted, &now
			errs <- l.Update(context.Background(), info)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
