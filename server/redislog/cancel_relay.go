package redislog

import (
	"context"
	"fmt"

	"github.com/paigasus/helikon/server"
)

// Cancels travel over Redis Pub/Sub: each replica subscribes to its own
// channel <prefix>replica:<id>:cancel from [New] until [Log.Close], and a
// replica asked to cancel a run it does not drive publishes the run id on
// the channel of the run's owner (the info hash's owner field). PUBLISH
// answers how many subscribers received it, so a cancel nobody heard is
// reported rather than lost silently.

// listen subscribes to the replica's cancel channel and hands what
// arrives to the handlers until Close.
func (l *Log) listen(ctx context.Context) error {
	l.sub = l.client.Subscribe(ctx, l.cancelChannel(l.replica))
	// Receive waits for the subscription's confirmation, so a cancel
	// published once New returns is heard.
	if _, err := l.sub.Receive(ctx); err != nil {
		_ = l.sub.Close()
		return fmt.Errorf("redislog: subscribe to cancels: %w", err)
	}
	ch := l.sub.Channel()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for msg := range ch { // closed by Close
			l.hmu.Lock()
			hs := make([]func(string), 0, len(l.handlers))
			for _, h := range l.handlers {
				hs = append(hs, h)
			}
			l.hmu.Unlock()
			for _, h := range hs {
				h(msg.Payload)
			}
		}
	}()
	return nil
}

// RelayCancel publishes the cancel of runID on the channel of the replica
// that owns the run. It fails with an error wrapping
// [server.ErrCancelUndelivered] when that replica is not subscribed (its
// log was closed, or it crashed), and with [server.ErrRunNotFound] for an
// unknown run.
func (l *Log) RelayCancel(ctx context.Context, runID string) error {
	_, owner, err := l.read(ctx, runID)
	if err != nil {
		return err
	}
	var n int64
	err = l.guard(ctx, func(ctx context.Context) (err error) {
		n, err = l.client.Publish(ctx, l.cancelChannel(owner), runID).Result()
		return err
	})
	if err != nil {
		return fmt.Errorf("redislog: relay cancel of %s: %w", runID, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: replica %s is not subscribed", server.ErrCancelUndelivered, owner)
	}
	return nil
}

// OnCancel registers fn for the cancels other replicas relay to this one;
// a [server.Server] on this log registers itself. fn runs on the log's
// listening goroutine and must not block.
func (l *Log) OnCancel(fn func(runID string)) (stop func()) {
	l.hmu.Lock()
	id := l.nextH
	l.nextH++
	l.handlers[id] = fn
	l.hmu.Unlock()
	return func() {
		l.hmu.Lock()
		delete(l.handlers, id)
		l.hmu.Unlock()
	}
}
