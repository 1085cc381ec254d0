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
// stream, a page of entries at a time, decoding each payload straight from
// the raw reply: go-redis's XRANGE reply builds a map and a string per
// field, about 15 allocations an entry, which were most of a load's cost.
func (s *Session) eachInStream(ctx context.Context, buf *bytes.Buffer, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	next := max(int64(after)+1, 0)
	var (
		dec   eventcodec.Decoder // one per read: the events share their names
		items []item
	)
	for page := 0; ; page++ {
		var err error
		if items, err = s.streamPage(ctx, buf, items[:0], next); err != nil {
			return err
		}
		// A stream holds one entry per sequence id and loses entries only
		// from its front (WithMaxLen), so the pages of one read join up
		// unless a trim overtook the read between two pages.
		if page > 0 && len(items) > 0 && items[0].seq != next {
			return fmt.Errorf("%w: the next event after %d is %d", ErrTrimmedDuringRead, next-1, items[0].seq)
		}
		if err := s.deliver(&dec, items, fn); err != nil {
			return err
		}
		if len(items) < readPage {
			return nil
		}
		next = items[len(items)-1].seq + 1
	}
}

// deliver decodes items and calls fn with each event, in order.
func (s *Session) deliver(dec *eventcodec.Decoder, items []item, fn func(helikon.SessionEvent) error) error {
	for _, it := range items {
		ev, err := dec.Decode(it.seq, it.payload)
		if err != nil {
			return fmt.Errorf("redis: read session %q: %w", s.id, err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	return nil
}

// streamPage reads up to readPage entries from sequence id next on and
// appends them to items.
func (s *Session) streamPage(ctx context.Context, buf *bytes.Buffer, items []item, next int64) ([]item, error) {
	start := strconv.FormatInt(next, 10) + "-0"
	parse := func(reply []byte) error {
		var err error
		if items, err = appendEntries(items, reply); err != nil {
			return fmt.Errorf("redis: read session %q: %w", s.id, err)
		}
		return nil
	}
	parsed := func() error {
		var err error
		items, err = s.parsedStreamPage(ctx, items, start)
		return err
	}
	err := s.raw(ctx, buf, parse, parsed, "xrange", s.events, start, "+", "COUNT", readPage)
	return items, err
}

// parsedStreamPage is streamPage through go-redis's parsed XRANGE reply.
func (s *Session) parsedStreamPage(ctx context.Context, items []item, start string) ([]item, error) {
	msgs, err := s.client.XRangeN(ctx, s.events, start, "+", int64(readPage)).Result()
	if err != nil {
		return items, wrap(fmt.Sprintf("read session %q", s.id), err)
	}
	for _, m := range msgs {
		var seqField []byte
		if f, ok := m.Values["seq"].(string); ok {
			seqField = []byte(f)
		}
		payload, ok := m.Values["payload"].(string)
		var p []byte
		if ok {
			p = []byte(payload)
		}
		if items, err = appendEntry(items, []byte(m.ID), seqField, p); err != nil {
			return items, fmt.Errorf("redis: read session %q: %w", s.id, err)
		}
	}
	return items, nil
}

// appendEntries appends the entries of reply, the raw RESP2 or RESP3
// reply of an XRANGE, to items.
func appendEntries(items []item, reply []byte) ([]item, error) {
	r := resp{b: reply}
	entries, err := r.reply()
	if err != nil {
		return items, err
	}
	for range entries {
		if n, err := r.aggregate('*'); err != nil || n != 2 {
			return items, errors.Join(errMalformedReply, err)
		}
		id, err := r.bulk()
		if err != nil {
			return items, err
		}
		fields, err := r.fields()
		if err != nil {
			return items, err
		}
		var seqField, payload []byte
		for range fields {
			k, err := r.bulk()
			if err != nil {
				return items, err
			}
			v, err := r.bulk()
			if err != nil {
				return items, err
			}
			switch string(k) {
			case "seq":
				seqField = v
			case "payload":
				payload = v
			}
		}
		if items, err = appendEntry(items, id, seqField, payload); err != nil {
			return items, err
		}
	}
	return items, r.end()
}

// appendEntry appends the entry with stream ID id, seq field seqField (nil
// when it has none) and payload to items. Every entry this package writes
// has the ID "<seq>-1" and a payload; an entry with another ID (one added
// by hand with an automatic ID, say), a seq field that disagrees with it,
// or no payload is not one of the session's events.
func appendEntry(items []item, id, seqField, payload []byte) ([]item, error) {
	num, ok := bytes.CutSuffix(id, []byte("-1"))
	seq, err := parseInt(num)
	switch {
	case !ok || err != nil:
		return items, fmt.Errorf("entry %s: %w: the ID is not <seq>-1", id, errMalformedReply)
	case seqField != nil && !bytes.Equal(seqField, num):
		return items, fmt.Errorf("entry %s: %w: seq field %q disagrees with the ID", id, errMalformedReply, seqField)
	case payload == nil:
		return items, fmt.Errorf("entry %s: %w: no payload", id, errMalformedReply)
	}
	return append(items, item{seq: seq, payload: payload}), nil
}
