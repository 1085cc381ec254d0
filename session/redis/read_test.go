package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sessiontest"
)

// entry is one XRANGE entry as the server writes it, fields in order.
func entry(id string, fields ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*2\r\n$%d\r\n%s\r\n*%d\r\n", len(id), id, len(fields))
	for _, f := range fields {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(f), f)
	}
	return b.String()
}

type seqPayload struct {
	seq     int64
	payload string
}

func collectEntries(reply string) ([]seqPayload, error) {
	items, err := appendEntries(nil, []byte(reply))
	var got []seqPayload
	for _, it := range items {
		got = append(got, seqPayload{it.seq, string(it.payload)})
	}
	return got, err
}

func TestAppendEntries_ReadsRESP2AndRESP3Replies(t *testing.T) {
	e0 := entry("0-1", "seq", "0", "kind", "user_message", "ts", "1", "payload", `{"a":1}`)
	e1 := entry("1-1", "seq", "1", "kind", "user_message", "ts", "2", "payload", "with\r\nCRLF")
	resp3 := "*1\r\n*2\r\n$3\r\n7-1\r\n%2\r\n$7\r\npayload\r\n$2\r\n{}\r\n$3\r\nseq\r\n$1\r\n7\r\n"
	for _, tc := range []struct {
		name, reply string
		want        []seqPayload
	}{
		{"empty", "*0\r\n", nil},
		{"two entries", "*2\r\n" + e0 + e1, []seqPayload{{0, `{"a":1}`}, {1, "with\r\nCRLF"}}},
		{"fields in another order", "*1\r\n" + entry("5-1", "payload", "p", "seq", "5"), []seqPayload{{5, "p"}}},
		{"extra fields ignored", "*1\r\n" + entry("5-1", "x", "y", "seq", "5", "payload", ""), []seqPayload{{5, ""}}},
		{"RESP3 map of fields", resp3, []seqPayload{{7, "{}"}}},
		{"payload alone, seq from the ID", "*2\r\n" + entry("8-1", "payload", "a") + entry("9-1", "payload", "b"), []seqPayload{{8, "a"}, {9, "b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collectEntries(tc.reply)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("entries = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAppendEntries_MalformedReplyIsAnErrorNotAPanic(t *testing.T) {
	good := "*1\r\n" + entry("0-1", "seq", "0", "payload", "{}")
	for _, tc := range []struct{ name, reply string }{
		{"nothing", ""},
		{"not an array", "+OK\r\n"},
		{"truncated", good[:len(good)-3]},
		{"trailing bytes", good + "x"},
		{"count past the end", "*9\r\n" + entry("0-1", "seq", "0", "payload", "{}")},
		{"huge count", "*99999999999999\r\n"},
		{"negative count", "*-1\r\n"},
		{"bulk longer than the reply", "*1\r\n*2\r\n$3\r\n0-1\r\n*2\r\n$3\r\nseq\r\n$999\r\n0\r\n"},
		{"bulk not followed by CRLF", "*1\r\n*2\r\n$3\r\n0-1xx\r\n*0\r\n"},
		{"entry of three", "*1\r\n*3\r\n$3\r\n0-1\r\n*0\r\n*0\r\n"},
		{"odd field count", "*1\r\n*2\r\n$3\r\n0-1\r\n*1\r\n$3\r\nseq\r\n"},
		{"no payload", "*1\r\n" + entry("0-1", "seq", "0")},
		{"seq field disagrees with the ID", "*1\r\n" + entry("0-1", "seq", "3", "payload", "{}")},
		{"seq field not a number", "*1\r\n" + entry("0-1", "seq", "x1", "payload", "{}")},
		{"an automatic ID", "*1\r\n" + entry("1700000000000-0", "payload", "{}")},
		{"an ID of another sequence", "*1\r\n" + entry("5-2", "payload", "{}")},
		{"an ID without a sequence", "*1\r\n" + entry("-1", "payload", "{}")},
		{"an ID not a number", "*1\r\n" + entry("x-1", "payload", "{}")},
		{"an ID too long", "*1\r\n" + entry("1234567890123456789-1", "payload", "{}")},
		{"bare CR in a header", "*1\rx\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := collectEntries(tc.reply); err == nil {
				t.Fatalf("appendEntries(%q) = %v, nil; want an error", tc.reply, got)
			}
		})
	}
}

func TestAppendEntries_ServerErrorReplyIsARedisError(t *testing.T) {
	for _, reply := range []string{"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "!9\r\nERR boom!\r\n"} {
		_, err := collectEntries(reply)
		var rerr redis.Error
		if !errors.As(err, &rerr) || !strings.Contains(err.Error(), "ERR") && !strings.Contains(err.Error(), "WRONGTYPE") {
			t.Errorf("appendEntries(%q) = %v, want the server's error as a redis.Error", reply, err)
		}
	}
}

func FuzzAppendEntries(f *testing.F) {
	f.Add([]byte("*1\r\n" + entry("0-1", "seq", "0", "kind", "k", "ts", "1", "payload", "{}")))
	f.Add([]byte("*0\r\n"))
	f.Add([]byte("-ERR x\r\n"))
	f.Fuzz(func(t *testing.T, reply []byte) {
		items, _ := appendEntries(nil, reply)
		for _, it := range items {
			if it.seq < 0 {
				t.Fatalf("negative seq %d", it.seq)
			}
		}
	})
}

// testClient returns a client of the machine's Redis, or skips.
func testClient(t *testing.T) *redis.Client {
	addr := "127.0.0.1:6379"
	if a := os.Getenv("HELIKON_REDIS_ADDR"); a != "" {
		addr = a
	}
	client := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { client.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		sessiontest.Unreachable(t, "Redis not reachable at "+addr+": start it with "+
			"`redis-server --daemonize yes --bind 127.0.0.1 --port 6379` ("+err.Error()+")")
	}
	return client
}

var pageMu sync.Mutex

// withPage runs the test with reads of n entries a page.
func withPage(t *testing.T, n int) {
	pageMu.Lock()
	old := readPage
	readPage = n
	t.Cleanup(func() { readPage = old; pageMu.Unlock() })
}

func openInternal(t *testing.T, client *redis.Client, id string, opts ...Option) *Session {
	s, err := New(client, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Del(context.Background(), s.events, s.seq, s.snapshot) })
	return s
}

// layouts are the two ways a session is stored.
var layouts = []struct {
	name string
	opts []Option
}{
	{"list", nil},
	{"stream", []Option{WithStreamLayout()}},
}

// Reads of several pages pass the whole conformance suite.
func TestSession_ConformanceInSmallPages(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			client := testClient(t)
			withPage(t, 2)
			sessiontest.RunStore(t, func(t *testing.T, id string) helikon.Session { return openInternal(t, client, id, l.opts...) })
		})
	}
}

