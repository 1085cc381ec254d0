package redislog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon/server"
)

// Writes to the runs a replica drives are batched. Append queues the
// record in process and returns; a flusher goroutine (each run has one of
// the Log's flushers) sends what its runs queued since its last round trip
// as one pipeline,
// one script call per run, so a run costs a round trip per batch instead
// of one per event, and concurrent runs share them. Nothing waits for a
// timer: records queued while a pipeline is out go in the next one.
//
// Update queues the status change behind the run's records, and the same
// script call stores both, so a run's last records, its terminal event,
// its final status and its end marker are one atomic write (and its
// listing for pruning rides the same pipeline). A record reaches this
// replica's tails only once Redis has stored it, so a terminal event is
// never seen before the records it ends.
//
// What Append accepted is sent whatever becomes of the caller's context,
// and Close sends what is queued before it releases the lease. A batch
// Redis does not store (it is down, or the run has ended) fails the run's
// next Append, its Update and its tails with a [*WriteError] that names
// the records lost.

// maxQueuedBytes bounds the record data a Log holds unsent: Append waits
// beyond it, so a slow Redis slows the runs rather than filling memory.
const maxQueuedBytes = 32 << 20

// flushers is how many pipelines a Log keeps out at once; each run's
// writes go through one of them, so they stay in order.
const flushers = 2

// flusher is one goroutine sending the queued work of its runs.
type flusher struct {
	queued []*localRun // the runs with work queued; under Log.qmu
	kick   chan struct{}
}

// callTimeout bounds one call to Redis (a pipeline, a script, a read),
// whatever the client's own timeouts and the caller's context: one Redis
// has not answered for this long is taken for unreachable (circuit.go).
// Healthy, Redis answers in milliseconds, so this is far from a slow
// answer, yet well below what go-redis's defaults let a partitioned Redis
// cost (five dials of 5 s, for each of four attempts: over 100 s). It
// bounds dials and waits for a pooled connection; go-redis applies a
// context's deadline to a connection's reads only with
// ContextTimeoutEnabled, and its ReadTimeout (3 s by default) bounds
// those.
const callTimeout = 30 * time.Second

// WriteError reports records [Log.Append] accepted that Redis did not
// store, or a status change it did not: Redis failed, or refused the
// batch (the run had ended). The run's later appends fail with it too.
type WriteError struct {
	RunID string
	// From and To are the positions of the records lost, both included;
	// From > To when no record was (only a status change failed).
	From, To int64
	Err      error
}

// Error names the run and the records, or the status change, not stored.
func (e *WriteError) Error() string {
	if e.From > e.To {
		return fmt.Sprintf("redislog: run %s: status not stored: %v", e.RunID, e.Err)
	}
	return fmt.Sprintf("redislog: run %s: records %d to %d not stored: %v", e.RunID, e.From, e.To, e.Err)
}

// Unwrap returns the Redis error behind the loss.
func (e *WriteError) Unwrap() error { return e.Err }

// ErrClosed reports a write to a [Log] that has been closed.
var ErrClosed = errors.New("redislog: log is closed")

// writeScript appends a run's records and, optionally, stores its record
// when its status changes, atomically. KEYS the info hash and the events
// stream (one hash slot); ARGV[1] the number of records, then each one's
// position, type and JSON, then, for a status change, the record JSON,
// the status, the pause id, '1' when the status is final, the writing
// replica and the change's sequence number (status_seq.go). It answers
// {1} when all is stored, {-1} for an unknown run, {0, status} for a run
// that cannot take the write, {-2, i, error} when the record at index i
// (from 0) was refused after the ones before it were stored, {-3, status}
// for a status change older than the one stored (or from a replica that
// no longer owns the run), which stores nothing. A script retried after
// it ran (the client resends a pipeline whose reply it lost) finds its
// records and its status already there and answers {1}.
var writeScript = redis.NewScript(`
local n = tonumber(ARGV[1])
local u = 2 + 3 * n
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return {-1} end
if st ~= 'running' and st ~= 'queued' and not (st == 'paused' and n == 0 and ARGV[u]) then
	if ARGV[u] and redis.call('HGET', KEYS[1], 'info') == ARGV[u] then return {1} end
	return {0, st}
end
if ARGV[u] and (redis.call('HGET', KEYS[1], 'owner') ~= ARGV[u + 4] or
		tonumber(redis.call('HGET', KEYS[1], 'sseq') or '0') > tonumber(ARGV[u + 5])) then
	return {-3, st}
end
for i = 0, n - 1 do
	local id, t, d = ARGV[2 + 3 * i] .. '-0', ARGV[3 + 3 * i], ARGV[4 + 3 * i]
	local r = redis.pcall('XADD', KEYS[2], id, 't', t, 'd', d)
	if type(r) == 'table' and r.err then
		local e = redis.call('XRANGE', KEYS[2], id, id)[1]
		if not (e and e[2][2] == t and e[2][4] == d) then return {-2, i, r.err} end
	end
end
if ARGV[u] then
	redis.call('HSET', KEYS[1], 'info', ARGV[u], 'status', ARGV[u + 1], 'pause', ARGV[u + 2], 'sseq', ARGV[u + 5])
	if ARGV[u + 3] == '1' then redis.call('XADD', KEYS[2], '*', 'end', '1') end
end
return {1}`)

