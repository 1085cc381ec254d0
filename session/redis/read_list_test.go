package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sessiontest"
)

// lrange is an LRANGE reply of items as the server writes it.
func lrange(items ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(items))
	for _, it := range items {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(it), it)
	}
	return b.String()
}

func showItems(items []item) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "[%d %q]", it.seq, it.payload)
	}
	return b.String()
}

func TestAppendItems_ReadsTheItemsOfAReply(t *testing.T) {
	for _, tc := range []struct {
		name, reply, want string
	}{
		{"empty", "*0\r\n", ""},
		{"two items", lrange(`4 {"a":1}`, `5 {}`), `[4 "{\"a\":1}"][5 "{}"]`},
		{"payload with spaces and CRLF", lrange("9 a b\r\nc"), `[9 "a b\r\nc"]`},
		{"empty payload", lrange("0 "), `[0 ""]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := appendItems(nil, []byte(tc.reply))
			if err != nil || showItems(got) != tc.want {
				t.Fatalf("appendItems = %s, %v; want %s", showItems(got), err, tc.want)
			}
		})
	}
}

func TestAppendItems_MalformedReplyIsAnErrorNotAPanic(t *testing.T) {
	for _, tc := range []struct{ name, reply string }{
		{"not an array", "$3\r\nabc\r\n"},
		{"no seq", lrange("{}")},
		{"seq not a number", lrange("x1 {}")},
		{"negative seq", lrange("-1 {}")},
		{"seq too long", lrange("1234567890123456789 {}")},
		{"items out of order", lrange("1 {}", "3 {}")},
		{"items repeated", lrange("1 {}", "1 {}")},
		{"count beyond the reply", "*9\r\n$4\r\n1 {}\r\n"},
		{"bulk beyond the reply", "*1\r\n$99\r\n1 {}\r\n"},
		{"bytes after the reply", lrange("1 {}") + "+OK\r\n"},
		{"truncated", lrange("1 {}")[:8]},
		{"nested array", "*1\r\n*1\r\n$4\r\n1 {}\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := appendItems(nil, []byte(tc.reply)); !errors.Is(err, errMalformedReply) {
				t.Fatalf("appendItems(%q) = %v, want errMalformedReply", tc.reply, err)
			}
		})
	}
}

func TestAppendItems_ServerErrorReplyIsARedisError(t *testing.T) {
	_, err := appendItems(nil, []byte("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"))
	if !isReply(err, "WRONGTYPE") {
		t.Fatalf("appendItems of an error reply = %v, want a WRONGTYPE reply error", err)
	}
}

func FuzzAppendItems(f *testing.F) {
	f.Add([]byte(lrange("0 {}", "1 {\"a\":2}")))
	f.Add([]byte("*0\r\n"))
	f.Add([]byte("-ERR x\r\n"))
	f.Fuzz(func(t *testing.T, reply []byte) {
		items, err := appendItems(nil, reply)
		if err != nil {
			return
		}
		for i := 1; i < len(items); i++ {
			if items[i].seq != items[i-1].seq+1 {
				t.Fatalf("items %s accepted out of order", showItems(items))
			}
		}
	})
}

func seqsOf(evs []helikon.SessionEvent) []helikon.SequenceID {
	var s []helikon.SequenceID
	for _, ev := range evs {
		s = append(s, ev.Seq)
	}
	return s
}

// The position a list read starts from is a hint: whatever it says, and
// wherever the read starts, it returns exactly the events after it.
func TestEachInList_ReadsTheLogWhateverItsHint(t *testing.T) {
	withPage(t, 2)
	client := testClient(t)
	id := sessiontest.UniqueID(t)
	s := openInternal(t, client, id, WithMaxLen(5))
	for i := range 12 {
		if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
			t.Fatal(err)
		}
	}
	// The list holds seq 7..11.
	for _, hint := range []int64{0, 3, 6, 7, 8, 11, 100} {
		for _, after := range []helikon.SequenceID{helikon.Beginning, 0, 5, 6, 7, 8, 9, 10, 11, 12, 40} {
			s.listBase.Store(hint)
			evs, err := s.Events(t.Context(), after)
			if err != nil {
				t.Fatalf("hint %d, Events(after %d) = %v", hint, after, err)
			}
			var want []helikon.SequenceID
			for seq := max(7, after+1); seq <= 11; seq++ {
				want = append(want, seq)
			}
			if fmt.Sprint(seqsOf(evs)) != fmt.Sprint(want) {
				t.Errorf("hint %d, Events(after %d) = %v, want %v", hint, after, seqsOf(evs), want)
			}
		}
	}
}

// A session deleted and begun again holds fewer events than a reader has
// seen; a read after what it has seen finds nothing rather than failing,
// as a stream's range read does.
func TestEachInList_ALogBegunAgainReadsWhatIsThere(t *testing.T) {
	withPage(t, 2)
	client := testClient(t)
	s := openInternal(t, client, sessiontest.UniqueID(t))
	appendN := func(n int) {
		for i := range n {
			if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendN(10)
	if _, err := s.Events(t.Context(), helikon.Beginning); err != nil {
		t.Fatal(err)
	}
	if err := client.Del(t.Context(), s.events).Err(); err != nil {
		t.Fatal(err)
	}
	appendN(3)
	for after, want := range map[helikon.SequenceID]string{9: "[]", 1: "[2]", helikon.Beginning: "[0 1 2]"} {
		evs, err := s.Events(t.Context(), after)
		if err != nil || fmt.Sprint(seqsOf(evs)) != want {
			t.Errorf("Events(after %d) = %v, %v; want %s", after, seqsOf(evs), err, want)
		}
	}
}

// Under a writer that trims on every append, every list read returns
// consecutive events from where it asked (or the oldest kept), or
// ErrTrimmedDuringRead: never a hole, a repeat or another error.
func TestEachInList_ATrimmingWriterNeverOpensAHole(t *testing.T) {
	withPage(t, 3)
	client := testClient(t)
	id := sessiontest.UniqueID(t)
	writer := openInternal(t, client, id, WithMaxLen(7))
	reader := openInternal(t, client, id)
	if err := writer.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "first"})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil && i < 3000; i++ {
			if err := writer.Append(ctx, session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil && ctx.Err() == nil {
				writeErr = err
				return
			}
		}
	}()
	defer func() { cancel(); wg.Wait() }()
	last, trimmed := helikon.Beginning, 0
	for i := range 400 {
		after := last
		if i%3 == 0 {
			after = helikon.Beginning
		}
		evs, err := reader.readOnce(t.Context(), after)
		if errors.Is(err, ErrTrimmedDuringRead) {
			trimmed++
			continue
		}
		if err != nil {
			t.Fatalf("read %d after %d: %v", i, after, err)
		}
		for j, ev := range evs {
			if j == 0 && ev.Seq <= after || j > 0 && ev.Seq != evs[j-1].Seq+1 {
				t.Fatalf("read %d after %d returned %v", i, after, seqsOf(evs))
			}
		}
		if len(evs) > 0 {
			last = evs[len(evs)-1].Seq
		}
	}
	cancel()
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	if trimmed == 400 {
		t.Fatal("every read was overtaken by a trim; none returned events to check")
	}
	t.Logf("%d of 400 reads overtaken by a trim", trimmed)
}

// readOnce is one list read without the retries Events adds.
func (s *Session) readOnce(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	var evs []helikon.SessionEvent
	err := s.each(ctx, after, func(ev helikon.SessionEvent) error {
		evs = append(evs, ev)
		return nil
	})
	return evs, err
}

// A warm session's incremental load is one command, also once a trim has
// moved the list's positions: a read remembers where the list began.
func TestEachInList_AnIncrementalReadIsOneCommand(t *testing.T) {
	for _, maxLen := range []int64{0, 5} {
		t.Run(fmt.Sprint("max length ", maxLen), func(t *testing.T) {
			client := testClient(t)
			var reads atomic.Int64
			client.AddHook(beforeRaw(func(context.Context, redis.Cmder) error {
				reads.Add(1)
				return nil
			}))
			var opts []Option
			if maxLen > 0 {
				opts = append(opts, WithMaxLen(maxLen))
			}
			s := openInternal(t, client, sessiontest.UniqueID(t), opts...)
			for i := range 12 {
				if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Events(t.Context(), helikon.Beginning); err != nil {
				t.Fatal(err)
			}
			for _, after := range []helikon.SequenceID{11, 9} {
				reads.Store(0)
				evs, err := s.Events(t.Context(), after)
				if err != nil || len(evs) != int(11-after) {
					t.Fatalf("Events(after %d) = %v, %v", after, seqsOf(evs), err)
				}
				if n := reads.Load(); n != 1 {
					t.Errorf("Events(after %d) sent %d reads, want 1", after, n)
				}
			}
		})
	}
}
