package redislog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

// DefaultLease is how long a replica's lease lasts without renewal when no
// [WithLease] is given.
const DefaultLease = 15 * time.Second

// DefaultPrefix starts every key the log writes when no [WithPrefix] is
// given.
const DefaultPrefix = "helikon:"

// blockFor bounds one XREAD BLOCK, so a tail notices a cancelled context
// and an orphaned run within about this long.
const blockFor = time.Second

// batchSize bounds the records one read returns.
const batchSize = 512

// Log is a [server.EventLog] on Redis Streams. Close it to stop renewing
// its lease.
type Log struct {
	client  redis.UniversalClient
	prefix  string
	lease   time.Duration
	replica string

	// sub listens on the replica's cancel channel; handlers get what
	// arrives there.
	sub      *redis.PubSub
	hmu      sync.Mutex
	handlers map[int]func(runID string)
	nextH    int

	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
	// life ends at Close, for the probes (circuit.go), which nothing
	// else waits for.
	life    context.Context
	endLife context.CancelFunc

	// circuit notes a Redis found unreachable, so writes fail at once;
	// kept holds the status changes to store once it is back.
	circuit circuit
	kept    keptStatus
	// statusSeq numbers the status changes set in this replica
	// (status_seq.go).
	statusSeq atomic.Uint64

	local localRuns

	// The flushers' queues (batch.go), the record bytes queued, and a
	// channel closed whenever a pipeline went out, for appends waiting
	// for room.
	qmu         sync.Mutex
	flushers    [flushers]flusher
	queuedBytes int
	maxQueued   int           // maxQueuedBytes; tests lower it
	callTimeout time.Duration // callTimeout; tests lower it
	room        chan struct{}
	closed      bool
}

var (
	_ server.EventLog    = (*Log)(nil)
	_ server.CancelRelay = (*Log)(nil)
)

// Option configures a [Log].
type Option func(*Log)

// WithPrefix starts every key with p instead of [DefaultPrefix]; servers
// that share runs must use the same prefix.
func WithPrefix(p string) Option { return func(l *Log) { l.prefix = p } }

// WithLease sets how long the replica's lease lasts without renewal: a run
// whose replica has not renewed it for this long reads as interrupted.
// Shorter leases find crashed replicas sooner and cost more renewals.
func WithLease(d time.Duration) Option { return func(l *Log) { l.lease = d } }

// New returns a Log on client, after it took its replica lease. The
// caller closes the client after closing the Log.
func New(ctx context.Context, client redis.UniversalClient, opts ...Option) (*Log, error) {
	if client == nil {
		return nil, errors.New("redislog: client is required")
	}
	l := &Log{client: client, prefix: DefaultPrefix, lease: DefaultLease, replica: uuid.NewString(),
		handlers: map[int]func(string){}, stop: make(chan struct{}),
		room: make(chan struct{}), maxQueued: maxQueuedBytes, callTimeout: callTimeout, circuit: circuit{trip: make(chan struct{}, 1)}}
	for i := range l.flushers {
		l.flushers[i].kick = make(chan struct{}, 1)
	}
	for _, o := range opts {
		o(l)
	}
	if l.lease < 10*time.Millisecond {
		return nil, fmt.Errorf("redislog: lease %v is too short", l.lease)
	}
	if err := l.listen(ctx); err != nil {
		return nil, err
	}
	if err := l.renew(ctx); err != nil {
		_ = l.sub.Close()
		l.wg.Wait()
		return nil, fmt.Errorf("redislog: take lease: %w", err)
	}
	l.life, l.endLife = context.WithCancel(context.Background())
	l.wg.Add(2 + flushers)
	go l.keepLease()
	go l.probe()
	for i := range l.flushers {
		go l.flush(&l.flushers[i])
	}
	return l, nil
}

// Replica returns the id of this replica's lease.
func (l *Log) Replica() string { return l.replica }

