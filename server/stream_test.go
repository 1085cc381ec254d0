package server_test

import (
	"context"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

var greeterEvents = []string{"run_started", "turn_started", "token_delta", "token_delta", "token_delta", "model_responded", "message_output", "run_completed"}

// readWebSocket reads every message of the run's event socket and the
// close status it ended with.
func readWebSocket(t *testing.T, url string) ([]string, websocket.StatusCode) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if resp.Header.Get("X-Run-Id") == "" {
		t.Error("the upgrade response has no X-Run-Id")
	}
	var got []string
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return got, websocket.CloseStatus(err)
		}
		ev, err := helikon.UnmarshalEvent(data)
		if err != nil {
			t.Fatalf("message %s: %v", data, err)
		}
		got = append(got, typeOf(ev))
	}
}

func typeOf(ev helikon.Event) string {
	data, _ := ev.(interface{ MarshalJSON() ([]byte, error) }).MarshalJSON()
	_, rest, _ := strings.Cut(string(data), `"type":"`)
	typ, _, _ := strings.Cut(rest, `"`)
	return typ
}

func TestEvents_WebSocketReplaysThenTailsThenClosesNormally(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "slow", 30*time.Millisecond)})
	acc := decode[server.RunAccepted](t, post(t, ts.URL+"/agents/slow/runs?mode=async", `{"input":"hi"}`))
	// Join mid-run: what was emitted is replayed, the rest follows live.
	waitFor(t, "the first delta", func() bool { return eventsSoFar(t, ts.URL, "slow", acc.RunID) >= 3 })
	got, status := readWebSocket(t, ts.URL+"/agents/slow/runs/"+acc.RunID+"/events")
	if !slices.Equal(got, greeterEvents) || status != websocket.StatusNormalClosure {
		t.Fatalf("events %v closed with %v; want %v and a normal closure", got, status, greeterEvents)
	}
	// A finished run replays whole.
	got, status = readWebSocket(t, ts.URL+"/agents/slow/runs/"+acc.RunID+"/events")
	if !slices.Equal(got, greeterEvents) || status != websocket.StatusNormalClosure {
		t.Fatalf("replay %v closed with %v", got, status)
	}
}

// eventsSoFar counts the frames of a run's SSE replay up to its last
// event so far, reading with a short deadline.
func eventsSoFar(t *testing.T, base, agent, id string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/agents/"+agent+"/runs/"+id+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	n := 0
	for range frames(resp.Body) {
		n++
	}
	return n
}

func TestEvents_SSEResumesAfterLastEventID(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)})
	resp := post(t, ts.URL+"/agents/greeter/runs?stream=sse", `{"input":"hi"}`)
	id := resp.Header.Get("X-Run-Id")
	// The client drops after three events...
	next, stop := iter.Pull(frames(resp.Body))
	var seen []frame
	for range 3 {
		f, _ := next()
		seen = append(seen, f)
	}
	stop()
	resp.Body.Close()
	// ...and reconnects with the last id it saw.
	resp = get(t, ts.URL+"/agents/greeter/runs/"+id+"/events", "Accept", "text/event-stream", "Last-Event-ID", seen[2].id)
	defer resp.Body.Close()
	rest := readFrames(t, resp.Body)
	if got := append(types(seen), types(rest)...); !slices.Equal(got, greeterEvents) {
		t.Fatalf("seen then resumed = %v, want %v", got, greeterEvents)
	}
	if rest[0].id != "4" {
		t.Fatalf("resumed at id %s, want 4", rest[0].id)
	}
	// The after query parameter does the same for clients that cannot
	// set headers.
	resp = get(t, ts.URL+"/agents/greeter/runs/"+id+"/events?after=7")
	if got := types(readFrames(t, resp.Body)); !slices.Equal(got, []string{"run_completed"}) {
		t.Fatalf("after=7 gives %v", got)
	}
}

// failingLog refuses every append after the first n.
type failingLog struct {
	*server.MemoryLog
	n int64
}

func (l failingLog) Append(ctx context.Context, id string, rec server.Record) error {
	if rec.Seq > l.n {
		return errors.New("disk full")
	}
	return l.MemoryLog.Append(ctx, id, rec)
}

func TestStream_EndsWithSyntheticRunFailedWhenTheLogHasNoTerminal(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)},
		server.WithEventLog(failingLog{MemoryLog: server.NewMemoryLog(), n: 2}))
	resp := post(t, ts.URL+"/agents/greeter/runs?stream=sse", `{"input":"hi"}`)
	fs := readFrames(t, resp.Body)
	resp.Body.Close()
	want := []string{"run_started", "turn_started", "run_failed"}
	if got := types(fs); !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	last := fs[2]
	if last.id != "" || !strings.Contains(last.data, "disk full") {
		t.Fatalf("synthetic frame = %+v; want no id and the log's error", last)
	}
	info := runInfo(t, ts.URL, "greeter", resp.Header.Get("X-Run-Id"))
	if info.Status != server.StatusFailed {
		t.Fatalf("run = %+v", info)
	}
	got, status := readWebSocket(t, ts.URL+"/agents/greeter/runs/"+info.ID+"/events")
	if !slices.Equal(got, want) || status != websocket.StatusNormalClosure {
		t.Fatalf("websocket replay = %v, %v", got, status)
	}
}

// spyLog is a memory log that reports each run it creates.
type spyLog struct {
	*server.MemoryLog
	created chan string
}

func newSpyLog(n int) spyLog {
	return spyLog{MemoryLog: server.NewMemoryLog(), created: make(chan string, n)}
}

