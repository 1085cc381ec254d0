package server_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/redistest"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/redislog"
	"github.com/paigasus/helikon/session/sessiontest"
)

// redisLog opens a Redis event log under prefix; Close is the test's
// business when it kills a replica, else cleanup does it.
func redisLog(t testing.TB, prefix string, opts ...redislog.Option) *redislog.Log {
	t.Helper()
	addr := os.Getenv("HELIKON_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	client := redis.NewClient(&redis.Options{Addr: addr})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		sessiontest.Unreachable(t, "Redis not reachable at "+addr+": start it with "+
			"`redis-server --daemonize yes --bind 127.0.0.1 --port 6379` ("+err.Error()+")")
	}
	l, err := redislog.New(ctx, client, append([]redislog.Option{redislog.WithPrefix(prefix)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = l.Close()
		keys, _ := client.Keys(context.Background(), prefix+"*").Result()
		if len(keys) > 0 {
			client.Del(context.Background(), keys...)
		}
		client.Close()
	})
	return l
}

func TestRedis_ReplayAndLastEventIDAcrossReplicas(t *testing.T) {
	prefix := "helikon-test:" + uuid.NewString()[:8] + ":"
	agent := newAgent(t, "slow", 20*time.Millisecond)
	_, a := start(t, []helikon.Agent{agent}, server.WithEventLog(redisLog(t, prefix)))
	_, b := start(t, []helikon.Agent{agent}, server.WithEventLog(redisLog(t, prefix)))

	// The run starts on replica A; its client drops after three events...
	resp := post(t, a.URL+"/agents/slow/runs?stream=sse", `{"input":"hi"}`)
	id := resp.Header.Get("X-Run-Id")
	var seen []frame
	for f := range frames(resp.Body) {
		if seen = append(seen, f); len(seen) == 3 {
			break
		}
	}
	resp.Body.Close()
	// ...and the load balancer sends its reconnect to replica B, which
	// replays from Last-Event-ID and follows the run A drives.
	resp = get(t, b.URL+"/agents/slow/runs/"+id+"/events", "Accept", "text/event-stream", "Last-Event-ID", seen[2].id)
	rest := readFrames(t, resp.Body)
	resp.Body.Close()
	// What B shows is the whole rest of that run, ending with its
	// terminal frame: run_failed when A noticed the drop and cancelled the
	// SSE run, or the completed run when it finished first (a loaded
	// machine can delay A's read of the closed connection past the run's
	// last delta).
	got := append(types(seen), types(rest)...)
	whole := got[len(got)-1] == "run_failed" || slices.Equal(got, greeterEvents)
	if len(rest) == 0 || rest[0].id != "4" || !slices.Equal(got[:3], greeterEvents[:3]) || !whole {
		t.Fatalf("seen on A then resumed on B: %v (first resumed id %v)", got, rest)
	}

	// An async run on A replays whole over B's WebSocket.
	acc := decode[server.RunAccepted](t, post(t, a.URL+"/agents/slow/runs?mode=async", `{"input":"hi"}`))
	events, status := readWebSocket(t, b.URL+"/agents/slow/runs/"+acc.RunID+"/events")
	if !slices.Equal(events, greeterEvents) || status != 1000 {
		t.Fatalf("B's WebSocket replay of A's run: %v, %v", events, status)
	}
	// The terminal event lands before the run's record is final.
	var info server.RunInfo
	waitFor(t, "A's run to be final on B", func() bool {
		info = runInfo(t, b.URL, "slow", acc.RunID)
		return info.Status.Final()
	})
	if info.Status != server.StatusCompleted || info.Result.FinalOutput != "Hello, world" {
		t.Fatalf("B reads A's run as %+v", info)
	}
}

func TestRedis_KilledServerLeavesNoRunRunningForever(t *testing.T) {
	prefix := "helikon-test:" + uuid.NewString()[:8] + ":"
	agent := newAgent(t, "stuck", time.Hour)
	// The first server process: its log holds a short lease it stops
	// renewing when the process dies.
	doomedLog := redisLog(t, prefix, redislog.WithLease(200*time.Millisecond))
	doomed, err := server.New([]helikon.Agent{agent}, server.WithEventLog(doomedLog))
	if err != nil {
		t.Fatal(err)
	}
	doomedURL := startOn(t, doomed)
	var ids []string
	for range 3 {
		ids = append(ids, decode[server.RunAccepted](t, post(t, doomedURL+"/agents/stuck/runs?mode=async", `{"input":"hi"}`)).RunID)
	}
	// The runs are stuck in their tool; wait until Redis holds their first
	// two events (appends are batched, and an async run's first events
	// may still be queued when its POST has been answered).
	for _, id := range ids {
		storedAtLeast(t, doomedLog, id, 2)
	}
	// kill -9: the lease is no longer renewed and nothing is flushed.
	// (Closing the log releases the lease as an expired one would; the
	// runs' goroutines are then stopped without writing to the log.)
	_ = doomedLog.Close()
	restarted := redisLog(t, prefix)
	_, ts := start(t, []helikon.Agent{agent}, server.WithEventLog(restarted))
	for _, id := range ids {
		info := runInfo(t, ts.URL, "stuck", id)
		if info.Status != server.StatusInterrupted || info.Error == nil || info.FinishedAt == nil {
			t.Fatalf("after the restart, run %s reads %+v", id, info)
		}
		resp := get(t, ts.URL+"/agents/stuck/runs/"+id+"/events", "Accept", "text/event-stream")
		fs := readFrames(t, resp.Body)
		resp.Body.Close()
		if got := types(fs); !slices.Equal(got, []string{"run_started", "turn_started", "run_failed"}) {
			t.Fatalf("the interrupted run's stream: %v", got)
		}
	}
	resp := get(t, ts.URL+"/agents", "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatal(resp.StatusCode)
	}
	// Let the doomed server's goroutines go (its log refuses them now).
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_ = doomed.Shutdown(ctx)
}