// Close sends the records and status changes still queued, then stops
// renewing the lease and releases it: runs this replica still drives read
// as interrupted from then on, and writes (Append, Update) fail with
// [ErrClosed]. With Redis found unreachable it sends nothing and returns
// an error wrapping [ErrUnavailable]; the lease then expires by itself.
// It does not close the client.
func (l *Log) Close() error {
	var err error
	l.once.Do(func() {
		l.qmu.Lock()
		l.closed = true
		l.qmu.Unlock()
		close(l.stop)
		l.endLife()
		_ = l.sub.Close()
		l.wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = l.guard(ctx, func(ctx context.Context) error { return l.client.Del(ctx, l.replicaKey(l.replica)).Err() })
	})
	return err
}

func (l *Log) isClosed() bool {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	return l.closed
}

func (l *Log) renew(ctx context.Context) error {
	return l.client.Set(ctx, l.replicaKey(l.replica), "1", l.lease).Err()
}

// keepLease renews the lease until Close; a failed renewal is retried at
// the next tick, and the lease outlives a few of them.
func (l *Log) keepLease() {
	defer l.wg.Done()
	t := time.NewTicker(l.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), l.lease/3)
			// A renewal that timed out under its own deadline
			// found Redis unreachable: note it as a write's.
			_ = l.guard(context.Background(), func(context.Context) error { return l.renew(ctx) })
			cancel()
		}
	}
}

func (l *Log) replicaKey(id string) string    { return l.prefix + "replica:" + id }
func (l *Log) cancelChannel(id string) string { return l.prefix + "replica:" + id + ":cancel" }
func (l *Log) infoKey(runID string) string    { return l.prefix + "run:{" + runID + "}:info" }
func (l *Log) eventsKey(runID string) string  { return l.prefix + "run:{" + runID + "}:events" }
func (l *Log) finishedKey() string            { return l.prefix + "runs:finished" }

// The info hash holds the record's JSON (info), the replica driving the
// run (owner), and, for the scripts to test, its status, its pause id and
// the number of its last status change (sseq, status_seq.go).