// update is a run's status change on its way to Redis.
type update struct {
	data   []byte
	status server.RunStatus
	pause  string
	at     time.Time  // when a final status was reached
	seq    uint64     // when the status was set, in this replica's order (status_seq.go)
	done   chan error // the outcome, for the waiting Update (buffered)
}

func (u *update) final() bool { return u.status.Final() }

// batch is one run's share of a pipeline: its records, and maybe a status
// change after them.
type batch struct {
	runID string
	recs  []server.Record
	up    *update
	run   *localRun // nil for a write not queued (a run driven elsewhere)
	cmd   *redis.Cmd
	zadd  *redis.IntCmd
}

func (b *batch) args(replica string) []any {
	args := make([]any, 0, 1+3*len(b.recs)+6)
	args = append(args, len(b.recs))
	for _, r := range b.recs {
		args = append(args, r.Seq, r.Type, []byte(r.Data))
	}
	if b.up != nil {
		final := "0"
		if b.up.final() {
			final = "1"
		}
		args = append(args, b.up.data, string(b.up.status), b.up.pause, final, replica, b.up.seq)
	}
	return args
}

// send writes the batches as one pipeline, loading the script into a
// Redis that does not have it (a restart, SCRIPT FLUSH) and sending the
// batches that met it again: a script that was not found did not run.
// With Redis found unreachable (circuit.go) it sends nothing and fails
// every batch with that. It returns the error of its last round trip,
// for the caller to note.
func (l *Log) send(ctx context.Context, bs []*batch) error {
	if err := l.circuit.open(); err != nil {
		for _, b := range bs {
			b.cmd = redis.NewCmd(ctx)
			b.cmd.SetErr(err)
		}
		return err
	}
	queue := func(p redis.Pipeliner, b *batch) {
		b.cmd = writeScript.EvalSha(ctx, p, []string{l.infoKey(b.runID), l.eventsKey(b.runID)}, b.args(l.replica)...)
	}
	_, err := l.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, b := range bs {
			queue(p, b)
			if b.up != nil && b.up.final() {
				b.zadd = p.ZAdd(ctx, l.finishedKey(), redis.Z{Score: float64(b.up.at.UnixMilli()), Member: b.runID})
			}
		}
		return nil
	})
	var again []*batch
	for _, b := range bs {
		if redis.HasErrorPrefix(b.cmd.Err(), "NOSCRIPT") {
			again = append(again, b)
		}
	}
	if len(again) == 0 {
		return err
	}
	if err := writeScript.Load(ctx, l.client).Err(); err != nil {
		return err // the batches keep their NOSCRIPT errors
	}
	_, err = l.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, b := range again {
			queue(p, b)
		}
		return nil
	})
	return err
}

// outcome reads what Redis made of b's script call: how many of its
// records it stored (in order), and the error for the rest or for the
// status change.
func (b *batch) outcome() (int, error) {
	lost := func(from int, err error) error {
		if len(b.recs) == 0 {
			return err
		}
		return &WriteError{RunID: b.runID, From: b.recs[from].Seq, To: b.recs[len(b.recs)-1].Seq, Err: err}
	}
	res, err := b.cmd.Slice()
	switch {
	case err != nil && len(b.recs) == 0:
		return 0, &WriteError{RunID: b.runID, From: 1, Err: err}
	case err != nil:
		return 0, lost(0, err)
	}
	code, _ := res[0].(int64)
	switch code {
	case 1:
		return len(b.recs), nil
	case -1:
		return 0, lost(0, fmt.Errorf("%w: %s", server.ErrRunNotFound, b.runID))
	case 0:
		st := "ended"
		if len(res) > 1 {
			st, _ = res[1].(string)
		}
		return 0, lost(0, fmt.Errorf("%w: %s is %s", server.ErrRunEnded, b.runID, st))
	case -3:
		st := "changed"
		if len(res) > 1 {
			st, _ = res[1].(string)
		}
		return 0, lost(0, fmt.Errorf("%w: %s is %s", ErrStaleStatus, b.runID, st))
	}
	i, msg := 0, "refused"
	if len(res) > 2 {
		n, _ := res[1].(int64)
		i = min(int(n), len(b.recs)-1)
		msg, _ = res[2].(string)
	}
	return i, lost(max(i, 0), errors.New(msg))
}

