package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// readPage is how many stream entries one XRANGE reads. A page bounds the
// reply a read holds and how long one command keeps the server busy; at
// about 300 bytes an event it is a reply of a few hundred KiB.
var readPage = 1000

// maxPooledReply is the largest reply buffer kept for reuse.
const maxPooledReply = 4 << 20

// replyBuffers holds the buffers pages are read into, so that a load does
// not allocate (and the collector reclaim) a reply-sized buffer per page.
var replyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// each reads the events after position after, in order, a page of
// entries at a time. It takes each page's reply as raw RESP and decodes the
// payloads straight from the reply's bytes: go-redis's XRANGE reply builds
// a map and a string per field, about 15 allocations an entry, which were
// most of a load's cost.
func (s *Session) each(ctx context.Context, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	next := int64(0)
	if after >= 0 {
		next = int64(after) + 1
	}
	var dec eventcodec.Decoder // one per read: the events share their names
	buf := replyBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledReply {
			replyBuffers.Put(buf)
		}
	}()
	for page := 0; ; page++ {
		n := 0
		var fnErr error
		err := s.page(ctx, buf, next, func(seq int64, payload []byte) error {
			// A stream holds one entry per sequence id and loses entries
			// only from its front (WithMaxLen), so the pages of one read
			// join up unless a trim overtook the read between two pages.
			if page > 0 && n == 0 && seq != next {
				return fmt.Errorf("%w: the next event after %d is %d", ErrTrimmedDuringRead, next-1, seq)
			}
			ev, err := dec.Decode(seq, payload)
			if err != nil {
				return err
			}
			if err := fn(ev); err != nil {
				fnErr = err
				return err
			}
			next = seq + 1
			n++
			return nil
		})
		switch {
		case fnErr != nil:
			return fnErr
		case err != nil:
			return err
		case n < readPage:
			return nil
		}
	}
}

// page reads up to readPage entries from sequence id next on into buf and
// calls fn with each one's seq and payload.
//
// A raw reply is beyond go-redis's handling of it: it neither retries the
// command on a broken connection (it cannot take back what it wrote to
// buf) nor follows a cluster's MOVED or ASK. So page retries once itself,
// and on a redirection (or a cluster's TRYAGAIN or CLUSTERDOWN) reads the
// page again through go-redis's parsed XRANGE, which follows it and
// refreshes the client's view of the cluster.
func (s *Session) page(ctx context.Context, buf *bytes.Buffer, next int64, fn func(seq int64, payload []byte) error) error {
	start := strconv.FormatInt(next, 10) + "-0"
	for attempt := 0; ; attempt++ {
		buf.Reset()
		cmd := redis.NewRawWriteToCmd(ctx, buf, "xrange", s.events, start, "+", "COUNT", readPage)
		cmd.SetFirstKeyPos(1)
		err := s.client.Process(ctx, cmd)
		if err == nil {
			err = eachEntry(buf.Bytes(), fn)
			var rerr replyError
			if errors.As(err, &rerr) && rerr.redirect() {
				return s.parsedPage(ctx, start, fn)
			}
			if err != nil {
				return fmt.Errorf("redis: read session %q: %w", s.id, err)
			}
			return nil
		}
		var rerr redis.Error
		if attempt == 0 && !errors.As(err, &rerr) && ctx.Err() == nil {
			continue
		}
		return wrap(fmt.Sprintf("read session %q", s.id), err)
	}
}

// parsedPage is page through go-redis's parsed XRANGE reply.
func (s *Session) parsedPage(ctx context.Context, start string, fn func(seq int64, payload []byte) error) error {
	msgs, err := s.client.XRangeN(ctx, s.events, start, "+", int64(readPage)).Result()
	if err != nil {
		return wrap(fmt.Sprintf("read session %q", s.id), err)
	}
	for _, m := range msgs {
		var seqField []byte
		if f, ok := m.Values["seq"].(string); ok {
			seqField = []byte(f)
		}
		seq, err := entrySeq([]byte(m.ID), seqField)
		if err != nil {
			return fmt.Errorf("redis: read session %q: entry %s: %w", s.id, m.ID, err)
		}
		payload, ok := m.Values["payload"].(string)
		if !ok {
			return fmt.Errorf("redis: read session %q: entry %s: no payload: %w", s.id, m.ID, errMalformedReply)
		}
		if err := fn(seq, []byte(payload)); err != nil {
			return err
		}
	}
	return nil
}

// errMalformedReply reports a reply that is not the RESP of an XRANGE.
var errMalformedReply = errors.New("malformed XRANGE reply")

// replyError is an error the server replied with, kept as the raw reply
// keeps it.
type replyError string

func (e replyError) Error() string { return string(e) }

// RedisError marks e as the server's reply, as go-redis's own errors are.
func (replyError) RedisError() {}

// redirect reports a cluster's reply that the command must go elsewhere or
// wait: go-redis handles these for the commands it parses.
func (e replyError) redirect() bool {
	for _, p := range []string{"MOVED ", "ASK ", "TRYAGAIN", "CLUSTERDOWN"} {
		if strings.HasPrefix(string(e), p) {
			return true
		}
	}
	return false
}

