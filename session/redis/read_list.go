package redis

import (
	"bytes"
	"context"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// item is one event of a page of the session's list, its payload a part
// of the page's reply.
type item struct {
	seq     int64
	payload []byte
}

// maxMisses is how many pages in a row one list read may find somewhere
// other than where it asked before it reports [ErrTrimmedDuringRead].
const maxMisses = 3

// eachInList reads the events after position after from the session's
// list, a page at a time, decoding each payload straight from the raw
// reply.
//
// A list is read by position, and a trim ([WithMaxLen]) moves every
// position, so a page cannot be asked for by sequence id as a stream's
// can. Every item carries its sequence id, though, so each page checks
// where it landed. A read that has a position to start from (the
// session's last known start, or the page before) asks from one item
// early, the last one it already has: that item, the anchor, must come
// back first, so an empty or displaced page is told apart from the end of
// the log. A page that missed its anchor is asked for again where its
// first item says the log now starts, or from the log's start; an empty
// one, after a look at the log's last item to tell whether the log ends
// before the anchor.
func (s *Session) eachInList(ctx context.Context, buf *bytes.Buffer, after helikon.SequenceID, fn func(helikon.SessionEvent) error) error {
	want := int64(after) + 1 // the next sequence id to return
	start, anchored := listStart(s.listBase.Load(), want)
	var (
		dec       eventcodec.Decoder // one per read: the events share their names
		items     []item
		delivered bool
	)
	for misses := 0; ; {
		count := int64(readPage)
		if anchored {
			count++
		}
		var err error
		items, err = s.listPage(ctx, buf, items[:0], start, count)
		if err != nil {
			return err
		}
		got := int64(len(items))
		var base int64
		if got > 0 {
			base = items[0].seq - start
			s.listBase.Store(base)
		}
		landed := true
		switch {
		case anchored:
			landed = got > 0 && items[0].seq == want-1
			if landed {
				items = items[1:]
			}
		case got > 0 && items[0].seq < want:
			// Read from the start of a log that begins before want: the
			// page holds the anchor, unless it is full first or the log
			// ends before it.
			skip := want - items[0].seq
			if skip > got {
				landed = got < count
				skip = got
			}
			items = items[skip:]
		case got > 0 && items[0].seq > want && delivered:
			return fmt.Errorf("%w: the next event after %d is %d", ErrTrimmedDuringRead, want-1, items[0].seq)
		}
		if !landed {
			if anchored && got == 0 {
				// Nothing at the anchor's position: either the log ends
				// before it or its positions moved. Its last item tells.
				last, err := s.listPage(ctx, buf, items[:0], -1, 1)
				if err != nil {
					return err
				}
				if len(last) == 0 || last[0].seq < want {
					return nil
				}
			}
			if misses++; misses == maxMisses {
				return fmt.Errorf("%w: %d pages in a row were not where the log was", ErrTrimmedDuringRead, misses)
			}
			start, anchored = 0, false
			if got > 0 {
				start, anchored = listStart(base, want)
			}
			continue
		}
		misses = 0
		if err := s.deliver(&dec, items, fn); err != nil {
			return err
		}
		if len(items) > 0 {
			want, delivered = items[len(items)-1].seq+1, true
		}
		if got < count {
			return nil
		}
		// The page's last item is the next page's anchor.
		start, anchored = start+got-1, true
	}
}

// listStart returns where a read of the events from sequence id want on
// starts in a list whose first item has sequence id base: at the anchor,
// the item before want, or at the start when there is none.
func listStart(base, want int64) (start int64, anchored bool) {
	if want == 0 || want-1 < base {
		return 0, false
	}
	return want - 1 - base, true
}

// listPage reads count items from position start on and appends them to
// items.
func (s *Session) listPage(ctx context.Context, buf *bytes.Buffer, items []item, start, count int64) ([]item, error) {
	parse := func(reply []byte) error {
		var err error
		if items, err = appendItems(items, reply); err != nil {
			return fmt.Errorf("redis: read session %q: %w", s.id, err)
		}
		return nil
	}
	parsed := func() error {
		var err error
		items, err = s.parsedListPage(ctx, items, start, count)
		return err
	}
	err := s.raw(ctx, buf, parse, parsed, "lrange", s.events, start, start+count-1)
	return items, err
}

// parsedListPage is listPage through go-redis's parsed LRANGE reply.
func (s *Session) parsedListPage(ctx context.Context, items []item, start, count int64) ([]item, error) {
	vals, err := s.client.LRange(ctx, s.events, start, start+count-1).Result()
	if err != nil {
		return items, wrap(fmt.Sprintf("read session %q", s.id), err)
	}
	for _, v := range vals {
		if items, err = appendItem(items, []byte(v)); err != nil {
			return items, fmt.Errorf("redis: read session %q: %w", s.id, err)
		}
	}
	return items, nil
}

// appendItems appends the items of reply, the raw RESP2 or RESP3 reply of
// an LRANGE, to items.
func appendItems(items []item, reply []byte) ([]item, error) {
	r := resp{b: reply}
	n, err := r.reply()
	if err != nil {
		return items, err
	}
	for range n {
		v, err := r.bulk()
		if err != nil {
			return items, err
		}
		if items, err = appendItem(items, v); err != nil {
			return items, err
		}
	}
	return items, r.end()
}

// appendItem appends the list item v, "<seq> <payload>", to items. Items
// of a list are consecutive events, so one out of order is malformed.
func appendItem(items []item, v []byte) ([]item, error) {
	num, payload, ok := bytes.Cut(v, []byte(" "))
	seq, err := parseInt(num)
	if !ok || err != nil {
		return items, fmt.Errorf("%w: a list item that is not <seq> <payload>", errMalformedReply)
	}
	if len(items) > 0 && seq != items[len(items)-1].seq+1 {
		return items, fmt.Errorf("%w: item %d after item %d", errMalformedReply, seq, items[len(items)-1].seq)
	}
	return append(items, item{seq: seq, payload: payload}), nil
}