// listed reports whether a run that ended was listed for pruning.
func (b *batch) listed() error {
	if b.zadd == nil || b.zadd.Err() == nil {
		return nil
	}
	return fmt.Errorf("redislog: list finished run %s: %w", b.runID, b.zadd.Err())
}

// writeNow stores recs and up in one round trip, for a run this replica
// does not queue writes for (one it does not drive).
func (l *Log) writeNow(ctx context.Context, runID string, recs []server.Record, up *update) error {
	b := &batch{runID: runID, recs: recs, up: up}
	sctx, cancel := context.WithTimeout(ctx, l.callTimeout)
	defer cancel()
	l.circuit.note(ctx, l.send(sctx, []*batch{b}))
	if _, err := b.outcome(); err != nil {
		return err
	}
	return b.listed()
}

// queue hands rec, the next record of a run this replica drives, to the
// flusher; it waits while the log holds maxQueuedBytes unsent.
func (l *Log) queue(ctx context.Context, r *localRun, rec server.Record) error {
	l.qmu.Lock()
	for l.queuedBytes > l.maxQueued && !l.closed {
		room := l.room
		l.qmu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		}
		l.qmu.Lock()
	}
	defer l.qmu.Unlock()
	if l.closed {
		return ErrClosed
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.err != nil:
		return r.err
	case r.update != nil || r.released:
		return fmt.Errorf("%w: %s", server.ErrRunEnded, r.id)
	case rec.Seq != r.last+1:
		return fmt.Errorf("redislog: run %s: record %d out of order (want %d)", r.id, rec.Seq, r.last+1)
	}
	r.pending = append(r.pending, rec)
	r.last = rec.Seq
	r.bytes += len(rec.Data)
	l.queuedBytes += len(rec.Data)
	l.enqueue(r)
	return nil
}

// enqueue puts r on the flusher's queue unless it is there; l.qmu and
// r.mu are held.
func (l *Log) enqueue(r *localRun) {
	if !r.queued {
		r.queued = true
		f := &l.flushers[r.flusher]
		f.queued = append(f.queued, r)
		select {
		case f.kick <- struct{}{}:
		default:
		}
	}
}

// queueUpdate queues the status change up behind the records of r, which
// this replica drives. It reports false when r is past queueing (a write
// failed, or the log is closed): the caller writes directly.
func (l *Log) queueUpdate(r *localRun, up *update) bool {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if l.closed || r.err != nil || r.update != nil || r.released {
		return false
	}
	r.update = up
	l.enqueue(r)
	return true
}

// flush sends the queued work of the runs this replica drives, a pipeline
// at a time, until Close; after Close it sends what is left and returns.
func (l *Log) flush(f *flusher) {
	defer l.wg.Done()
	var spare []*localRun
	for {
		var stopping bool
		select {
		case <-f.kick:
		case <-l.stop:
			stopping = true
		}
		for {
			l.qmu.Lock()
			runs := f.queued
			if len(runs) == 0 {
				l.qmu.Unlock()
				break
			}
			f.queued = spare[:0]
			l.qmu.Unlock()
			l.flushRuns(runs)
			clear(runs)
			spare = runs
		}
		if stopping {
			return
		}
	}
}

// flushRuns sends one pipeline with the queued work of runs and hands each
// run, and each waiting Update, what came of it.
func (l *Log) flushRuns(runs []*localRun) {
	all := make([]batch, len(runs))
	bs := make([]*batch, 0, len(runs))
	freed := 0
	for i, r := range runs {
		r.mu.Lock()
		all[i] = batch{runID: r.id, recs: r.pending, up: r.update, run: r}
		failed := r.err
		freed += r.bytes
		r.pending, r.update, r.queued, r.bytes = nil, nil, false, 0
		r.mu.Unlock()
		switch {
		case failed == nil:
			bs = append(bs, &all[i])
		case all[i].up != nil:
			// A batch before this one failed: these records are
			// in the error's range already.
			l.local.forget(r)
			all[i].up.done <- failed
		}
	}
	if len(bs) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), l.callTimeout)
		err := l.send(ctx, bs)
		cancel()
		// Noted before the runs learn their loss, so a write that
		// follows one (Update after a failed batch) fails at once; a
		// pipeline that outlived callTimeout found Redis unreachable.
		l.circuit.note(context.Background(), err)
	}
	l.qmu.Lock()
	l.queuedBytes -= freed
	close(l.room)
	l.room = make(chan struct{})
	l.qmu.Unlock()
	for _, b := range bs {
		n, err := b.outcome()
		if err != nil {
			err = b.run.failed(b.recs[:n], err)
		} else {
			b.run.stored(b.recs, b.up != nil)
		}
		if b.up != nil {
			// Tails that start from here on read Redis.
			l.local.forget(b.run)
			if err == nil {
				err = b.listed()
			}
			b.up.done <- err
		}
	}
}