// createScript registers a run unless it exists: KEYS[1] the info hash,
// ARGV the record JSON, the owner, the status (running or queued) and
// its sequence number (status_seq.go).
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'info', ARGV[1], 'owner', ARGV[2], 'status', ARGV[3], 'sseq', ARGV[4])
return 1`)

// Create registers a new run, owned by this replica. A queued run is
// driven here (its writes queued for the flushers, its tails served in
// process) once it is updated to running.
func (l *Log) Create(ctx context.Context, info server.RunInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	status := info.Status
	if status != server.StatusQueued {
		status = server.StatusRunning
	}
	var ok int
	err = l.guard(ctx, func(ctx context.Context) (err error) {
		ok, err = createScript.Run(ctx, l.client, []string{l.infoKey(info.ID)}, data, l.replica, string(status), l.nextStatusSeq()).Int()
		return err
	})
	if err != nil {
		return fmt.Errorf("redislog: create %s: %w", info.ID, err)
	}
	if ok == 0 {
		return fmt.Errorf("%w: %s", server.ErrRunExists, info.ID)
	}
	if status == server.StatusRunning {
		l.local.drive(info.ID, 0)
	}
	return nil
}

// Append stores the run's next record as stream entry "<seq>-0". For a
// run this replica drives it queues the record and returns: the record
// goes to Redis with the run's next batch (see the package doc), and a
// batch Redis did not store fails this call for a later record, and
// Update, with a [*WriteError]. Other runs' records are written at once.
func (l *Log) Append(ctx context.Context, runID string, rec server.Record) error {
	if r := l.local.get(runID); r != nil {
		return l.queue(ctx, r, rec)
	}
	if l.isClosed() {
		return ErrClosed
	}
	return l.writeNow(ctx, runID, []server.Record{rec}, nil)
}

// Update stores the run's record when its status changes; a final status
// ends the run's stream and lists it for pruning. For a run this replica
// drives, the change goes in one atomic write with the run's records
// still queued, and Update returns once Redis has stored both. A run
// updated to running (a queued run that took its session's turn) is
// driven by this replica from then on, after position info.LastEvent.
func (l *Log) Update(ctx context.Context, info server.RunInfo) error {
	err := l.update(ctx, info)
	if err == nil && info.Status == server.StatusRunning && l.local.get(info.ID) == nil {
		l.local.drive(info.ID, info.LastEvent)
	}
	return err
}

func (l *Log) update(ctx context.Context, info server.RunInfo) error {
	if l.isClosed() {
		// The lease is gone: the run is another replica's to call
		// interrupted.
		return ErrClosed
	}
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	up := &update{data: data, status: info.Status, pause: info.PauseID, at: time.Now(), seq: l.nextStatusSeq()}
	if info.FinishedAt != nil {
		up.at = *info.FinishedAt
	}
	// Paused or ended (or refused), the run's tails read the rest, and
	// its end, from Redis.
	var lost error
	if r := l.local.get(info.ID); r != nil {
		up.done = make(chan error, 1)
		if l.queueUpdate(r, up) {
			select {
			case err := <-up.done:
				if !unstored(err) {
					return err
				}
				lost = err // stored below, directly, if Redis is back
			case <-ctx.Done():
				return ctx.Err()
			}
		} else {
			lost = r.writeErr()
		}
		l.local.forget(r)
		defer r.stored(nil, true)
		if we, ok := errors.AsType[*WriteError](lost); ok && we.From <= we.To {
			// Records of the run were lost: whatever it says, the run
			// is stored failed, saying so, and Update reports it.
			if up.data, err = json.Marshal(lostRecords(info, lost)); err != nil {
				return errors.Join(lost, err)
			}
			up.status, up.pause = server.StatusFailed, ""
		}
	}
	if err := l.storeStatus(ctx, info.ID, up); err != nil {
		return errors.Join(lost, fmt.Errorf("redislog: update %s: %w", info.ID, err))
	}
	return lost
}

// unstored reports whether err is a write Redis failed to store, not one
// it refused.
func unstored(err error) bool {
	_, ok := errors.AsType[*WriteError](err)
	return ok && !errors.Is(err, server.ErrRunEnded) && !errors.Is(err, server.ErrRunNotFound) && !errors.Is(err, ErrStaleStatus)
}

// lostRecords is info as stored for a run whose records a write lost.
func lostRecords(info server.RunInfo, lost error) server.RunInfo {
	if info.FinishedAt == nil {
		now := time.Now().UTC()
		info.FinishedAt = &now
	}
	info.Status, info.PauseID, info.Pending = server.StatusFailed, "", nil
	info.Error = &helikon.AgentError{Kind: helikon.KindOther, Agent: info.Agent, Message: "event log: " + lost.Error()}
	if info.Result == nil {
		info.Result = &server.RunOutput{}
	}
	return info
}

// claimScript moves a run paused at a pause to running or queued, owned
// by the claiming replica: KEYS[1] the info hash; ARGV the pause id, the
// owner, the record JSON as claimed, its status and its sequence number
// (status_seq.go).
var claimScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'status') ~= 'paused' then return 0 end
if redis.call('HGET', KEYS[1], 'pause') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[4], 'pause', '', 'owner', ARGV[2], 'info', ARGV[3], 'sseq', ARGV[5])
return 1`)

