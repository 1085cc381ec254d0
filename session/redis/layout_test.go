package redis_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	rsession "github.com/paigasus/helikon/session/redis"
	"github.com/paigasus/helikon/session/sessiontest"
)

// previousAppendScript is the append script of the version before lists
// (and before payload-only entries), as it shipped: a process of that
// version runs it on whatever session it opens.
var previousAppendScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 0 and redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.error_reply('HELIKON_SEQ_LOST sequence counter missing while the stream exists')
end
local n = #ARGV - 1
local first = redis.call('INCRBY', KEYS[2], n) - n
local maxlen = tonumber(ARGV[1])
for i = 0, n - 1 do
  local seq = first + i
  local id = string.format('%d-1', seq)
  if maxlen > 0 then
    redis.call('XADD', KEYS[1], 'MAXLEN', maxlen, id, 'seq', seq, 'payload', ARGV[2 + i])
  else
    redis.call('XADD', KEYS[1], id, 'seq', seq, 'payload', ARGV[2 + i])
  end
end
return first
`)

func seqKey(id string) string { return "helikon:session:{" + id + "}:seq" }

// A new session is a list of "<seq> <payload>" items, oldest first, and
// needs no counter.
func TestAppend_ANewSessionIsAListOfSeqAndPayload(t *testing.T) {
	id := sessiontest.UniqueID(t)
	s := openSession(t, id)
	client := testClient(t)
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "hi"}), session.HandoffOccurred("triage", "billing")); err != nil {
		t.Fatal(err)
	}
	if typ, err := client.Type(t.Context(), s.EventsKey()).Result(); err != nil || typ != "list" {
		t.Fatalf("TYPE %s = %q, %v; want list", s.EventsKey(), typ, err)
	}
	items, err := client.LRange(t.Context(), s.EventsKey(), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || !strings.HasPrefix(items[0], "0 {") || !strings.Contains(items[0], `"type":"user_message"`) ||
		!strings.HasPrefix(items[1], "1 {") || !strings.Contains(items[1], `"type":"handoff_occurred"`) {
		t.Fatalf("list items = %q, want seq 0 and 1, each before its payload", items)
	}
	if n, err := client.Exists(t.Context(), seqKey(id)).Result(); err != nil || n != 0 {
		t.Fatalf("a list session has a counter key (exists=%d, err=%v)", n, err)
	}
}

// A process of the previous version cannot read a list, and must not write
// a stream beside it and split the session: its read fails (WRONGTYPE),
// and its append fails before writing anything (the counter it checks for
// is not there), so the rollout fails closed.
func TestList_ThePreviousVersionFailsOnItRatherThanSplittingIt(t *testing.T) {
	id := sessiontest.UniqueID(t)
	s := openSession(t, id)
	client := testClient(t)
	want := sessiontest.AllKinds()
	if err := s.Append(t.Context(), want...); err != nil {
		t.Fatal(err)
	}
	if _, err := legacyEvents(t.Context(), client, s.EventsKey()); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Fatalf("the previous version's read of a list = %v, want WRONGTYPE", err)
	}
	err := previousAppendScript.Run(t.Context(), client, []string{s.EventsKey(), seqKey(id)}, 0, `{"type":"user_message"}`).Err()
	if err == nil || !strings.Contains(err.Error(), "HELIKON_SEQ_LOST") {
		t.Fatalf("the previous version's append to a list = %v, want its lost-counter refusal", err)
	}
	got, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil || len(got) != len(want) {
		t.Fatalf("after the previous version's tries, Events = %d events, %v; want %d", len(got), err, len(want))
	}
	if n, err := client.Exists(t.Context(), seqKey(id)).Result(); err != nil || n != 0 {
		t.Fatalf("the refused append wrote a counter (exists=%d, err=%v)", n, err)
	}
}

// WithStreamLayout shapes only a session that does not exist yet: every
// handle appends to and reads an existing session in the layout it has,
// so handles with and without the option share sessions.
func TestWithStreamLayout_ShapesOnlyNewSessions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		creator  []rsession.Option
		wantType string
	}{
		{"created as a list", nil, "list"},
		{"created as a stream", []rsession.Option{rsession.WithStreamLayout()}, "stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := sessiontest.UniqueID(t)
			creator := openSession(t, id, tc.creator...)
			lists := openSession(t, id)
			streams := openSession(t, id, rsession.WithStreamLayout(), rsession.WithSeqField())
			for i, s := range []*rsession.Session{creator, lists, streams, lists, streams} {
				if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
					t.Fatal(err)
				}
			}
			if typ, err := testClient(t).Type(t.Context(), creator.EventsKey()).Result(); err != nil || typ != tc.wantType {
				t.Fatalf("TYPE = %q, %v; want %s", typ, err, tc.wantType)
			}
			var texts [][]string
			for _, s := range []*rsession.Session{creator, lists, streams} {
				evs, err := s.Events(t.Context(), helikon.Beginning)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for i, ev := range evs {
					if ev.Seq != helikon.SequenceID(i) {
						t.Fatalf("event %d has seq %d", i, ev.Seq)
					}
					got = append(got, ev.Content[0].(helikon.TextPart).Text)
				}
				texts = append(texts, got)
			}
			want := []string{"0", "1", "2", "3", "4"}
			for i, got := range texts {
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("handle %d reads %q, want %q", i, got, want)
				}
			}
		})
	}
}

// A stream whose entries were all deleted but whose counter is left stays
// a stream, so that its sequence ids go on from the counter rather than
// start again in a new list.
func TestAppend_AStreamEmptiedButForItsCounterStaysAStream(t *testing.T) {
	id := sessiontest.UniqueID(t)
	s := openSession(t, id, rsession.WithStreamLayout())
	client := testClient(t)
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "a"}), session.UserMessage(helikon.TextPart{Text: "b"})); err != nil {
		t.Fatal(err)
	}
	if err := client.Del(t.Context(), s.EventsKey()).Err(); err != nil {
		t.Fatal(err)
	}
	lists := openSession(t, id)
	if err := lists.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "c"})); err != nil {
		t.Fatal(err)
	}
	evs, err := lists.Events(t.Context(), helikon.Beginning)
	if err != nil || len(evs) != 1 || evs[0].Seq != 2 {
		t.Fatalf("Events = %+v, %v; want the one event, seq 2", evs, err)
	}
	if typ, _ := client.Type(t.Context(), s.EventsKey()).Result(); typ != "stream" {
		t.Fatalf("TYPE = %q, want stream", typ)
	}
}

// A list whose last item is not "<seq> <payload>" (written by hand, say)
// gives no next sequence id, so the append is refused and nothing is
// written; a read reports the item as malformed.
func TestList_AForeignItemIsRefusedNotGuessedAround(t *testing.T) {
	id := sessiontest.UniqueID(t)
	s := openSession(t, id)
	client := testClient(t)
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "a"})); err != nil {
		t.Fatal(err)
	}
	if err := client.RPush(t.Context(), s.EventsKey(), "not an event").Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "b"})); !errors.Is(err, helikon.ErrSessionCorrupt) {
		t.Fatalf("Append after a foreign item = %v, want ErrSessionCorrupt", err)
	}
	if n, _ := client.LLen(t.Context(), s.EventsKey()).Result(); n != 2 {
		t.Fatalf("the list holds %d items after the refused append, want 2", n)
	}
	if _, err := s.Events(t.Context(), helikon.Beginning); !errors.Is(err, helikon.ErrSessionCorrupt) {
		t.Fatalf("Events over a foreign item = %v, want ErrSessionCorrupt", err)
	}
}

// A key of another type at the session's events key is refused with
// WRONGTYPE, and nothing is written.
func TestAppend_AKeyOfAnotherTypeIsRefused(t *testing.T) {
	id := sessiontest.UniqueID(t)
	s := openSession(t, id)
	client := testClient(t)
	if err := client.Set(t.Context(), s.EventsKey(), "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	var rerr redis.Error
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "a"})); !errors.As(err, &rerr) || !strings.HasPrefix(rerr.Error(), "WRONGTYPE") {
		t.Fatalf("Append onto a string key = %v, want WRONGTYPE", err)
	}
	if _, err := s.Events(t.Context(), helikon.Beginning); err == nil {
		t.Fatal("Events of a string key succeeded, want an error")
	}
	if n, _ := client.Exists(t.Context(), seqKey(id)).Result(); n != 0 {
		t.Fatal("the refused append wrote a counter")
	}
}

// A batch larger than one RPUSH's chunk of the script goes in whole, in
// order, under consecutive ids.
func TestAppend_ABatchOfThousandsGoesInWhole(t *testing.T) {
	s := openSession(t, sessiontest.UniqueID(t))
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "first"})); err != nil {
		t.Fatal(err)
	}
	batch := make([]helikon.SessionEvent, 2500)
	for i := range batch {
		batch[i] = session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})
	}
	if err := s.Append(t.Context(), batch...); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(batch) {
		t.Fatalf("Events after 0 = %d events, want %d", len(evs), len(batch))
	}
	for i, ev := range evs {
		if ev.Seq != helikon.SequenceID(i+1) || ev.Content[0].(helikon.TextPart).Text != fmt.Sprint(i) {
			t.Fatalf("event %d = seq %d %v, want seq %d text %d", i, ev.Seq, ev.Content, i+1, i)
		}
	}
}
