package redis_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	rsession "github.com/paigasus/helikon/session/redis"
	"github.com/paigasus/helikon/session/sessiontest"
)

// testAddr is the server the tests use: the machine's Redis unless
// HELIKON_REDIS_ADDR names another.
func testAddr() string {
	if a := os.Getenv("HELIKON_REDIS_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

var (
	clientOnce sync.Once
	shared     *redis.Client
	clientErr  error
)

func testClient(t testing.TB) *redis.Client {
	t.Helper()
	clientOnce.Do(func() {
		shared = redis.NewClient(&redis.Options{Addr: testAddr()})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		clientErr = shared.Ping(ctx).Err()
	})
	if clientErr != nil {
		sessiontest.Unreachable(t, "Redis not reachable at "+testAddr()+": start it with "+
			"`redis-server --daemonize yes --bind 127.0.0.1 --port 6379` ("+clientErr.Error()+")")
	}
	return shared
}

// openSession opens id and deletes its keys when the test ends.
func openSession(t testing.TB, id string, opts ...rsession.Option) *rsession.Session {
	t.Helper()
	client := testClient(t)
	s, err := rsession.New(client, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteKeys(t, client, s.EventsKey(), "helikon:session:{"+id+"}:seq") })
	return s
}

func deleteKeys(t testing.TB, client *redis.Client, keys ...string) {
	if err := client.Del(context.Background(), keys...).Err(); err != nil {
		t.Errorf("cleanup of %q: %v", keys, err)
	}
}

// layouts are the two ways a session is stored: new sessions are lists,
// and sessions created WithStreamLayout (or by earlier versions) streams.
var layouts = []struct {
	name string
	opts []rsession.Option
}{
	{"list", nil},
	{"stream", []rsession.Option{rsession.WithStreamLayout()}},
}

func TestSession_Conformance(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			sessiontest.RunStore(t, func(t *testing.T, id string) helikon.Session { return openSession(t, id, l.opts...) })
		})
	}
}

// Streams whose entries carry the seq field keep the whole contract too.
func TestSession_ConformanceWithSeqField(t *testing.T) {
	sessiontest.RunStore(t, func(t *testing.T, id string) helikon.Session {
		return openSession(t, id, rsession.WithStreamLayout(), rsession.WithSeqField())
	})
}

func TestNew_RejectsBadInput(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: testAddr()})
	defer client.Close()
	if _, err := rsession.New(client, ""); !errors.Is(err, rsession.ErrEmptyID) {
		t.Errorf("New with an empty id = %v, want ErrEmptyID", err)
	}
	for _, n := range []int64{0, -1} {
		if _, err := rsession.New(client, "x", rsession.WithMaxLen(n)); err == nil {
			t.Errorf("New with WithMaxLen(%d) succeeded, want an error", n)
		}
	}
}

// An entry holds the event's JSON under the ID "<seq>-1", and with
// WithSeqField the seq field the previous version reads too.
func TestAppend_StreamEntriesCarryThePayloadUnderTheirSeq(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []rsession.Option
		fields map[string]bool
	}{
		{"default", nil, map[string]bool{"payload": true}},
		{"WithSeqField", []rsession.Option{rsession.WithSeqField()}, map[string]bool{"seq": true, "payload": true}},
		{"WithSeqField and WithMaxLen", []rsession.Option{rsession.WithSeqField(), rsession.WithMaxLen(5)}, map[string]bool{"seq": true, "payload": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openSession(t, sessiontest.UniqueID(t), append(tc.opts, rsession.WithStreamLayout())...)
			ev := session.HandoffOccurred("triage", "billing")
			ev.Time = time.Unix(1700000000, 123456789).UTC()
			if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "hi"}), ev); err != nil {
				t.Fatal(err)
			}
			msgs, err := testClient(t).XRange(t.Context(), s.EventsKey(), "-", "+").Result()
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 2 {
				t.Fatalf("stream holds %d entries, want 2", len(msgs))
			}
			got := msgs[1]
			payload, _ := got.Values["payload"].(string)
			if got.ID != "1-1" || len(got.Values) != len(tc.fields) ||
				!strings.Contains(payload, `"type":"handoff_occurred"`) || !strings.Contains(payload, `"ts":"2023-11-14T22:13:20.123456789Z"`) {
				t.Fatalf("entry = %+v, want ID 1-1 and the fields %v", got, tc.fields)
			}
			for f := range tc.fields {
				if _, ok := got.Values[f]; !ok {
					t.Fatalf("entry = %+v, want a field %s", got, f)
				}
			}
			if tc.fields["seq"] && got.Values["seq"] != "1" {
				t.Fatalf("entry = %+v, want seq 1", got)
			}
		})
	}
}

