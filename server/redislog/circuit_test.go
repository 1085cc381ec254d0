package redislog_test

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon/internal/redistest"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/redislog"
)

func TestLog_WritesAfterRedisIsFoundUnreachableFailWithoutARoundTrip(t *testing.T) {
	addr, kill := redistest.Private(t)
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: 1, DialTimeout: time.Second})
	defer client.Close()
	sent := &redistest.Sent{}
	client.AddHook(sent)
	l, err := redislog.New(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	info := create(t, l)
	if err := l.Append(ctx, info.ID, rec(1)); err != nil {
		t.Fatal(err)
	}
	// The tail yields a record once Redis stored it, and ends with the
	// loss of a batch Redis did not.
	tailErr := make(chan error, 1)
	stored := make(chan struct{})
	go func() {
		for batch, err := range l.Tail(ctx, info.ID, 0) {
			if err != nil {
				tailErr <- err
				return
			}
			if slices.ContainsFunc(batch, func(r server.Record) bool { return r.Seq == 1 }) {
				close(stored)
			}
		}
		tailErr <- nil
	}()
	<-stored
	kill()
	if err := l.Append(ctx, info.ID, rec(2)); err != nil {
		t.Fatal(err) // queued: the loss shows once the batch fails
	}
	if _, ok := errors.AsType[*redislog.WriteError](<-tailErr); !ok {
		t.Fatal("the tail did not end with the loss of record 2")
	}
	// The batch that failed found Redis unreachable: no write after it
	// goes out, each fails at once saying why.
	before := sent.Count()
	other := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
	for _, tc := range []struct {
		name  string
		write func() error
		lost  bool // a *WriteError names what was not stored
	}{
		{"the status of the run that lost records", func() error { return l.Update(ctx, finished(info, 2)) }, true},
		{"a new run", func() error { return l.Create(ctx, other) }, false},
		{"a record of a run another replica drives", func() error { return l.Append(ctx, uuid.NewString(), rec(1)) }, true},
		{"the release of the lease", l.Close, false},
	} {
		err := tc.write()
		if !errors.Is(err, redislog.ErrUnavailable) {
			t.Errorf("%s: %v; want ErrUnavailable", tc.name, err)
		}
		if _, ok := errors.AsType[*redislog.WriteError](err); ok != tc.lost {
			t.Errorf("%s: %v; want a *WriteError: %v", tc.name, err, tc.lost)
		}
	}
	if n := sent.Count() - before; n != 0 {
		t.Fatalf("%d writes went to the Redis found unreachable", n)
	}
}

func TestLog_WritesResumeOnceRedisAnswersAgain(t *testing.T) {
	l, p, prefix := proxiedLog(t)
	ctx := context.Background()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}

	p.cut()
	if err := l.Create(ctx, info); err == nil || errors.Is(err, redislog.ErrUnavailable) {
		t.Fatalf("the first create with Redis cut off: %v; want the client's error", err)
	}
	if err := l.Create(ctx, info); !errors.Is(err, redislog.ErrUnavailable) {
		t.Fatalf("a create after Redis was found unreachable: %v; want ErrUnavailable", err)
	}
	p.restore(t)
	// A probe finds Redis back; writes go out again from then on.
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for err = l.Create(ctx, info); errors.Is(err, redislog.ErrUnavailable) && time.Now().Before(deadline); err = l.Create(ctx, info) {
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("create once Redis is back: %v", err)
	}
	for i := int64(1); i <= 3; i++ {
		if err := l.Append(ctx, info.ID, rec(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Update(ctx, finished(info, 3)); err != nil {
		t.Fatal(err)
	}
	if got := stream(t, testClient(t), prefix, info.ID); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("stored after Redis came back: %v", got)
	}
}

func TestLog_ReadsAfterRedisIsFoundUnreachableFailWithoutARoundTrip(t *testing.T) {
	sent := &redistest.Sent{}
	l, p, _ := proxiedLog(t, sent)
	ctx := context.Background()
	info := create(t, l)
	paused := info
	paused.Status, paused.PauseID = server.StatusPaused, "p1"
	if err := l.Update(ctx, paused); err != nil {
		t.Fatal(err)
	}
	p.cut()
	// A read finds Redis unreachable, paying the client's dial.
	if _, err := l.Info(ctx, info.ID); err == nil || errors.Is(err, redislog.ErrUnavailable) {
		t.Fatalf("the first read with Redis cut off: %v; want the client's error", err)
	}
	// No read (or write) after it goes out: each fails at once saying why.
	before := sent.Count()
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"Info", func() error { _, err := l.Info(ctx, info.ID); return err }},
		{"Tail", func() error {
			for _, err := range l.Tail(ctx, info.ID, 0) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"Claim", func() error { _, err := l.Claim(ctx, info.ID, "p1", server.StatusRunning); return err }},
		{"Runs", func() error { _, err := l.Runs(ctx, server.RunQuery{}); return err }},
		{"Prune", func() error { _, err := l.Prune(ctx, time.Now(), 1); return err }},
		{"RelayCancel", func() error { return l.RelayCancel(ctx, info.ID) }},
		{"Create", func() error {
			return l.Create(ctx, server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning})
		}},
	} {
		if err := tc.read(); !errors.Is(err, redislog.ErrUnavailable) {
			t.Errorf("%s: %v; want ErrUnavailable", tc.name, err)
		}
	}
	if n := sent.Count() - before; n != 0 {
		t.Fatalf("%d reads went to the Redis found unreachable", n)
	}
}

