package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sessiontest"
)

// A stream converts to a list of the same events under the same ids,
// entries of every earlier form included, and appends go on after them.
func TestConvertToList_KeepsEveryEventAndItsID(t *testing.T) {
	many := make([]helikon.SessionEvent, 2500) // more than the script's page of 1,000
	for i := range many {
		many[i] = session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})
	}
	for _, tc := range []struct {
		name   string
		opts   []Option
		events []helikon.SessionEvent
	}{
		{"payload-only entries", nil, sessiontest.AllKinds()},
		{"entries with seq", []Option{WithSeqField()}, sessiontest.AllKinds()},
		{"a trimmed stream", []Option{WithMaxLen(5)}, sessiontest.AllKinds()},
		{"a stream of several pages", nil, many},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := testClient(t)
			s := openInternal(t, client, sessiontest.UniqueID(t), append(tc.opts, WithStreamLayout())...)
			if err := s.Append(t.Context(), tc.events...); err != nil {
				t.Fatal(err)
			}
			before, err := s.Events(t.Context(), helikon.Beginning)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.ConvertToList(t.Context()); err != nil {
				t.Fatal(err)
			}
			if typ, _ := client.Type(t.Context(), s.events).Result(); typ != "list" {
				t.Fatalf("TYPE after the conversion = %q, want list", typ)
			}
			if n, _ := client.Exists(t.Context(), s.seq).Result(); n != 0 {
				t.Fatal("the stream's counter is left after the conversion")
			}
			fresh := openInternal(t, client, s.id)
			after, err := fresh.Events(t.Context(), helikon.Beginning)
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(before) {
				t.Fatalf("the list holds %d events, the stream held %d", len(after), len(before))
			}
			for i := range before {
				if d := sessiontest.DiffEvent(before[i], after[i]); d != "" || before[i].Seq != after[i].Seq {
					t.Fatalf("event %d: seq %d → %d: %s", i, before[i].Seq, after[i].Seq, d)
				}
			}
			if err := fresh.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "next"})); err != nil {
				t.Fatal(err)
			}
			evs, err := fresh.Events(t.Context(), before[len(before)-1].Seq)
			if err != nil || len(evs) != 1 || evs[0].Seq != before[len(before)-1].Seq+1 {
				t.Fatalf("the append after the conversion = %v, %v; want the next id", seqsOf(evs), err)
			}
		})
	}
}

// A list, a session that does not exist and an empty stream (its counter
// the only record of the ids spent) are left as they are.
func TestConvertToList_LeavesWhatItNeedNotConvert(t *testing.T) {
	client := testClient(t)
	list := openInternal(t, client, sessiontest.UniqueID(t))
	if err := list.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "a"})); err != nil {
		t.Fatal(err)
	}
	empty := openInternal(t, client, sessiontest.UniqueID(t), WithStreamLayout())
	if err := empty.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "a"})); err != nil {
		t.Fatal(err)
	}
	if err := client.XTrimMaxLen(t.Context(), empty.events, 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		s        *Session
		wantType string
	}{
		{"a list", list, "list"},
		{"no session", openInternal(t, client, sessiontest.UniqueID(t)), "none"},
		{"an empty stream", empty, "stream"},
	} {
		if err := tc.s.ConvertToList(t.Context()); err != nil {
			t.Errorf("%s: ConvertToList = %v", tc.name, err)
		}
		if typ, _ := client.Type(t.Context(), tc.s.events).Result(); typ != tc.wantType {
			t.Errorf("%s: TYPE after ConvertToList = %q, want %s", tc.name, typ, tc.wantType)
		}
	}
}

