package redislog_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/redislog"
)

func TestLog_AKeptStatusStoredAfterANewerOneDoesNotOverwriteIt(t *testing.T) {
	shared := testClient(t)
	f := &faults{}
	l, prefix := faultyLog(t, f)
	ctx := context.Background()
	info := server.RunInfo{ID: uuid.NewString(), Agent: "a", SessionID: "s", Status: server.StatusQueued, CreatedAt: time.Now().UTC()}
	if err := l.Create(ctx, info); err != nil {
		t.Fatal(err)
	}
	// Redis goes down as the run takes its session's turn: "running" is
	// kept for when it is back.
	f.down.Store(true)
	info.Status = server.StatusRunning
	if err := l.Update(ctx, info); err == nil {
		t.Fatal("Update succeeded with Redis down")
	}
	// Redis is back: the probe closes the circuit, then stores the kept
	// "running"; the run pauses between the two.
	held, release, sent := f.holdStatus(server.StatusRunning)
	f.down.Store(false)
	<-held
	paused := info
	paused.Status, paused.PauseID = server.StatusPaused, "p1"
	if err := l.Update(ctx, paused); err != nil {
		t.Fatalf("the pause, with Redis back: %v", err)
	}
	close(release)
	<-sent
	st, err := shared.HGet(ctx, prefix+"run:{"+info.ID+"}:info", "status").Result()
	if err != nil {
		t.Fatal(err)
	}
	if st != string(server.StatusPaused) {
		t.Fatalf("the run reads %s once the kept status was stored; want the pause stored after it", st)
	}
}

func TestLog_AStatusFromAReplicaThatLostTheRunToAClaimIsRefused(t *testing.T) {
	prefix := testPrefix()
	first, second := openLog(t, prefix), openLog(t, prefix)
	ctx := context.Background()
	info := create(t, first)
	paused := info
	paused.Status, paused.PauseID = server.StatusPaused, "p1"
	if err := first.Update(ctx, paused); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Claim(ctx, info.ID, "p1", server.StatusRunning); err != nil {
		t.Fatal(err)
	}
	// A change the first replica set before it lost the run (kept while
	// Redis was unreachable, say) must not end the run the second drives.
	if err := first.Update(ctx, finished(info, 0)); !errors.Is(err, redislog.ErrStaleStatus) {
		t.Fatalf("the first replica's status after the claim: %v; want ErrStaleStatus", err)
	}
	if got, err := second.Info(ctx, info.ID); err != nil || got.Status != server.StatusRunning {
		t.Fatalf("the run reads %+v, %v; want it running on the second replica", got, err)
	}
}

// faultyLog opens a log under a prefix of its own on the shared Redis,
// through a client that f can fail or hold.
func faultyLog(t *testing.T, f *faults) (*redislog.Log, string) {
	t.Helper()
	shared := testClient(t)
	client := redis.NewClient(&redis.Options{Addr: testAddr()})
	client.AddHook(f)
	return logOn(t, shared, client)
}

// faults is a client hook that fails every command as a refused dial
// would while down is set, and holds the pipeline that stores a given
// status until the test releases it.
type faults struct {
	down atomic.Bool
	mu   sync.Mutex
	hold *heldWrite
}

type heldWrite struct {
	status              string
	held, release, sent chan struct{}
}

// holdStatus holds the next pipeline that stores status: held is closed
// when it comes, the test closes release to send it, and sent is closed
// once Redis answered.
func (f *faults) holdStatus(status server.RunStatus) (held, release, sent chan struct{}) {
	h := &heldWrite{status: string(status), held: make(chan struct{}), release: make(chan struct{}), sent: make(chan struct{})}
	f.mu.Lock()
	f.hold = h
	f.mu.Unlock()
	return h.held, h.release, h.sent
}

var errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}

func (f *faults) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f *faults) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if f.down.Load() {
			cmd.SetErr(errRefused)
			return errRefused
		}
		return next(ctx, cmd)
	}
}

func (f *faults) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if f.down.Load() {
			for _, c := range cmds {
				c.SetErr(errRefused)
			}
			return errRefused
		}
		f.mu.Lock()
		h := f.hold
		if h != nil && slices.ContainsFunc(cmds, func(c redis.Cmder) bool { return slices.Contains(c.Args(), any(h.status)) }) {
			f.hold = nil
		} else {
			h = nil
		}
		f.mu.Unlock()
		if h == nil {
			return next(ctx, cmds)
		}
		close(h.held)
		<-h.release
		defer close(h.sent)
		return next(ctx, cmds)
	}
}
