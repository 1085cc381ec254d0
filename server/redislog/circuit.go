package redislog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Log notes when a read or a write finds Redis unreachable (a dial
// refused or timed out, a connection dropped, no answer within the log's
// own deadline) and from then on fails its reads and writes at once,
// without a round trip, until a probe finds Redis answering again.
// Without it every write to a dead Redis paid the client's whole dial and
// retry budget, one after the other: a run's last records, then its
// status, then the release of the lease (1.6 s each with MaxRetries 1 and
// a refused dial, most of it the client's dial backoff), which a server
// shutting down spent its grace on; and every read did too (Info, each
// stream's Tail, GET /runs), each request to a server paying it again.

// ErrUnavailable reports a read or write the log did not send because an
// earlier one found Redis unreachable and no probe has found it back
// since. The error wraps the failure that found it so.
var ErrUnavailable = errors.New("redislog: Redis is unreachable")

// probeEvery is the pause between the probes of a Redis found
// unreachable: the longest the log refuses writes once Redis is back,
// beside the probe's own round trip.
const probeEvery = 250 * time.Millisecond

// probeTimeout bounds one probe, whatever the client's own timeouts.
const probeTimeout = 2 * time.Second

// circuit holds whether Redis was last found unreachable.
type circuit struct {
	mu   sync.Mutex
	down error         // the failure that found Redis unreachable; nil while it answers
	trip chan struct{} // wakes the prober when down is set (buffered)
}

// open returns the error a write fails with while Redis is taken for
// unreachable, or nil.
func (c *circuit) open() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, c.down)
}

// note takes what came of a write Redis was sent: an error saying Redis is
// unreachable opens the circuit, an answer (even an error reply) closes
// it. ctx is the context the write ran under: once the caller gave up
// (or its own deadline passed) the error says nothing of Redis.
func (c *circuit) note(ctx context.Context, err error) {
	if ctx.Err() != nil || errors.Is(err, ErrUnavailable) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err == nil || answered(err):
		c.down = nil
	case unreachable(err) && c.down == nil:
		c.down = err
		select {
		case c.trip <- struct{}{}:
		default:
		}
	}
}

// answered reports whether err is Redis's reply, which only a reachable
// Redis gives.
func answered(err error) bool {
	_, ok := errors.AsType[redis.Error](err)
	return ok
}

// unreachable reports whether err says Redis cannot be reached: the
// network failed or Redis did not answer in time. A client out of pooled
// connections, or closed, says nothing of Redis.
func unreachable(err error) bool {
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded)
}

// probe pings a Redis found unreachable every probeEvery, until it
// answers (which closes the circuit) or Close, then stores the status
// changes kept meanwhile.
func (l *Log) probe() {
	defer l.wg.Done()
	t := time.NewTimer(probeEvery)
	defer t.Stop()
	for {
		select {
		case <-l.circuit.trip:
		case <-l.stop:
			return
		}
		for l.circuit.open() != nil {
			t.Reset(probeEvery)
			select {
			case <-t.C:
			case <-l.stop:
				return
			}
			ctx, cancel := context.WithTimeout(l.life, probeTimeout)
			err := l.client.Ping(ctx).Err()
			cancel()
			// A probe that timed out under the log's own deadline
			// found Redis still unreachable: note it as a write's.
			l.circuit.note(context.Background(), err)
		}
		// Found unreachable again while they are stored, the circuit
		// wakes this loop again.
		l.storeKept()
	}
}

// guard runs op, a read or a write of Redis under ctx, unless Redis was
// found unreachable, and notes what came of it. op gets ctx bounded by
// the log's callTimeout, and an op that outlives it found Redis
// unreachable.
func (l *Log) guard(ctx context.Context, op func(ctx context.Context) error) error {
	if err := l.circuit.open(); err != nil {
		return err
	}
	octx, cancel := context.WithTimeout(ctx, l.callTimeout)
	defer cancel()
	err := op(octx)
	l.circuit.note(ctx, err)
	return err
}