// Claim moves a run paused at pauseID to status, owned by this replica. A
// run claimed running is driven here from its paused position on; one
// claimed queued once it is updated to running, as a run created queued.
func (l *Log) Claim(ctx context.Context, runID, pauseID string, status server.RunStatus) (server.RunInfo, error) {
	if !status.Live() {
		return server.RunInfo{}, fmt.Errorf("redislog: claim of run %s as %q: a claimed run is running or queued", runID, status)
	}
	info, _, err := l.read(ctx, runID)
	if err != nil {
		return server.RunInfo{}, err
	}
	if info.Status != server.StatusPaused || info.PauseID != pauseID {
		return server.RunInfo{}, fmt.Errorf("%w: %s is %s", server.ErrNotPaused, runID, info.Status)
	}
	info.Status, info.PauseID, info.Pending = status, "", nil
	data, err := json.Marshal(info)
	if err != nil {
		return server.RunInfo{}, err
	}
	var ok int
	err = l.guard(ctx, func(ctx context.Context) (err error) {
		ok, err = claimScript.Run(ctx, l.client, []string{l.infoKey(runID)}, pauseID, l.replica, data, string(status), l.nextStatusSeq()).Int()
		return err
	})
	if err != nil {
		return server.RunInfo{}, fmt.Errorf("redislog: claim %s: %w", runID, err)
	}
	if ok == 0 {
		return server.RunInfo{}, fmt.Errorf("%w: %s (claimed by another)", server.ErrNotPaused, runID)
	}
	if status == server.StatusRunning {
		l.local.drive(runID, info.LastEvent)
	}
	return info, nil
}

// Info returns the run's record. A running or queued run whose replica's
// lease has expired is marked interrupted first.
func (l *Log) Info(ctx context.Context, runID string) (server.RunInfo, error) {
	info, owner, err := l.read(ctx, runID)
	if err != nil || !info.Status.Live() {
		return info, err
	}
	var alive int64
	err = l.guard(ctx, func(ctx context.Context) (err error) {
		alive, err = l.client.Exists(ctx, l.replicaKey(owner)).Result()
		return err
	})
	if err != nil {
		return server.RunInfo{}, fmt.Errorf("redislog: lease of %s: %w", runID, err)
	}
	if alive == 1 {
		return info, nil
	}
	return l.interrupt(ctx, runID)
}

func (l *Log) read(ctx context.Context, runID string) (server.RunInfo, string, error) {
	var vals []any
	err := l.guard(ctx, func(ctx context.Context) (err error) {
		vals, err = l.client.HMGet(ctx, l.infoKey(runID), "info", "owner").Result()
		return err
	})
	if err != nil {
		return server.RunInfo{}, "", fmt.Errorf("redislog: read %s: %w", runID, err)
	}
	data, _ := vals[0].(string)
	owner, _ := vals[1].(string)
	if data == "" {
		return server.RunInfo{}, "", fmt.Errorf("%w: %s", server.ErrRunNotFound, runID)
	}
	var info server.RunInfo
	if err := json.Unmarshal([]byte(data), &info); err != nil {
		return server.RunInfo{}, "", fmt.Errorf("redislog: decode %s: %w", runID, err)
	}
	return info, owner, nil
}

// interrupt marks an orphaned run interrupted and ends its stream with a
// run_failed record, unless another reader (or the owner) finished it
// first: the transaction watches the run's record.
func (l *Log) interrupt(ctx context.Context, runID string) (server.RunInfo, error) {
	var out server.RunInfo
	err := l.guard(ctx, func(ctx context.Context) error { return l.watchInterrupt(ctx, runID, &out) })
	if errors.Is(err, redis.TxFailedErr) {
		// Someone finished the run meanwhile: read what they wrote.
		info, _, err := l.read(ctx, runID)
		return info, err
	}
	if err != nil {
		return server.RunInfo{}, fmt.Errorf("redislog: interrupt %s: %w", runID, err)
	}
	if out.FinishedAt != nil {
		err := l.guard(ctx, func(ctx context.Context) error {
			return l.client.ZAdd(ctx, l.finishedKey(), redis.Z{Score: float64(out.FinishedAt.UnixMilli()), Member: runID}).Err()
		})
		if err != nil {
			return server.RunInfo{}, fmt.Errorf("redislog: list finished run %s: %w", runID, err)
		}
	}
	return out, nil
}

