package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
)

// readPage is how many events one read command asks for. A page bounds
// the reply a read holds and how long one command keeps the server busy;
// at about 300 bytes an event it is a reply of a few hundred KiB.
var readPage = 1000

// maxPooledReply is the largest reply buffer kept for reuse.
const maxPooledReply = 4 << 20

// errLayoutChanged reports a read whose session became a list (or a
// stream) between two of its pages. Events and loads read again.
var errLayoutChanged = errors.New("redis: the session's layout changed during a read")

// replyBuffers holds the buffers pages are read into, so that a load does
// not allocate (and the collector reclaim) a reply-sized buffer per page.
var replyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// each calls fn with the events after position after, in order, read from
// the session's list or, for a session stored as a stream, its stream.
//
// The layout the session was last read in is tried first; a WRONGTYPE
// reply to it means the key holds the other one (a session created by
// another version, or under another [WithStreamLayout] setting), which is
// then read and remembered.
func (s *Session) each(ctx context.Context, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	switch {
	case after == math.MaxInt64:
		return ctx.Err() // nothing follows it, and after+1 would overflow
	case after < helikon.Beginning:
		after = helikon.Beginning
	}
	buf := replyBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledReply {
			replyBuffers.Put(buf)
		}
	}()
	delivered := false
	deliver := func(ev helikon.SessionEvent) error {
		delivered = true
		return fn(ev)
	}
	l := s.readLayout()
	for switched := false; ; switched = true {
		var err error
		if l == layoutList {
			err = s.eachInList(ctx, buf, after, deliver)
		} else {
			err = s.eachInStream(ctx, buf, after, deliver)
		}
		if isReply(err, "WRONGTYPE") && !switched {
			if delivered {
				// Converted (ConvertToList) between two pages: the read
				// starts over, as after a trim.
				return fmt.Errorf("%w: %w", errLayoutChanged, err)
			}
			l = l.other()
			continue
		}
		if err == nil {
			s.layout.Store(int32(l))
		}
		return err
	}
}

// raw sends args, whose reply parse reads from buf as raw RESP.
//
// A raw reply is beyond go-redis's handling of it: it neither retries the
// command on a broken connection (it cannot take back what it wrote to
// buf) nor follows a cluster's MOVED or ASK. So raw retries once itself,
// and on a redirection (or a cluster's TRYAGAIN or CLUSTERDOWN) calls
// parsed, which reads the page again through go-redis's parsed reply and
// so follows it and refreshes the client's view of the cluster.
func (s *Session) raw(ctx context.Context, buf *bytes.Buffer, parse func(reply []byte) error, parsed func() error, args ...any) error {
	for attempt := 0; ; attempt++ {
		buf.Reset()
		cmd := redis.NewRawWriteToCmd(ctx, buf, args...)
		cmd.SetFirstKeyPos(1)
		err := s.client.Process(ctx, cmd)
		if err == nil {
			err = parse(buf.Bytes())
			var rerr replyError
			if errors.As(err, &rerr) && rerr.redirect() {
				return parsed()
			}
			return err
		}
		var rerr redis.Error
		if attempt == 0 && !errors.As(err, &rerr) && ctx.Err() == nil {
			continue
		}
		return wrap(fmt.Sprintf("read session %q", s.id), err)
	}
}