// eachEntry calls fn with the seq and payload fields of every entry of
// reply, the raw RESP2 or RESP3 reply of an XRANGE, in order. payload is a
// part of reply. Every length is checked against what remains, so a
// malformed reply is an error, never a read out of bounds.
func eachEntry(reply []byte, fn func(seq int64, payload []byte) error) error {
	r := resp{b: reply}
	if len(r.b) > 0 && (r.b[0] == '-' || r.b[0] == '!') {
		return r.serverError()
	}
	entries, err := r.aggregate('*')
	if err != nil {
		return err
	}
	for range entries {
		if n, err := r.aggregate('*'); err != nil || n != 2 {
			return errors.Join(errMalformedReply, err)
		}
		id, err := r.bulk()
		if err != nil {
			return err
		}
		fields, err := r.fields()
		if err != nil {
			return err
		}
		var seqField, payload []byte
		for range fields {
			k, err := r.bulk()
			if err != nil {
				return err
			}
			v, err := r.bulk()
			if err != nil {
				return err
			}
			switch string(k) {
			case "seq":
				seqField = v
			case "payload":
				payload = v
			}
		}
		seq, err := entrySeq(id, seqField)
		if err != nil {
			return fmt.Errorf("entry %s: %w", id, err)
		}
		if payload == nil {
			return fmt.Errorf("entry %s: no payload: %w", id, errMalformedReply)
		}
		if err := fn(seq, payload); err != nil {
			return err
		}
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%w: %d bytes after the last entry", errMalformedReply, len(r.b))
	}
	return nil
}

// resp reads RESP values from the front of b.
type resp struct{ b []byte }

// line returns the text after the type byte up to CRLF and moves past it.
func (r *resp) line(typ byte) ([]byte, error) {
	if len(r.b) == 0 || r.b[0] != typ {
		return nil, errMalformedReply
	}
	for i := 1; i+1 < len(r.b); i++ {
		if r.b[i] == '\r' {
			if r.b[i+1] != '\n' {
				return nil, errMalformedReply
			}
			l := r.b[1:i]
			r.b = r.b[i+2:]
			return l, nil
		}
	}
	return nil, errMalformedReply
}

// aggregate reads the header of an aggregate of type typ and returns its
// element count (pairs, for a map).
func (r *resp) aggregate(typ byte) (int, error) {
	l, err := r.line(typ)
	if err != nil {
		return 0, err
	}
	n, err := parseInt(l)
	// Every element takes at least 4 bytes ("$0\r\n" or more), so a count
	// the rest of the reply cannot hold is malformed.
	if err != nil || n < 0 || n > int64(len(r.b)/4) {
		return 0, errMalformedReply
	}
	return int(n), nil
}

// fields reads the header of an entry's field list, an array in RESP2 and
// in Redis's RESP3 replies (a map is accepted too), and returns its number
// of field-value pairs.
func (r *resp) fields() (int, error) {
	if len(r.b) > 0 && r.b[0] == '%' {
		return r.aggregate('%')
	}
	n, err := r.aggregate('*')
	if err != nil || n%2 != 0 {
		return 0, errMalformedReply
	}
	return n / 2, nil
}

// bulk reads a bulk string.
func (r *resp) bulk() ([]byte, error) { return r.bulkOf('$') }

// bulkOf reads a length-prefixed value of type typ: a bulk string ('$')
// or a blob error ('!').
func (r *resp) bulkOf(typ byte) ([]byte, error) {
	l, err := r.line(typ)
	if err != nil {
		return nil, err
	}
	n, err := parseInt(l)
	if err != nil || n < 0 || n > int64(len(r.b))-2 {
		return nil, errMalformedReply
	}
	v := r.b[:n:n]
	if r.b[n] != '\r' || r.b[n+1] != '\n' {
		return nil, errMalformedReply
	}
	r.b = r.b[n+2:]
	return v, nil
}

// serverError returns the error reply at the front of r.
func (r *resp) serverError() error {
	if r.b[0] == '!' {
		msg, err := r.bulkOf('!')
		if err != nil {
			return err
		}
		return replyError(msg)
	}
	msg, err := r.line('-')
	if err != nil {
		return err
	}
	return replyError(msg)
}

// parseInt parses a non-negative decimal int64 without allocating.
func parseInt(b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 18 {
		return 0, errMalformedReply
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errMalformedReply
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

// entrySeq returns the sequence id of the entry with stream ID id and,
// when it has one, the seq field seqField. Every entry this package writes
// has the ID "<seq>-1"; an entry with another ID (one added by hand with
// an automatic ID, say) or a seq field that disagrees with it is not one
// of the session's events.
func entrySeq(id, seqField []byte) (int64, error) {
	num, ok := bytes.CutSuffix(id, []byte("-1"))
	seq, err := parseInt(num)
	if !ok || err != nil {
		return 0, fmt.Errorf("%w: the ID is not <seq>-1", errMalformedReply)
	}
	if seqField != nil && !bytes.Equal(seqField, num) {
		return 0, fmt.Errorf("%w: seq field %q disagrees with the ID", errMalformedReply, seqField)
	}
	return seq, nil
}