func TestRedis_RunsListsTheRunsOfEveryReplica(t *testing.T) {
	agent := newAgent(t, "greeter", 0)
	prefix := "helikon-test:" + uuid.NewString()[:8] + ":"
	_, a := start(t, []helikon.Agent{agent}, server.WithEventLog(redisLog(t, prefix)))
	_, b := start(t, []helikon.Agent{agent}, server.WithEventLog(redisLog(t, prefix)))
	first := decode[server.RunInfo](t, post(t, a.URL+"/agents/greeter/runs", `{"input":"on a"}`))
	second := decode[server.RunInfo](t, post(t, b.URL+"/agents/greeter/runs", `{"input":"on b"}`))
	resp := get(t, a.URL+"/runs")
	list := decode[server.RunList](t, resp)
	if resp.StatusCode != http.StatusOK || len(list.Runs) != 2 || list.Runs[0].ID != second.ID || list.Runs[1].ID != first.ID ||
		list.Runs[0].Input != "on b" || list.Runs[0].Status != server.StatusCompleted {
		t.Fatalf("GET /runs on replica a: %d %+v", resp.StatusCode, list.Runs)
	}
}

func TestRedis_RedisDyingMidRunEndsTheStreamWithTheLoss(t *testing.T) {
	addr, kill := redistest.Private(t)
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: 1, DialTimeout: time.Second})
	t.Cleanup(func() { client.Close() })
	sent := &redistest.Sent{}
	client.AddHook(sent)
	events, err := redislog.New(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = events.Close() })
	srv, ts := start(t, []helikon.Agent{newAgent(t, "slow", 300*time.Millisecond)}, server.WithEventLog(events))

	resp := post(t, ts.URL+"/agents/slow/runs?stream=sse", `{"input":"hi"}`)
	defer resp.Body.Close()
	var got []frame
	for f := range frames(resp.Body) {
		if got = append(got, f); len(got) == 2 {
			kill() // Redis dies mid-run.
		}
	}
	// The client is told, in a terminal frame, that the rest of the run
	// was not stored; it never sees a record Redis did not store.
	last := got[len(got)-1]
	if len(got) < 3 || last.event != "run_failed" || last.id != "" || !strings.Contains(last.data, "not stored") {
		t.Fatalf("frames after Redis died: %+v; want a synthetic run_failed naming the records not stored", got)
	}
	for i, f := range got[:len(got)-1] {
		if f.id != strconv.Itoa(i+1) {
			t.Fatalf("frame %d has id %q", i+1, f.id)
		}
	}
	// The batch that was lost found Redis unreachable: the shutdown
	// sends the run's status, and the log's close the lease's release,
	// to no dead Redis (each would wait out the client's dial retries).
	before := sent.Count()
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := events.Close(); !errors.Is(err, redislog.ErrUnavailable) {
		t.Fatalf("closing the log on a dead Redis: %v; want ErrUnavailable", err)
	}
	if n := sent.Count() - before; n != 0 {
		t.Fatalf("%d writes went to the dead Redis after the loss was reported", n)
	}
}

// storedAtLeast waits until log holds n records of run id: the log's own
// tail yields only what Redis has stored.
func storedAtLeast(t *testing.T, log server.EventLog, id string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	got := 0
	for recs, err := range log.Tail(ctx, id, 0) {
		if err != nil {
			t.Fatalf("run %s: %d records stored, want %d: %v", id, got, n, err)
		}
		if got += len(recs); got >= n {
			return
		}
	}
	t.Fatalf("run %s: its tail ended after %d records, want %d", id, got, n)
}

func TestRedis_AStreamResumedPastTheEndOfARunWhoseServerDiedEndsWithItsFailure(t *testing.T) {
	prefix := "helikon-test:" + uuid.NewString()[:8] + ":"
	agents := []helikon.Agent{newAgent(t, "stuck", time.Hour)}
	doomedLog := redisLog(t, prefix, redislog.WithLease(200*time.Millisecond))
	doomed, err := server.New(agents, server.WithEventLog(doomedLog))
	if err != nil {
		t.Fatal(err)
	}
	id := decode[server.RunAccepted](t, post(t, startOn(t, doomed)+"/agents/stuck/runs?mode=async", `{"input":"hi"}`)).RunID
	storedAtLeast(t, doomedLog, id, 2)
	_, ts := start(t, agents, server.WithEventLog(redisLog(t, prefix)))
	// A client resumes the running run on another replica at an id no
	// stream sent; the deadline only keeps a stream that never ends from
	// hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp := resumeSSE(t, ctx, ts.URL+"/agents/stuck/runs/"+id+"/events", 1<<63-1)
	defer resp.Body.Close()
	_ = doomedLog.Close() // the server driving the run dies (see above)
	fs := readFrames(t, resp.Body)
	if ctx.Err() != nil {
		t.Fatal("the stream past the end of the orphaned run never ended")
	}
	if len(fs) != 1 || fs[0].event != "run_failed" || fs[0].id != "" || !strings.Contains(fs[0].data, "stopped before the run ended") {
		t.Fatalf("the stream: %+v; want one run_failed, without an id, saying the run's server stopped", fs)
	}
	short, cancelShort := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancelShort()
	_ = doomed.Shutdown(short)
}