// During a rolling upgrade the previous version, which reads each entry's
// seq field, reads what this one appends WithSeqField.
func TestWithSeqField_ThePreviousVersionReadsTheEntries(t *testing.T) {
	id := sessiontest.UniqueID(t)
	s := openSession(t, id, rsession.WithStreamLayout(), rsession.WithSeqField())
	want := sessiontest.AllKinds()
	if err := s.Append(t.Context(), want...); err != nil {
		t.Fatal(err)
	}
	got, err := legacyEvents(t.Context(), testClient(t), s.EventsKey())
	if err != nil {
		t.Fatalf("the previous version's read: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("the previous version read %d events, want %d", len(got), len(want))
	}
	for i := range want {
		w := want[i]
		w.Seq = helikon.SequenceID(i)
		if d := sessiontest.DiffEvent(w, got[i]); d != "" {
			t.Errorf("event %d: %s", i, d)
		}
	}
}

// Entries as earlier versions wrote them (seq, kind, ts, payload) read as
// today's do, alone or mixed with today's in one stream.
func TestEvents_ReadsEntriesInTheEarlierLayout(t *testing.T) {
	id := sessiontest.UniqueID(t)
	s := openSession(t, id)
	client := testClient(t)
	old := session.UserMessage(helikon.TextPart{Text: "written by an earlier version"})
	old.Time = time.Unix(1700000000, 5).UTC()
	payload, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := client.XAdd(t.Context(), &redis.XAddArgs{Stream: s.EventsKey(), ID: "0-1",
		Values: []any{"seq", 0, "kind", "user_message", "ts", old.Time.UnixNano(), "payload", payload}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := client.Set(t.Context(), "helikon:session:{"+id+"}:seq", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "written now"})); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	old.Seq = 0
	if len(evs) != 2 || !reflect.DeepEqual(evs[0], old) || evs[1].Seq != 1 || evs[1].Content[0].(helikon.TextPart).Text != "written now" {
		t.Fatalf("Events = %+v, want the earlier entry then today's", evs)
	}
}

// With a retention bound the stream keeps the newest entries and sequence
// ids keep counting from where they were.
func TestWithMaxLen_TrimsOldestAndKeepsSeqMonotonic(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) { testMaxLen(t, l.opts) })
	}
}

func testMaxLen(t *testing.T, opts []rsession.Option) {
	s := openSession(t, sessiontest.UniqueID(t), append(opts, rsession.WithMaxLen(3))...)
	for i := range 4 {
		batch := []helikon.SessionEvent{}
		for j := range i + 1 {
			batch = append(batch, session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i, j)}))
		}
		if err := s.Append(t.Context(), batch...); err != nil {
			t.Fatal(err)
		}
	}
	// 1+2+3+4 = 10 events appended: seq 0..9, the newest 3 kept.
	for _, tc := range []struct {
		after helikon.SequenceID
		want  []helikon.SequenceID
	}{
		{helikon.Beginning, []helikon.SequenceID{7, 8, 9}},
		{2, []helikon.SequenceID{7, 8, 9}},
		{7, []helikon.SequenceID{8, 9}},
		{9, nil},
	} {
		evs, err := s.Events(t.Context(), tc.after)
		if err != nil {
			t.Fatal(err)
		}
		var got []helikon.SequenceID
		for _, ev := range evs {
			got = append(got, ev.Seq)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Events(after %d) seqs = %v, want %v", tc.after, got, tc.want)
		}
	}
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "next"})); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(t.Context(), 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Seq != 10 {
		t.Fatalf("after trimming, the next append got %+v, want seq 10", evs)
	}
}

// An evicted counter would make the next append to a stream reuse
// sequence ids; the script refuses before writing anything.
func TestAppend_LostCounterRefusedAndNothingWritten(t *testing.T) {
	id := sessiontest.UniqueID(t)
	s := openSession(t, id, rsession.WithStreamLayout())
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "a"}), session.UserMessage(helikon.TextPart{Text: "b"})); err != nil {
		t.Fatal(err)
	}
	if err := testClient(t).Del(t.Context(), "helikon:session:{"+id+"}:seq").Err(); err != nil {
		t.Fatal(err)
	}
	err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "c"}))
	if !errors.Is(err, rsession.ErrSequenceLost) {
		t.Fatalf("Append with the counter gone = %v, want ErrSequenceLost", err)
	}
	evs, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("log holds %d events after the refused append, want 2", len(evs))
	}
	if n, err := testClient(t).Exists(t.Context(), "helikon:session:{"+id+"}:seq").Result(); err != nil || n != 0 {
		t.Fatalf("refused append touched the counter (exists=%d, err=%v)", n, err)
	}
}

func TestAppend_UnreachableServerIsErrSessionUnavailable(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	defer client.Close()
	s, err := rsession.New(client, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "lost?"})); !errors.Is(err, helikon.ErrSessionUnavailable) {
		t.Fatalf("Append to a closed port = %v, want ErrSessionUnavailable", err)
	}
	if _, err := s.Events(t.Context(), helikon.Beginning); !errors.Is(err, helikon.ErrSessionUnavailable) {
		t.Fatalf("Events from a closed port = %v, want ErrSessionUnavailable", err)
	}
}

func TestSession_SnapshotConformance(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			sessiontest.RunSnapshots(t, func(t *testing.T, id string, every int) sessiontest.SnapshotSession {
				s := openSession(t, id, append(l.opts, rsession.WithSnapshotEvery(every))...)
				t.Cleanup(func() { deleteKeys(t, testClient(t), s.SnapshotKey()) })
				return s
			})
		})
	}
}