func (l spyLog) Create(ctx context.Context, info server.RunInfo) error {
	err := l.MemoryLog.Create(ctx, info)
	l.created <- info.ID
	return err
}

func TestDisconnect_CancelsOneShotAndSSERunsButNotAsync(t *testing.T) {
	log := newSpyLog(3)
	_, ts := start(t, []helikon.Agent{newAgent(t, "slow", 50*time.Millisecond)}, server.WithEventLog(log))
	for _, mode := range []string{"one-shot", "sse"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			url := ts.URL + "/agents/slow/runs"
			if mode == "sse" {
				url += "?stream=sse"
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"input":"hi"}`))
			done := make(chan error, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				done <- err
			}()
			id := <-log.created
			cancel() // the client drops mid-run
			if err := <-done; err == nil {
				t.Fatal("the request finished before the client dropped")
			}
			waitFor(t, "the dropped run to end", func() bool { return runInfo(t, ts.URL, "slow", id).Status.Final() })
			if st := runInfo(t, ts.URL, "slow", id).Status; st != server.StatusCancelled {
				t.Fatalf("a dropped %s run ended %s, want cancelled", mode, st)
			}
		})
	}
	t.Run("async", func(t *testing.T) {
		resp := post(t, ts.URL+"/agents/slow/runs?mode=async", `{"input":"hi"}`)
		id := resp.Header.Get("X-Run-Id")
		resp.Body.Close()
		<-log.created
		waitFor(t, "the async run to end", func() bool { return runInfo(t, ts.URL, "slow", id).Status.Final() })
		if st := runInfo(t, ts.URL, "slow", id).Status; st != server.StatusCompleted {
			t.Fatalf("an async run whose client left ended %s, want completed", st)
		}
	})
}

func TestLimits_OnePrincipalCannotHoldEveryStreamOpen(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "stuck", time.Hour)}, bearerAuth,
		server.WithLimits(server.Limits{MaxStreamsPerPrincipal: 2, RetryAfter: 3 * time.Second}))
	begin := func(who string) string {
		t.Helper()
		resp := post(t, ts.URL+"/agents/stuck/runs?mode=async", `{"input":"hi"}`, "Authorization", "Bearer "+who)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("%s's run: %d", who, resp.StatusCode)
		}
		id := decode[server.RunAccepted](t, resp).RunID
		t.Cleanup(func() {
			post(t, ts.URL+"/agents/stuck/runs/"+id+"/cancel", "", "Authorization", "Bearer "+who).Body.Close()
		})
		return id
	}
	stream := func(who, id string) *http.Response {
		return get(t, ts.URL+"/agents/stuck/runs/"+id+"/events", "Authorization", "Bearer "+who, "Accept", "text/event-stream")
	}
	alices := begin("alice")
	var open []*http.Response
	defer func() {
		for _, resp := range open {
			resp.Body.Close()
		}
	}()
	for i := range 2 {
		resp := stream("alice", alices)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("alice's stream %d: %d", i, resp.StatusCode)
		}
		open = append(open, resp)
	}
	resp := stream("alice", alices)
	if resp.StatusCode != http.StatusTooManyRequests {
		resp.Body.Close()
		t.Fatalf("alice's third stream while two are open: %d, want 429", resp.StatusCode)
	}
	e := decode[server.ErrorBody](t, resp)
	if e.Error.Code != server.CodeTooManyStreams || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("alice's third stream refused with Retry-After %q %+v, want 3 and %s", resp.Header.Get("Retry-After"), e.Error, server.CodeTooManyStreams)
	}
	// Bob's streams are his own to count.
	bobs := stream("bob", begin("bob"))
	open = append(open, bobs)
	if bobs.StatusCode != http.StatusOK {
		t.Fatalf("bob's stream: %d", bobs.StatusCode)
	}
	// A stream alice closes is hers to open again, once the server sees
	// it closed.
	open[0].Body.Close()
	waitFor(t, "alice's closed stream to be given back", func() bool {
		resp := stream("alice", alices)
		if resp.StatusCode == http.StatusOK {
			open = append(open, resp)
			return true
		}
		resp.Body.Close()
		return false
	})
}

// goneWriter is the response of a client that went away after the first
// frame: every later write fails, while the request's context says
// nothing, as net/http's does until the handler returns when a write is
// the first to find the connection closed.
type goneWriter struct {
	h      http.Header
	writes int
}

func (w *goneWriter) Header() http.Header { return w.h }
func (w *goneWriter) WriteHeader(int)     {}
func (w *goneWriter) FlushError() error   { return nil }
func (w *goneWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes > 1 {
		return 0, errors.New("write: broken pipe")
	}
	return len(p), nil
}

func TestDisconnect_AnSSEWriteThatFindsTheClientGoneCancelsTheRun(t *testing.T) {
	log := newSpyLog(1)
	// Alone, the run would stream for four seconds and complete.
	srv, _ := start(t, []helikon.Agent{newAgent(t, "slow", 200*time.Millisecond, strings.Split(strings.Repeat("x ", 20), " ")[:20]...)},
		server.WithEventLog(log))
	req := httptest.NewRequest(http.MethodPost, "/agents/slow/runs?stream=sse", strings.NewReader(`{"input":"hi"}`))
	srv.Handler().ServeHTTP(&goneWriter{h: http.Header{}}, req) // returns at the failed write
	id := <-log.created
	var info server.RunInfo
	waitFor(t, "the run to end", func() bool {
		var err error
		info, err = log.Info(context.Background(), id)
		return err == nil && info.Status.Final()
	})
	if info.Status != server.StatusCancelled {
		t.Fatalf("the run whose client went away ended %s, want cancelled", info.Status)
	}
}
