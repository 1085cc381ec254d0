package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// eachInStream reads the events after position after from the session's
// stream, a page of entries at a time. It takes each page's reply as raw
// RESP and decodes the payloads straight from the reply's bytes:
// go-redis's XRANGE reply builds a map and a string per field, about 15
// allocations an entry, which were most of a load's cost.
func (s *Session) eachInStream(ctx context.Context, buf *bytes.Buffer, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	next := int64(0)
	if after >= 0 {
		next = int64(after) + 1
	}
	var dec eventcodec.Decoder // one per read: the events share their names
	for page := 0; ; page++ {
		n := 0
		var fnErr error
		err := s.streamPage(ctx, buf, next, func(seq int64, payload []byte) error {
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

// streamPage reads up to readPage entries from sequence id next on into
// buf and calls fn with each one's seq and payload.
func (s *Session) streamPage(ctx context.Context, buf *bytes.Buffer, next int64, fn func(seq int64, payload []byte) error) error {
	start := strconv.FormatInt(next, 10) + "-0"
	parse := func(reply []byte) error {
		if err := eachEntry(reply, fn); err != nil {
			return fmt.Errorf("redis: read session %q: %w", s.id, err)
		}
		return nil
	}
	return s.raw(ctx, buf, parse, func() error { return s.parsedStreamPage(ctx, start, fn) },
		"xrange", s.events, start, "+", "COUNT", readPage)
}

// parsedStreamPage is streamPage through go-redis's parsed XRANGE reply.
func (s *Session) parsedStreamPage(ctx context.Context, start string, fn func(seq int64, payload []byte) error) error {
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

// eachEntry calls fn with the seq and payload fields of every entry of
// reply, the raw RESP2 or RESP3 reply of an XRANGE, in order. payload is a
// part of reply.
func eachEntry(reply []byte, fn func(seq int64, payload []byte) error) error {
	r := resp{b: reply}
	entries, err := r.reply()
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
	return r.end()
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