// A read of a capped log that appends trim past between two of its pages
// reports it rather than returning events with a hole in them.
func TestEach_TrimBetweenPagesIsErrTrimmedDuringRead(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) { testTrimBetweenPages(t, l.opts) })
	}
}

func testTrimBetweenPages(t *testing.T, opts []Option) {
	client := testClient(t)
	withPage(t, 2)
	id := sessiontest.UniqueID(t)
	reader := openInternal(t, client, id, opts...)
	writer := openInternal(t, client, id, append(opts, WithMaxLen(2))...)
	for i := range 2 {
		if err := writer.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
			t.Fatal(err)
		}
	}
	var seen []helikon.SequenceID
	err := reader.each(t.Context(), helikon.Beginning, func(ev helikon.SessionEvent) error {
		seen = append(seen, ev.Seq)
		if ev.Seq == 1 {
			// The first page is read; four appends trim seq 2 and 3 away
			// before the second page is.
			for i := range 4 {
				if err := writer.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint("late ", i)})); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if !errors.Is(err, ErrTrimmedDuringRead) {
		t.Fatalf("read overtaken by a trim = %v (saw %v), want ErrTrimmedDuringRead", err, seen)
	}
	// Read again, it returns the stream as it is: seq 4 and 5.
	evs, err := reader.Events(t.Context(), helikon.Beginning)
	if err != nil || len(evs) != 2 || evs[0].Seq != 4 || evs[1].Seq != 5 {
		t.Fatalf("Events after the trim = %v, %v; want seq 4 and 5", evs, err)
	}
}

// Pages of a read that nothing trims join up, whatever is appended meanwhile.
func TestEach_PagesJoinUpUnderAppends(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) { testPagesJoinUp(t, l.opts) })
	}
}

func testPagesJoinUp(t *testing.T, opts []Option) {
	client := testClient(t)
	withPage(t, 3)
	id := sessiontest.UniqueID(t)
	s := openInternal(t, client, id, opts...)
	for i := range 7 {
		if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
			t.Fatal(err)
		}
	}
	var seen []helikon.SequenceID
	err := s.each(t.Context(), 0, func(ev helikon.SessionEvent) error {
		seen = append(seen, ev.Seq)
		if ev.Seq == 3 {
			return s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "late"}))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[1 2 3 4 5 6 7]" {
		t.Fatalf("read after 0 saw %v, want 1..7 (7 appended during the read)", seen)
	}
}

func TestReplyError_ClusterRedirectionsRecognised(t *testing.T) {
	for reply, want := range map[string]bool{
		"MOVED 3999 127.0.0.1:6381":         true,
		"ASK 3999 127.0.0.1:6381":           true,
		"TRYAGAIN Multiple keys":            true,
		"CLUSTERDOWN The cluster is down":   true,
		"WRONGTYPE Operation against a key": false,
		"ERR MOVED":                         false,
	} {
		if got := replyError(reply).redirect(); got != want {
			t.Errorf("replyError(%q).redirect() = %v, want %v", reply, got, want)
		}
	}
}

