package redislog_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/paigasus/helikon/internal/redistest"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/redislog"
)

func rec(seq int64) server.Record {
	return server.Record{Seq: seq, Type: "token_delta", Data: []byte(`{"type":"token_delta","text":"` + strconv.FormatInt(seq, 10) + `"}`)}
}

func create(t *testing.T, l *redislog.Log) server.RunInfo {
	t.Helper()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
	if err := l.Create(context.Background(), info); err != nil {
		t.Fatal(err)
	}
	return info
}

func finished(info server.RunInfo, last int64) server.RunInfo {
	now := time.Now().UTC()
	info.Status, info.FinishedAt, info.LastEvent = server.StatusCompleted, &now, last
	return info
}

// stream reads the run's records straight from Redis.
func stream(t *testing.T, client *redis.Client, prefix, runID string) []int64 {
	t.Helper()
	msgs, err := client.XRange(context.Background(), prefix+"run:{"+runID+"}:events", "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, m := range msgs {
		if _, end := m.Values["end"]; end {
			continue
		}
		seq, err := strconv.ParseInt(m.ID[:len(m.ID)-2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, seq)
	}
	return seqs
}

func TestLog_ATailOfADrivenRunSeesOnlyWhatRedisStored(t *testing.T) {
	prefix := testPrefix()
	l := openLog(t, prefix)
	client := testClient(t)
	info := create(t, l)
	const n = 200
	done := make(chan error, 1)
	go func() {
		for i := int64(1); i <= n; i++ {
			if err := l.Append(context.Background(), info.ID, rec(i)); err != nil {
				done <- err
				return
			}
		}
		done <- l.Update(context.Background(), finished(info, n))
	}()
	var seen int64
	for batch, err := range l.Tail(context.Background(), info.ID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		// Every record this replica's tail yields is already in Redis,
		// where any replica reads it.
		inRedis := stream(t, client, prefix, info.ID)
		for _, r := range batch {
			if seen++; r.Seq != seen {
				t.Fatalf("record %d where %d was due", r.Seq, seen)
			}
			if int64(len(inRedis)) < r.Seq {
				t.Fatalf("the tail yielded record %d while Redis held %d records", r.Seq, len(inRedis))
			}
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if seen != n {
		t.Fatalf("the tail saw %d records, want %d", seen, n)
	}
}

func TestLog_QueuedRecordsLandWhenTheWritersContextEnds(t *testing.T) {
	prefix := testPrefix()
	writer, reader := openLog(t, prefix), openLog(t, prefix)
	info := create(t, writer)
	ctx, cancel := context.WithCancel(context.Background())
	for i := int64(1); i <= 50; i++ {
		if err := writer.Append(ctx, info.ID, rec(i)); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := writer.Update(context.Background(), finished(info, 50)); err != nil {
		t.Fatal(err)
	}
	var got int
	for batch, err := range reader.Tail(context.Background(), info.ID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		got += len(batch)
	}
	if got != 50 {
		t.Fatalf("another replica read %d records, want the 50 appended before the cancel", got)
	}
}

func TestLog_CloseSendsWhatIsQueuedBeforeReleasingTheLease(t *testing.T) {
	prefix := testPrefix()
	client := testClient(t)
	other := openLog(t, prefix)
	ignore := goleak.IgnoreCurrent()
	closing, err := redislog.New(context.Background(), client, redislog.WithPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	info := create(t, closing)
	for i := int64(1); i <= 100; i++ {
		if err := closing.Append(context.Background(), info.ID, rec(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := closing.Close(); err != nil {
		t.Fatal(err)
	}
	goleak.VerifyNone(t, ignore)
	if err := closing.Append(context.Background(), info.ID, rec(101)); !errors.Is(err, redislog.ErrClosed) {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
	if err := closing.Update(context.Background(), finished(info, 100)); !errors.Is(err, redislog.ErrClosed) {
		t.Fatalf("Update after Close = %v, want ErrClosed", err)
	}
	// The replica is gone: its run reads interrupted, after all 100
	// records, with the synthetic run_failed as 101.
	got, err := other.Info(context.Background(), info.ID)
	if err != nil || got.Status != server.StatusInterrupted || got.LastEvent != 101 {
		t.Fatalf("after Close the run reads %+v, %v; want interrupted at 101", got, err)
	}
	if seqs := stream(t, client, prefix, info.ID); len(seqs) != 101 {
		t.Fatalf("Redis holds %d records, want 100 and the synthetic one", len(seqs))
	}
}

func TestLog_AppendOutOfOrderIsRefusedAtOnce(t *testing.T) {
	l := openLog(t, testPrefix())
	info := create(t, l)
	ctx := context.Background()
	if err := l.Append(ctx, info.ID, rec(1)); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int64{1, 3} {
		if err := l.Append(ctx, info.ID, rec(seq)); err == nil {
			t.Fatalf("record %d after 1 was accepted", seq)
		}
	}
	if err := l.Append(ctx, info.ID, rec(2)); err != nil {
		t.Fatalf("the next record after refusals: %v", err)
	}
}

func TestLog_RedisDyingMidRunLosesNothingSilently(t *testing.T) {
	addr, kill := redistest.Private(t)
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: 1, DialTimeout: time.Second})
	defer client.Close()
	ignore := goleak.IgnoreCurrent()
	l, err := redislog.New(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	info := create(t, l)
	ctx := context.Background()
	// The tail follows the run from this replica's stored records.
	stored := make(chan int64, 64)
	tailErr := make(chan error, 1)
	go func() {
		defer close(stored)
		for batch, err := range l.Tail(ctx, info.ID, 0) {
			if err != nil {
				tailErr <- err
				return
			}
			for _, r := range batch {
				stored <- r.Seq
			}
		}
		tailErr <- nil
	}()
	for i := int64(1); i <= 3; i++ {
		if err := l.Append(ctx, info.ID, rec(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(1); i <= 3; i++ {
		if seq := <-stored; seq != i {
			t.Fatalf("stored %d, want %d", seq, i)
		}
	}

	kill() // Redis dies mid-run.
	accepted := int64(3)
	var appendErr error
	for i := int64(4); i <= 6; i++ {
		if appendErr = l.Append(ctx, info.ID, rec(i)); appendErr != nil {
			break
		}
		accepted = i
	}
	updateErr := l.Update(ctx, finished(info, accepted))
	// Whatever Append accepted and Redis did not store is named by a
	// typed error: the Update's, or an Append's.
	we, ok := errors.AsType[*redislog.WriteError](updateErr)
	if !ok {
		we, ok = errors.AsType[*redislog.WriteError](appendErr)
	}
	if !ok {
		t.Fatalf("Update = %v, Append = %v; want a *WriteError", updateErr, appendErr)
	}
	if updateErr == nil {
		t.Fatal("Update succeeded on a dead Redis")
	}
	if we.RunID != info.ID || (accepted > 3 && (we.From != 4 || we.To != accepted)) {
		t.Fatalf("WriteError %+v; want records 4 to %d of %s", we, accepted, info.ID)
	}
	if err := l.Append(ctx, info.ID, rec(accepted+1)); err == nil {
		t.Fatal("an Append after the failure was accepted")
	}
	// The tail saw 1-3 and then the failure, not a clean end.
	for seq := range stored {
		t.Fatalf("the tail yielded record %d, which Redis never stored", seq)
	}
	if err := <-tailErr; err == nil {
		t.Fatal("the tail ended cleanly although the run's last records were lost")
	}
	_ = l.Close()
	goleak.VerifyNone(t, ignore)
}