// watchInterrupt is interrupt's transaction: it stores out, the run as
// interrupted, unless the run is no longer live.
func (l *Log) watchInterrupt(ctx context.Context, runID string, out *server.RunInfo) error {
	return l.client.Watch(ctx, func(tx *redis.Tx) error {
		vals, err := tx.HMGet(ctx, l.infoKey(runID), "info").Result()
		if err != nil {
			return err
		}
		data, _ := vals[0].(string)
		if data == "" {
			return fmt.Errorf("%w: %s", server.ErrRunNotFound, runID)
		}
		if err := json.Unmarshal([]byte(data), out); err != nil {
			return err
		}
		if !out.Status.Live() {
			return nil
		}
		last, err := tx.XRevRangeN(ctx, l.eventsKey(runID), "+", "-", 1).Result()
		if err != nil {
			return err
		}
		var seq int64
		if len(last) == 1 {
			seq, _ = parseSeq(last[0].ID)
		}
		now := time.Now().UTC()
		// The synthetic run_failed takes the next position.
		out.Status, out.FinishedAt, out.LastEvent = server.StatusInterrupted, &now, seq+1
		out.Error = &helikon.AgentError{Kind: helikon.KindOther, Agent: out.Agent,
			Message: "the server driving the run stopped before the run ended"}
		if out.Result == nil {
			out.Result = &server.RunOutput{}
		}
		rec, err := json.Marshal(helikon.RunFailed{At: time.Now().UTC(), Err: out.Error})
		if err != nil {
			return err
		}
		info, err := json.Marshal(*out)
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.XAdd(ctx, &redis.XAddArgs{Stream: l.eventsKey(runID), ID: strconv.FormatInt(seq+1, 10) + "-0",
				Values: []any{"t", "run_failed", "d", rec}})
			p.XAdd(ctx, &redis.XAddArgs{Stream: l.eventsKey(runID), ID: "*", Values: []any{"end", "1"}})
			p.HSet(ctx, l.infoKey(runID), "info", info, "status", string(server.StatusInterrupted))
			return nil
		})
		return err
	}, l.infoKey(runID))
}

func parseSeq(id string) (int64, error) {
	for i := range len(id) {
		if id[i] == '-' {
			return strconv.ParseInt(id[:i], 10, 64)
		}
	}
	return strconv.ParseInt(id, 10, 64)
}

// Tail yields the run's records after position after, following the run
// with XREAD BLOCK until it has finished.
func (l *Log) Tail(ctx context.Context, runID string, after int64) iter.Seq2[[]server.Record, error] {
	return func(yield func([]server.Record, error) bool) {
		after = max(after, 0)
		key := l.eventsKey(runID)
		read := func(ctx context.Context, p redis.Cmdable, block time.Duration) *redis.XStreamSliceCmd {
			return p.XRead(ctx, &redis.XReadArgs{Streams: []string{key, strconv.FormatInt(after, 10) + "-0"},
				Count: batchSize, Block: block})
		}
		var first *redis.XStreamSliceCmd
		if r := l.local.get(runID); r != nil && after >= r.base {
			// A run this replica drives: from its records in process
			// while it runs here, then from Redis.
			if !r.tail(ctx, &after, yield) {
				return
			}
		} else {
			// One round trip tells an unknown run, and reads what the
			// stream holds without waiting.
			var exists *redis.IntCmd
			err := l.guard(ctx, func(ctx context.Context) error {
				_, err := l.client.Pipelined(ctx, func(p redis.Pipeliner) error {
					exists = p.Exists(ctx, l.infoKey(runID))
					first = read(ctx, p, -1)
					return nil
				})
				return err
			})
			if exists == nil {
				yield(nil, fmt.Errorf("redislog: read %s: %w", runID, err))
				return
			}
			switch n, err := exists.Result(); {
			case err != nil:
				yield(nil, fmt.Errorf("redislog: read %s: %w", runID, err))
				return
			case n == 0:
				yield(nil, fmt.Errorf("%w: %s", server.ErrRunNotFound, runID))
				return
			}
		}
		for {
			cmd := first
			if cmd == nil {
				err := l.guard(ctx, func(ctx context.Context) error {
					cmd = read(ctx, l.client, blockFor)
					return cmd.Err()
				})
				if cmd == nil {
					yield(nil, fmt.Errorf("redislog: tail %s: %w", runID, err))
					return
				}
			}
			streams, err := cmd.Result()
			switch {
			case errors.Is(err, redis.Nil) && cmd == first:
				// Nothing yet: wait for it.
				first = nil
				continue
			case errors.Is(err, redis.Nil):
				// Nothing new within blockFor: a finished run's end
				// marker is there to read; Info notices an orphan.
				info, err := l.Info(ctx, runID)
				if err != nil {
					yield(nil, err)
					return
				}
				if info.Status.Final() && after >= info.LastEvent {
					// The run ended (or was found orphaned) before
					// the position the tail waits after: the end
					// marker's automatic ID sorts below so large a
					// position, and no record comes past it.
					return
				}
				continue
			case err != nil:
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				yield(nil, fmt.Errorf("redislog: tail %s: %w", runID, err))
				return
			}
			first = nil
			batch, last, end, err := decode(streams)
			if err != nil {
				yield(nil, fmt.Errorf("redislog: tail %s: %w", runID, err))
				return
			}
			if len(batch) > 0 && !yield(batch, nil) {
				return
			}
			if end {
				return
			}
			after = last
		}
	}
}

