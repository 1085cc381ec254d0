package server_test

import (
	"context"
	"github.com/paigasus/helikon/governance"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// overlapModel is a repeatModel that records how many invocations ran at
// once, and what each was asked.
type overlapModel struct {
	repeatModel
	active, peak atomic.Int32
	mu           sync.Mutex
	requests     [][]helikon.Item
}

func (m *overlapModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		n := m.active.Add(1)
		defer m.active.Add(-1)
		for {
			p := m.peak.Load()
			if n <= p || m.peak.CompareAndSwap(p, n) {
				break
			}
		}
		m.mu.Lock()
		m.requests = append(m.requests, slices.Clone(req.Messages))
		m.mu.Unlock()
		m.repeatModel.Invoke(ctx, req)(yield)
	}
}

func TestSession_RunsOnOneSessionAreSerialisedAndShareHistory(t *testing.T) {
	model := &overlapModel{repeatModel: repeatModel{script: mock.Deltas("a", "b", "c"), delay: 20 * time.Millisecond}}
	a, err := helikon.NewAgent("chat", model)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := start(t, []helikon.Agent{a})
	var wg sync.WaitGroup
	for _, text := range []string{"one", "two", "three"} {
		wg.Go(func() {
			info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/chat/runs", `{"input":"`+text+`"}`, "X-Session-Id", "s1"))
			if info.Status != server.StatusCompleted || info.SessionID != "s1" {
				t.Errorf("run %q: %+v", text, info)
			}
		})
	}
	wg.Wait()
	if p := model.peak.Load(); p != 1 {
		t.Fatalf("%d runs of one session ran at once", p)
	}
	// Each run saw the runs before it: 1, 3 and 5 messages.
	for i, req := range model.requests {
		if len(req) != 2*i+1 {
			t.Fatalf("run %d saw %d messages, want %d", i, len(req), 2*i+1)
		}
	}
}

func TestSession_RunsWithoutHeaderAreEphemeralAndConcurrent(t *testing.T) {
	model := &overlapModel{repeatModel: repeatModel{script: mock.Deltas("a", "b", "c"), delay: 20 * time.Millisecond}}
	a, _ := helikon.NewAgent("chat", model)
	_, ts := start(t, []helikon.Agent{a})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { post(t, ts.URL+"/agents/chat/runs", `{"input":"x"}`).Body.Close() })
	}
	wg.Wait()
	for i, req := range model.requests {
		if len(req) != 1 {
			t.Fatalf("run %d saw %d messages; a run without a session sees only its input", i, len(req))
		}
	}
	if model.peak.Load() < 2 {
		t.Log("the runs happened not to overlap on this machine")
	}
}

// startOnSession starts an async run of agent on session and returns the
// 202's body.
func startOnSession(t *testing.T, base, agent, session string) server.RunAccepted {
	t.Helper()
	return decode[server.RunAccepted](t, post(t, base+"/agents/"+agent+"/runs?mode=async", `{"input":"hi"}`, "X-Session-Id", session))
}

func TestSession_ARunWaitingForItsSessionsTurnIsQueuedAndItsCancelEndsTheWait(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "stuck", time.Hour)})
	startAsync := func() server.RunAccepted { return startOnSession(t, ts.URL, "stuck", "s") }
	first := startAsync()
	// The second run is started only once the first holds the session.
	waitForStatus(t, ts.URL, "stuck", first.RunID, server.StatusRunning)
	second := startAsync()
	if second.Status != server.StatusQueued {
		t.Fatalf("the second run was accepted %s, want queued", second.Status)
	}
	if st := runInfo(t, ts.URL, "stuck", second.RunID).Status; st != server.StatusQueued {
		t.Fatalf("the second run is %s, want queued", st)
	}
	info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/stuck/runs/"+second.RunID+"/cancel", ""))
	if info.Status != server.StatusCancelled || info.Error == nil || !strings.Contains(info.Error.Message, "waiting for the session") {
		t.Fatalf("the waiting run: %+v", info)
	}
	if st := runInfo(t, ts.URL, "stuck", first.RunID).Status; st != server.StatusRunning {
		t.Fatalf("the first run is %s", st)
	}
	post(t, ts.URL+"/agents/stuck/runs/"+first.RunID+"/cancel", "").Body.Close()
}

func TestSession_AQueuedRunRunsOnceTheRunBeforeItEnds(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "stuck", time.Hour)})
	startAsync := func() server.RunAccepted { return startOnSession(t, ts.URL, "stuck", "s") }
	first := startAsync()
	if first.Status != server.StatusRunning {
		t.Fatalf("the first run of a free session was accepted %s", first.Status)
	}
	waitForStatus(t, ts.URL, "stuck", first.RunID, server.StatusRunning)
	second := startAsync()
	waitForStatus(t, ts.URL, "stuck", second.RunID, server.StatusQueued)
	post(t, ts.URL+"/agents/stuck/runs/"+first.RunID+"/cancel", "").Body.Close()
	waitForStatus(t, ts.URL, "stuck", second.RunID, server.StatusRunning)
	post(t, ts.URL+"/agents/stuck/runs/"+second.RunID+"/cancel", "").Body.Close()
}

type writeArgs struct {
	Text string `json:"text"`
}

func TestContext_DefaultDeniesSideEffectsUnlessTheOperatorOptsIn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []server.Option
		allowed bool
	}{
		{"default", nil, false},
		{"opt-in", []server.Option{server.WithContextProvider(server.DefaultContext(governance.WithPermissionMode(governance.PermissionDefault)))}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Bool
			send := helikon.MustTool("send_email", "Send an email.", func(tc *helikon.ToolContext, in writeArgs) (string, error) {
				ran.Store(true)
				return "sent", nil
			}) // declares no effect: side-effecting
			model := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "send_email", Args: `{"text":"hi"}`}), mock.Text("done"))
			a, _ := helikon.NewAgent("mailer", model, helikon.WithTools(send))
			_, ts := start(t, []helikon.Agent{a}, tc.opts...)
			resp := post(t, ts.URL+"/agents/mailer/runs?stream=sse", `{"input":"mail bob"}`)
			defer resp.Body.Close()
			denied := slices.Contains(types(readFrames(t, resp.Body)), "permission_denied")
			if ran.Load() != tc.allowed || denied == tc.allowed {
				t.Fatalf("tool ran %v, permission_denied %v; want ran %v", ran.Load(), denied, tc.allowed)
			}
		})
	}
}

func TestSessionProvider_ErrorsReachTheCaller(t *testing.T) {
	sessions := server.SessionFunc(func(ctx context.Context, id string) (helikon.Session, error) {
		return nil, &server.Error{Status: http.StatusServiceUnavailable, Code: server.CodeUnavailable, Message: "session store down"}
	})
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithSessionProvider(sessions))
	resp := post(t, ts.URL+"/agents/greeter/runs", `{"input":"hi"}`, "X-Session-Id", "s")
	if e := decode[server.ErrorBody](t, resp); resp.StatusCode != 503 || e.Error.Message != "session store down" {
		t.Fatalf("%d %+v", resp.StatusCode, e.Error)
	}
}
