package eventcodec

import (
	"context"
	"errors"
	"sync"

	"github.com/paigasus/helikon"
)

// RawFunc reads stored events in order, handing each one's sequence id and
// payload to emit, and returns emit's first error. emit does not keep
// payload: the store may reuse it once emit returns.
type RawFunc func(emit func(seq int64, payload []byte) error) error

// Batch bounds: a batch is handed to the decoder when it holds this many
// events or payload bytes. They keep a batch's channel hand-off rare
// (a few per thousand events) and the buffers small enough to reuse.
const (
	batchEvents = 256
	batchBytes  = 128 << 10
	// batchesInFlight is how many batches exist at once: one being filled,
	// one being decoded, one waiting between them.
	batchesInFlight = 3
)

// batches holds batches for reuse, so that a load does not allocate (and
// the collector reclaim) its buffers anew.
var batches = sync.Pool{New: func() any { return new(batch) }}

// maxPooledBatch is the largest batch buffer kept for reuse: a batch
// overshoots batchBytes by at most one payload.
const maxPooledBatch = 4 * batchBytes

func getBatch() *batch {
	b := batches.Get().(*batch)
	b.reset()
	return b
}

func putBatch(b *batch) {
	if cap(b.buf) <= maxPooledBatch {
		batches.Put(b)
	}
}

// batch is a run of stored events: payload i is buf[ends[i-1]:ends[i]].
type batch struct {
	seqs []int64
	ends []int
	buf  []byte
}

func (b *batch) add(seq int64, payload []byte) {
	b.seqs = append(b.seqs, seq)
	b.buf = append(b.buf, payload...)
	b.ends = append(b.ends, len(b.buf))
}

func (b *batch) full() bool { return len(b.seqs) >= batchEvents || len(b.buf) >= batchBytes }

func (b *batch) reset() { b.seqs, b.ends, b.buf = b.seqs[:0], b.ends[:0], b.buf[:0] }

// decode decodes the batch's events in order with d and hands each to fn.
func (b *batch) decode(d *Decoder, fn func(helikon.SessionEvent) error) error {
	start := 0
	for i, seq := range b.seqs {
		ev, err := d.Decode(seq, b.buf[start:b.ends[i]])
		if err != nil {
			return err
		}
		if err := fn(ev); err != nil {
			return err
		}
		start = b.ends[i]
	}
	return nil
}

// errStopped ends a read whose decoder has stopped; the decoder's error is
// the one returned.
var errStopped = errors.New("decoder stopped")

// DecodeAhead reads with read and decodes what it emits, handing each event
// to fn in order, as a store's read loop calling [Decoder.Decode] then fn
// would. A long read is decoded on a second goroutine while the store reads
// on, so that the store's work and the decoding overlap instead of taking
// turns. That pays for a store in the process, whose reads are the
// process's own CPU: a cold SQLite load of 4,000 events took 0.69–0.77× the
// time of decoding in the read loop. For a store across a socket it does
// not: the server takes the core the decoder would (PostgreSQL 1.02–1.03×,
// Redis 0.94–1.0×), so those backends decode in their read loops. A read
// of fewer than one batch of events (an incremental load) is decoded
// inline, with no goroutine. fn runs on one goroutine at a time, never
// after DecodeAhead returns.
//
// An error from read, the decoder or fn ends the load with that error; the
// first of them is returned.
func DecodeAhead(ctx context.Context, read RawFunc, fn func(helikon.SessionEvent) error) error {
	a := ahead{fn: fn, cur: getBatch()}
	finished := false
	defer func() {
		if !finished { // read panicked: end the decoder before the panic goes on
			a.finish(errReadPanicked)
		}
	}()
	err := read(func(seq int64, payload []byte) error { return a.emit(ctx, seq, payload) })
	finished = true
	return a.finish(err)
}

// errReadPanicked ends a load whose read panicked.
var errReadPanicked = errors.New("eventcodec: the read panicked")

// ahead is the state of one [DecodeAhead].
type ahead struct {
	fn  func(helikon.SessionEvent) error
	dec Decoder // used by one goroutine at a time
	cur *batch  // the batch being filled

	started bool
	full    chan *batch   // filled batches, to the decoder
	free    chan *batch   // decoded batches, back to the reader
	stop    chan struct{} // closed when the decoder stops early
	made    int           // batches allocated so far
	wg      sync.WaitGroup
	decErr  error // the decoder's error; read after wg.Wait
}

func (a *ahead) emit(ctx context.Context, seq int64, payload []byte) error {
	if a.cur == nil { // a read that goes on after emit failed
		return errStopped
	}
	a.cur.add(seq, payload)
	if !a.cur.full() {
		return nil
	}
	if !a.started {
		a.start()
	}
	// A select picks at random among ready cases, and once the decoder has
	// stopped it drains what it is handed, so a hand-off would often
	// still succeed: the stop is looked at first, or the read could go on
	// for several batches nobody decodes.
	if a.stopped() {
		return errStopped
	}
	select {
	case a.full <- a.cur:
		a.cur = nil // the decoder's now
	case <-a.stop:
		return errStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	if a.made < batchesInFlight {
		a.made++
		a.cur = getBatch()
		return nil
	}
	if a.stopped() {
		return errStopped
	}
	select {
	case a.cur = <-a.free:
		a.cur.reset()
		return nil
	case <-a.stop:
		return errStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stopped reports whether the decoder has stopped early.
func (a *ahead) stopped() bool {
	select {
	case <-a.stop:
		return true
	default:
		return false
	}
}

func (a *ahead) start() {
	a.started = true
	a.made = 1
	a.full = make(chan *batch, 1)
	a.free = make(chan *batch, batchesInFlight)
	a.stop = make(chan struct{})
	a.wg.Go(func() {
		for b := range a.full {
			if a.decErr == nil {
				if a.decErr = b.decode(&a.dec, a.fn); a.decErr != nil {
					close(a.stop)
				}
			}
			a.free <- b
		}
	})
}

// finish decodes what is left once the read has ended with readErr, waits
// for the decoder, and returns the load's first error.
func (a *ahead) finish(readErr error) error {
	if !a.started {
		defer putBatch(a.cur)
		if readErr != nil {
			return readErr
		}
		return a.cur.decode(&a.dec, a.fn)
	}
	if a.cur != nil && readErr == nil && len(a.cur.seqs) > 0 {
		select {
		case a.full <- a.cur:
			a.cur = nil
		case <-a.stop:
		}
	}
	if a.cur != nil {
		putBatch(a.cur)
	}
	close(a.full)
	a.wg.Wait()
	close(a.free)
	for b := range a.free {
		putBatch(b)
	}
	if a.decErr != nil {
		return a.decErr
	}
	return readErr
}
