package redislog

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon/internal/redistest"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/session/sessiontest"
)

// go-redis resends a pipeline whose reply it lost; the script must then
// find its own write, not refuse it.
func TestWriteScript_ABatchSentTwiceIsStoredOnce(t *testing.T) {
	addr := os.Getenv("HELIKON_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	client := redis.NewClient(&redis.Options{Addr: addr})
	defer client.Close()
	ctx := context.Background()
	if err := client.Ping(ctx).Err(); err != nil {
		sessiontest.Unreachable(t, "Redis not reachable at "+addr+": start it with "+
			"`redis-server --daemonize yes --bind 127.0.0.1 --port 6379` ("+err.Error()+")")
	}
	prefix := "helikon-test:" + uuid.NewString()[:8] + ":"
	l, err := New(ctx, client, WithPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = l.Close()
		if keys, _ := client.Keys(ctx, prefix+"*").Result(); len(keys) > 0 {
			client.Del(ctx, keys...)
		}
	}()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
	if err := l.Create(ctx, info); err != nil {
		t.Fatal(err)
	}
	recs := []server.Record{{Seq: 1, Type: "run_started", Data: []byte(`{"type":"run_started"}`)},
		{Seq: 2, Type: "run_completed", Data: []byte(`{"type":"run_completed"}`)}}
	now := time.Now()
	info.Status, info.FinishedAt = server.StatusCompleted, &now
	seq := l.nextStatusSeq()
	up := func() *update {
		return &update{data: []byte(`{"status":"completed"}`), status: server.StatusCompleted, at: now, seq: seq}
	}
	twice := func(recs []server.Record, up func() *update) {
		t.Helper()
		for i := range 2 {
			var u *update
			if up != nil {
				u = up()
			}
			if err := l.writeNow(ctx, info.ID, recs, u); err != nil {
				t.Fatalf("send %d: %v", i+1, err)
			}
		}
	}
	twice(recs[:1], nil)
	// A different record at a stored position is refused, named.
	other := []server.Record{{Seq: 1, Type: "run_failed", Data: []byte(`{"type":"run_failed"}`)}}
	err = l.writeNow(ctx, info.ID, other, nil)
	if we, ok := errors.AsType[*WriteError](err); !ok || we.From != 1 || we.To != 1 {
		t.Fatalf("a different record at a stored position: %v; want a WriteError for record 1", err)
	}
	twice(recs[1:], up)
	n, err := client.XLen(ctx, l.eventsKey(info.ID)).Result()
	if err != nil || n != 3 {
		t.Fatalf("the stream holds %d entries (%v), want the 2 records and one end marker", n, err)
	}
}

// A Redis that stops taking writes makes appends wait once the bound is
// queued, and a waiting append gives up with its context, unaccepted.
func TestQueue_AppendsWaitBeyondTheBoundAndGiveUpWithTheirContext(t *testing.T) {
	addr, _ := redistest.Private(t)
	client := redis.NewClient(&redis.Options{Addr: addr})
	defer client.Close()
	ctx := context.Background()
	l, err := New(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.maxQueued = 1024
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
	if err := l.Create(ctx, info); err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"type":"token_delta","text":"` + strings.Repeat("x", 600) + `"}`)
	rec := func(seq int64) server.Record { return server.Record{Seq: seq, Type: "token_delta", Data: data} }
	if err := client.Do(ctx, "CLIENT", "PAUSE", "5000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	for seq := int64(1); seq <= 2; seq++ {
		if err := l.Append(ctx, info.ID, rec(seq)); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := l.Append(short, info.ID, rec(3)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Append beyond the bound = %v, want it to wait and give up with its context", err)
	}
	if err := client.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	// The record it gave up on was not accepted: it is the next one.
	if err := l.Append(ctx, info.ID, rec(3)); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	info.Status, info.FinishedAt, info.LastEvent = server.StatusCompleted, &now, 3
	if err := l.Update(ctx, info); err != nil {
		t.Fatal(err)
	}
	if n, err := client.XLen(ctx, l.eventsKey(info.ID)).Result(); err != nil || n != 4 {
		t.Fatalf("the stream holds %d entries (%v), want 3 records and the end marker", n, err)
	}
}