func TestLog_ACallToAPartitionedRedisEndsAtTheLogsBound(t *testing.T) {
	shared := testClient(t)
	// Once partitioned, the client's dials hang (no DialTimeout: a
	// dropped SYN is answered by nothing) and its connections are gone.
	var partitioned atomic.Bool
	healed := make(chan struct{}) // closed to end the dials still hanging
	var mu sync.Mutex
	var conns []net.Conn
	client := redis.NewClient(&redis.Options{Addr: testAddr(), DialTimeout: -1, DialerRetries: 1,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if partitioned.Load() {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-healed:
					return nil, errors.New("partitioned")
				}
			}
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err == nil {
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
			return c, err
		}})
	defer client.Close()
	prefix := testPrefix()
	l, err := redislog.New(context.Background(), client, redislog.WithPrefix(prefix), redislog.WithCallTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Healed, so the client's subscription, redialling, lets Close
		// end.
		partitioned.Store(false)
		close(healed)
		_ = l.Close()
		if keys, _ := shared.Keys(context.Background(), prefix+"*").Result(); len(keys) > 0 {
			shared.Del(context.Background(), keys...)
		}
	}()
	partitioned.Store(true)
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
	created := make(chan error, 1)
	go func() { created <- l.Create(context.Background(), info) }()
	// The wait bounds a create that never returns; it times nothing.
	select {
	case err := <-created:
		if err == nil || errors.Is(err, redislog.ErrUnavailable) {
			t.Fatalf("the first create to the partitioned Redis: %v; want the deadline's error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a create to the partitioned Redis, under a context without deadline, never returned")
	}
	// It found Redis unreachable: the next call fails at once.
	if _, err := l.Info(context.Background(), info.ID); !errors.Is(err, redislog.ErrUnavailable) {
		t.Fatalf("a read after: %v; want ErrUnavailable", err)
	}
}

// proxiedLog opens a log under a prefix of its own on the shared Redis,
// reached through a proxy the test cuts, removed when the test ends. The
// log's client runs hooks.
func proxiedLog(t *testing.T, hooks ...redis.Hook) (*redislog.Log, *proxy, string) {
	t.Helper()
	shared := testClient(t)
	p := newProxy(t, testAddr())
	client := redis.NewClient(&redis.Options{Addr: p.addr, MaxRetries: 1, DialTimeout: time.Second})
	for _, h := range hooks {
		client.AddHook(h)
	}
	l, prefix := logOn(t, shared, client)
	return l, p, prefix
}

// logOn opens a log under a prefix of its own through client, and at the
// test's end closes both and deletes the prefix's keys through shared.
func logOn(t *testing.T, shared, client *redis.Client) (*redislog.Log, string) {
	t.Helper()
	prefix := testPrefix()
	l, err := redislog.New(context.Background(), client, redislog.WithPrefix(prefix))
	if err != nil {
		client.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = l.Close()
		client.Close()
		if keys, _ := shared.Keys(context.Background(), prefix+"*").Result(); len(keys) > 0 {
			shared.Del(context.Background(), keys...)
		}
	})
	return l, prefix
}

// proxy forwards TCP connections to a Redis until cut, which closes its
// listener and its connections, as a Redis that died would; restore
// listens on the same address again.
type proxy struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
	wg           sync.WaitGroup
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String(), target: target}
	p.serve(ln)
	t.Cleanup(func() {
		p.cut()
		p.wg.Wait()
	})
	return p
}

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // cut
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			p.wg.Go(func() { _, _ = io.Copy(up, c); up.Close() })
			p.wg.Go(func() { _, _ = io.Copy(c, up); c.Close() })
		}
	})
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) restore(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.serve(ln)
}

func TestLog_AStatusNotStoredWhileRedisIsUnreachableIsStoredOnceItIsBack(t *testing.T) {
	l, p, prefix := proxiedLog(t)
	shared := testClient(t)
	ctx := context.Background()
	info := create(t, l)
	status := func() string {
		st, err := shared.HGet(ctx, prefix+"run:{"+info.ID+"}:info", "status").Result()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	p.cut()
	if err := l.Append(ctx, info.ID, rec(1)); err != nil {
		t.Fatal(err) // queued
	}
	if err := l.Update(ctx, finished(info, 1)); err == nil {
		t.Fatal("Update succeeded with Redis cut off")
	}
	if st := status(); st != "running" {
		t.Fatalf("with Redis cut off the run reads %s", st)
	}
	p.restore(t)
	// Dropped, the run's end would never reach Redis: its replica's
	// lease lives on, so it would read as running for ever.
	deadline := time.Now().Add(30 * time.Second)
	for status() == "running" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got, err := l.Info(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != server.StatusFailed || got.Error == nil || !strings.Contains(got.Error.Message, "records 1 to 1 not stored") {
		t.Fatalf("once Redis is back the run reads %s (%+v); want failed, naming record 1 lost", got.Status, got.Error)
	}
	// Its stream ends, with no record Redis did not store.
	for recs, err := range l.Tail(ctx, info.ID, 0) {
		if err != nil || len(recs) > 0 {
			t.Fatalf("the run's tail: %v, %v; want it to end at once", recs, err)
		}
	}
}