// decode turns stream entries into records, up to the end marker.
func decode(streams []redis.XStream) (out []server.Record, last int64, end bool, err error) {
	for _, s := range streams {
		out = make([]server.Record, 0, len(s.Messages))
		for _, m := range s.Messages {
			if _, ok := m.Values["end"]; ok {
				return out, last, true, nil
			}
			seq, err := parseSeq(m.ID)
			if err != nil {
				return nil, 0, false, fmt.Errorf("entry %q: %w", m.ID, err)
			}
			typ, _ := m.Values["t"].(string)
			data, _ := m.Values["d"].(string)
			out = append(out, server.Record{Seq: seq, Type: typ, Data: json.RawMessage(data)})
			last = seq
		}
	}
	return out, last, false, nil
}

// Prune removes finished runs that ended before cutoff and the oldest
// finished runs beyond keep.
func (l *Log) Prune(ctx context.Context, cutoff time.Time, keep int) (n int, err error) {
	err = l.guard(ctx, func(ctx context.Context) (err error) {
		n, err = l.prune(ctx, cutoff, keep)
		return err
	})
	return n, err
}

func (l *Log) prune(ctx context.Context, cutoff time.Time, keep int) (int, error) {
	ids, err := l.client.ZRangeByScore(ctx, l.finishedKey(), &redis.ZRangeBy{
		Min: "-inf", Max: "(" + strconv.FormatInt(cutoff.UnixMilli(), 10),
	}).Result()
	if err != nil {
		return 0, fmt.Errorf("redislog: prune: %w", err)
	}
	if keep > 0 {
		total, err := l.client.ZCard(ctx, l.finishedKey()).Result()
		if err != nil {
			return 0, fmt.Errorf("redislog: prune: %w", err)
		}
		if excess := total - int64(len(ids)) - int64(keep); excess > 0 {
			more, err := l.client.ZRange(ctx, l.finishedKey(), int64(len(ids)), int64(len(ids))+excess-1).Result()
			if err != nil {
				return 0, fmt.Errorf("redislog: prune: %w", err)
			}
			ids = append(ids, more...)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	_, err = l.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, id := range ids {
			p.Del(ctx, l.infoKey(id), l.eventsKey(id))
			p.ZRem(ctx, l.finishedKey(), id)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("redislog: prune: %w", err)
	}
	return len(ids), nil
}