// The parsed read a redirection falls back to returns what the raw one
// does, in either layout.
func TestParsedPage_ReadsWhatTheRawPageDoes(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			client := testClient(t)
			withPage(t, 3)
			s := openInternal(t, client, sessiontest.UniqueID(t), l.opts...)
			for i := range 5 {
				if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
					t.Fatal(err)
				}
			}
			var raw, parsed []item
			var rawErr, parsedErr error
			if l.name == "list" {
				raw, rawErr = s.listPage(t.Context(), new(bytes.Buffer), nil, 1, 3)
				parsed, parsedErr = s.parsedListPage(t.Context(), nil, 1, 3)
			} else {
				raw, rawErr = s.streamPage(t.Context(), new(bytes.Buffer), nil, 1)
				parsed, parsedErr = s.parsedStreamPage(t.Context(), nil, "1-0")
			}
			if rawErr != nil || parsedErr != nil {
				t.Fatal(rawErr, parsedErr)
			}
			if len(raw) != 3 || raw[0].seq != 1 || showItems(raw) != showItems(parsed) {
				t.Fatalf("raw page %s, parsed page %s; want seq 1..3 alike", showItems(raw), showItems(parsed))
			}
		})
	}
}

// go-redis does not retry a raw read; the page retries once itself.
func TestPage_RetriesOnceOnABrokenConnection(t *testing.T) {
	for _, l := range layouts {
		for _, tc := range []struct {
			failures int
			wantErr  bool
		}{{1, false}, {2, true}} {
			t.Run(fmt.Sprint(l.name, "/", tc.failures, " failures"), func(t *testing.T) {
				testRetry(t, l.opts, tc.failures, tc.wantErr)
			})
		}
	}
}

func testRetry(t *testing.T, opts []Option, failures int, wantErr bool) {
	client := testClient(t)
	s := openInternal(t, client, sessiontest.UniqueID(t), opts...)
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "x"})); err != nil {
		t.Fatal(err)
	}
	left := failures
	client.AddHook(beforeRaw(func(context.Context, redis.Cmder) error {
		if left > 0 {
			left--
			return io.ErrUnexpectedEOF // as a dropped connection would
		}
		return nil
	}))
	evs, err := s.Events(t.Context(), helikon.Beginning)
	if wantErr {
		if !errors.Is(err, helikon.ErrSessionUnavailable) {
			t.Fatalf("Events after %d broken reads = %v, want ErrSessionUnavailable", failures, err)
		}
		return
	}
	if err != nil || len(evs) != 1 {
		t.Fatalf("Events after one broken read = %v, %v; want the event", evs, err)
	}
}

// beforeRaw is a client hook that calls f before every raw read the
// client sends (the package's page reads); an error from f is the read's.
type beforeRaw func(ctx context.Context, cmd redis.Cmder) error

func (beforeRaw) DialHook(next redis.DialHook) redis.DialHook { return next }
func (beforeRaw) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (f beforeRaw) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if _, ok := cmd.(*redis.RawWriteToCmd); ok {
			if err := f(ctx, cmd); err != nil {
				return err
			}
		}
		return next(ctx, cmd)
	}
}

// Events and loads start over when a trim overtakes them, and return the
// log as it is then, without a hole.
func TestEvents_OvertakenByATrimReadsAgain(t *testing.T) {
	for _, l := range layouts {
		for _, tc := range []struct {
			overtaken int
			wantErr   bool
		}{{1, false}, {2, false}, {3, true}} {
			t.Run(fmt.Sprint(l.name, "/", tc.overtaken, " overtaken"), func(t *testing.T) {
				testOvertaken(t, l.opts, tc.overtaken, tc.wantErr)
			})
		}
	}
}

func testOvertaken(t *testing.T, opts []Option, overtaken int, wantErr bool) {
	withPage(t, 2)
	id := sessiontest.UniqueID(t)
	writer := openInternal(t, testClient(t), id, append(opts, WithMaxLen(2))...)
	for i := range 2 {
		if err := writer.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
			t.Fatal(err)
		}
	}
	client := testClient(t)
	// Before a read that does not start at the log's start (a read's
	// second page), four appends through writer trim the log, so the
	// read's pages no longer join.
	times := overtaken
	client.AddHook(beforeRaw(func(ctx context.Context, cmd redis.Cmder) error {
		if start := fmt.Sprint(cmd.Args()[2]); start == "0" || start == "0-0" || times == 0 {
			return nil
		}
		times--
		for i := range 4 {
			if err := writer.Append(ctx, session.UserMessage(helikon.TextPart{Text: fmt.Sprint("late ", i)})); err != nil {
				return err
			}
		}
		return nil
	}))
	reader := openInternal(t, client, id, opts...)
	evs, err := reader.Events(t.Context(), helikon.Beginning)
	if wantErr {
		if !errors.Is(err, ErrTrimmedDuringRead) {
			t.Fatalf("Events overtaken %d times = %v, %v; want ErrTrimmedDuringRead", overtaken, evs, err)
		}
		return
	}
	if err != nil || len(evs) != 2 || evs[1].Seq != evs[0].Seq+1 {
		t.Fatalf("Events overtaken %d times = %v, %v; want the last 2 events, contiguous", overtaken, evs, err)
	}
	p, err := reader.LoadProjection(t.Context())
	if err != nil || len(p.Items()) != 2 {
		t.Fatalf("LoadProjection = %v, %v; want 2 items", p, err)
	}
}
