package redislog_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/eventlogtest"
	"github.com/paigasus/helikon/server/redislog"
	"github.com/paigasus/helikon/session/sessiontest"
)

func testAddr() string {
	if a := os.Getenv("HELIKON_REDIS_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

var (
	clientOnce sync.Once
	shared     *redis.Client
	clientErr  error
)

func testClient(t testing.TB) *redis.Client {
	t.Helper()
	clientOnce.Do(func() {
		shared = redis.NewClient(&redis.Options{Addr: testAddr()})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		clientErr = shared.Ping(ctx).Err()
	})
	if clientErr != nil {
		sessiontest.Unreachable(t, "Redis not reachable at "+testAddr()+": start it with "+
			"`redis-server --daemonize yes --bind 127.0.0.1 --port 6379` ("+clientErr.Error()+")")
	}
	return shared
}

// openLog opens a log under a prefix of its own, removed when the test ends.
func openLog(t *testing.T, prefix string, opts ...redislog.Option) *redislog.Log {
	t.Helper()
	client := testClient(t)
	l, err := redislog.New(context.Background(), client, append([]redislog.Option{redislog.WithPrefix(prefix)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = l.Close()
		ctx := context.Background()
		keys, _ := client.Keys(ctx, prefix+"*").Result()
		if len(keys) > 0 {
			client.Del(ctx, keys...)
		}
	})
	return l
}

func testPrefix() string { return "helikon-test:" + uuid.NewString()[:8] + ":" }

func TestLog_Conformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) server.EventLog { return openLog(t, testPrefix()) })
}

func TestLog_OrphanedQueuedRunReadsInterrupted(t *testing.T) {
	prefix := testPrefix()
	dead := openLog(t, prefix, redislog.WithLease(100*time.Millisecond))
	live := openLog(t, prefix)
	ctx := context.Background()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", SessionID: "s", Status: server.StatusQueued, CreatedAt: time.Now().UTC()}
	if err := dead.Create(ctx, info); err != nil {
		t.Fatal(err)
	}
	if got, err := live.Info(ctx, info.ID); err != nil || got.Status != server.StatusQueued {
		t.Fatalf("while its replica lives: %+v, %v", got, err)
	}
	_ = dead.Close() // the replica dies while the run waits for its turn
	got, err := live.Info(ctx, info.ID)
	if err != nil || got.Status != server.StatusInterrupted || got.LastEvent != 1 {
		t.Fatalf("after its replica died: %+v, %v", got, err)
	}
}

func TestLog_OrphanedRunReadsInterrupted(t *testing.T) {
	prefix := testPrefix()
	dead := openLog(t, prefix, redislog.WithLease(100*time.Millisecond))
	live := openLog(t, prefix)
	ctx := context.Background()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
	if err := dead.Create(ctx, info); err != nil {
		t.Fatal(err)
	}
	if err := dead.Append(ctx, info.ID, server.Record{Seq: 1, Type: "run_started", Data: []byte(`{"type":"run_started","agent":"a"}`)}); err != nil {
		t.Fatal(err)
	}
	if got, err := live.Info(ctx, info.ID); err != nil || got.Status != server.StatusRunning {
		t.Fatalf("while its replica lives: %+v, %v", got, err)
	}
	_ = dead.Close() // the replica dies mid-run
	got, err := live.Info(ctx, info.ID)
	// The synthetic run_failed takes the next position, and the record
	// says it is the last.
	if err != nil || got.Status != server.StatusInterrupted || got.Error == nil || got.FinishedAt == nil || got.LastEvent != 2 {
		t.Fatalf("after its replica died: %+v, %v", got, err)
	}
	var recs []server.Record
	for batch, err := range live.Tail(ctx, info.ID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, batch...)
	}
	if len(recs) != 2 || recs[1].Type != "run_failed" || recs[1].Seq != 2 {
		t.Fatalf("stream = %+v; want run_started then a synthetic run_failed", recs)
	}
}

func TestLog_ATailPastTheEndOfAnOrphanedRunEnds(t *testing.T) {
	prefix := testPrefix()
	dead := openLog(t, prefix, redislog.WithLease(100*time.Millisecond))
	live := openLog(t, prefix)
	ctx := context.Background()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
	if err := dead.Create(ctx, info); err != nil {
		t.Fatal(err)
	}
	if err := dead.Append(ctx, info.ID, rec(1)); err != nil {
		t.Fatal(err)
	}
	// A client resumes the running run at a position no stream sent; the
	// deadline only keeps a tail that never ends from hanging the test.
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		for recs, err := range live.Tail(tctx, info.ID, math.MaxInt64) {
			if err == nil && len(recs) > 0 {
				err = fmt.Errorf("%d records past the end", len(recs))
			}
			if err != nil {
				ended <- err
				return
			}
		}
		ended <- nil
	}()
	_ = dead.Close() // the replica driving the run dies
	if err := <-ended; err != nil {
		t.Fatalf("the tail past the orphaned run's end: %v; want it to end once the run reads interrupted", err)
	}
	if got, err := live.Info(ctx, info.ID); err != nil || got.Status != server.StatusInterrupted {
		t.Fatalf("the run reads %+v, %v; want interrupted", got, err)
	}
}