// A stream the conversion cannot carry over whole is refused, and nothing
// changes.
func TestConvertToList_RefusesAndChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spoil    func(t *testing.T, client *redis.Client, s *Session)
		limit    int
		maxBytes int
		want     func(error) bool
	}{
		{"counter gone", func(t *testing.T, c *redis.Client, s *Session) { c.Del(t.Context(), s.seq) }, 100, 1 << 20,
			func(err error) bool { return errors.Is(err, ErrSequenceLost) }},
		{"an entry deleted from the middle", func(t *testing.T, c *redis.Client, s *Session) { c.XDel(t.Context(), s.events, "2-1") }, 100, 1 << 20,
			func(err error) bool { return errors.Is(err, helikon.ErrSessionCorrupt) }},
		{"entries deleted from the end", func(t *testing.T, c *redis.Client, s *Session) { c.XDel(t.Context(), s.events, "5-1") }, 100, 1 << 20,
			func(err error) bool { return errors.Is(err, helikon.ErrSessionCorrupt) }},
		{"an entry with a foreign ID", func(t *testing.T, c *redis.Client, s *Session) {
			c.XAdd(t.Context(), &redis.XAddArgs{Stream: s.events, ID: "99-7", Values: []any{"payload", "{}"}})
		}, 100, 1 << 20, func(err error) bool { return errors.Is(err, helikon.ErrSessionCorrupt) }},
		{"a seq field that disagrees with the ID", func(t *testing.T, c *redis.Client, s *Session) {
			c.XAdd(t.Context(), &redis.XAddArgs{Stream: s.events, ID: "6-1", Values: []any{"seq", "9", "payload", "{}"}})
			c.Incr(t.Context(), s.seq)
		}, 100, 1 << 20, func(err error) bool { return errors.Is(err, helikon.ErrSessionCorrupt) }},
		{"too many bytes", func(*testing.T, *redis.Client, *Session) {}, 100, 300,
			func(err error) bool { return errors.Is(err, ErrTooLongToConvert) }},
		{"too long", func(*testing.T, *redis.Client, *Session) {}, 5, 1 << 20,
			func(err error) bool { return errors.Is(err, ErrTooLongToConvert) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := testClient(t)
			s := openInternal(t, client, sessiontest.UniqueID(t), WithStreamLayout())
			for i := range 6 {
				if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
					t.Fatal(err)
				}
			}
			tc.spoil(t, client, s)
			before, err := client.XRange(t.Context(), s.events, "-", "+").Result()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.convertToList(t.Context(), tc.limit, tc.maxBytes); !tc.want(err) {
				t.Fatalf("convertToList = %v", err)
			}
			after, err := client.XRange(t.Context(), s.events, "-", "+").Result()
			if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("the stream changed: %v → %v (%v)", before, after, err)
			}
		})
	}
}

// Appends beside a conversion land before it (in the stream, carried over)
// or after it (in the list): none is lost, none shares an id.
func TestConvertToList_AppendsBesideItAreKept(t *testing.T) {
	client := testClient(t)
	id := sessiontest.UniqueID(t)
	s := openInternal(t, client, id, WithStreamLayout())
	writer := openInternal(t, client, id, WithStreamLayout())
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "first"})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	const appends = 300
	var writeErr error
	wg.Go(func() {
		for i := range appends {
			if err := writer.Append(ctx, session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
				writeErr = err
				return
			}
		}
	})
	for ctx.Err() == nil {
		typ, err := client.Type(ctx, s.events).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := client.XLen(ctx, s.events).Result(); typ == "stream" && n > appends/3 {
			break
		}
	}
	if err := s.ConvertToList(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	evs, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != appends+1 {
		t.Fatalf("the log holds %d events, want %d", len(evs), appends+1)
	}
	for i, ev := range evs {
		if ev.Seq != helikon.SequenceID(i) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		if want := fmt.Sprint(i - 1); i > 0 && ev.Content[0].(helikon.TextPart).Text != want {
			t.Fatalf("event %d is %q, want %q", i, ev.Content[0].(helikon.TextPart).Text, want)
		}
	}
	if typ, _ := client.Type(t.Context(), s.events).Result(); !strings.EqualFold(typ, "list") {
		t.Fatalf("TYPE = %q, want list", typ)
	}
}

// A read of a stream that is converted between two of its pages starts
// over on the list and returns the whole log once.
func TestConvertToList_AReadUnderWayStartsOverOnTheList(t *testing.T) {
	withPage(t, 2)
	id := sessiontest.UniqueID(t)
	writer := openInternal(t, testClient(t), id, WithStreamLayout())
	for i := range 5 {
		if err := writer.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
			t.Fatal(err)
		}
	}
	client := testClient(t)
	// The session is converted just before the read's second page.
	var reads int
	var convertErr error
	client.AddHook(beforeRaw(func(ctx context.Context, _ redis.Cmder) error {
		if reads++; reads == 2 {
			convertErr = writer.ConvertToList(ctx)
		}
		return nil
	}))
	reader := openInternal(t, client, id)
	reader.layout.Store(int32(layoutStream))
	evs, err := reader.Events(t.Context(), helikon.Beginning)
	if convertErr != nil {
		t.Fatal(convertErr)
	}
	if err != nil || fmt.Sprint(seqsOf(evs)) != "[0 1 2 3 4]" {
		t.Fatalf("Events across a conversion = %v, %v; want seq 0..4 once", seqsOf(evs), err)
	}
	if typ, _ := client.Type(t.Context(), reader.events).Result(); typ != "list" {
		t.Fatalf("TYPE = %q, want list", typ)
	}
}
