package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

func TestNew_ValidatesConfiguration(t *testing.T) {
	a := newAgent(t, "greeter", 0)
	b := newAgent(t, "greeter", 0)
	bad := newAgent(t, "has space", 0)
	tests := []struct {
		name   string
		agents []helikon.Agent
		opts   []server.Option
	}{
		{"no agents", nil, nil},
		{"nil agent", []helikon.Agent{nil}, nil},
		{"duplicate names", []helikon.Agent{a, b}, nil},
		{"name is not one path segment", []helikon.Agent{bad}, nil},
		{"zero retention", []helikon.Agent{a}, []server.Option{server.WithRetention(0, 10)}},
		{"negative grace", []helikon.Agent{a}, []server.Option{server.WithGracePeriod(-time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := server.New(tt.agents, tt.opts...)
			if !errors.Is(err, server.ErrConfig) || srv != nil {
				t.Fatalf("New = %v, %v; want ErrConfig", srv, err)
			}
		})
	}
}

func TestAgents_ListsNamesAndDescriptions(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "b", 0, "x"), newAgent(t, "a", 0, "y")})
	got := decode[server.AgentList](t, get(t, ts.URL+"/agents"))
	want := []server.AgentInfo{{Name: "b", Description: "says x"}, {Name: "a", Description: "says y"}}
	if !slices.Equal(got.Agents, want) {
		t.Fatalf("agents = %+v, want %+v", got.Agents, want)
	}
}

func TestRun_OneShotAnswersTheFinishedRun(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)})
	resp := post(t, ts.URL+"/agents/greeter/runs", `{"input":"hi"}`)
	id := resp.Header.Get("X-Run-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("status %d, X-Run-Id %q", resp.StatusCode, id)
	}
	info := decode[server.RunInfo](t, resp)
	if info.ID != id || info.Status != server.StatusCompleted || info.Result == nil ||
		info.Result.FinalOutput != "Hello, world" || info.Result.Usage.OutputTokens != 3 || info.FinishedAt == nil {
		t.Fatalf("run = %+v", info)
	}
	if again := runInfo(t, ts.URL, "greeter", id); again.Status != server.StatusCompleted {
		t.Fatalf("GET after one-shot = %+v", again)
	}
}

func TestRun_MessagesBodyIsTheRunsInput(t *testing.T) {
	model := mock.Scripted(mock.Text("ok"))
	a, err := helikon.NewAgent("echo", model)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := start(t, []helikon.Agent{a})
	body := `{"messages":[{"role":"user","content":[{"type":"text","text":"first"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"noted"}]},` +
		`{"role":"user","content":[{"type":"text","text":"second"}]}]}`
	info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/echo/runs", body))
	if info.Status != server.StatusCompleted {
		t.Fatalf("run = %+v", info)
	}
	msgs := model.Requests()[0].Messages
	var texts []string
	for _, m := range msgs {
		if m.Role != helikon.RoleSystem {
			texts = append(texts, string(m.Role)+":"+m.Text())
		}
	}
	if want := []string{"user:first", "assistant:noted", "user:second"}; !slices.Equal(texts, want) {
		t.Fatalf("the model saw %q, want %q", texts, want)
	}
}

func TestRun_SSEFramesCarryTypeAndPosition(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)})
	resp := post(t, ts.URL+"/agents/greeter/runs?stream=sse", `{"input":"hi"}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("X-Run-Id") == "" {
		t.Fatalf("Content-Type %q, X-Run-Id %q", ct, resp.Header.Get("X-Run-Id"))
	}
	fs := readFrames(t, resp.Body)
	want := []string{"run_started", "turn_started", "token_delta", "token_delta", "token_delta", "model_responded", "message_output", "run_completed"}
	if got := types(fs); !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	for i, f := range fs {
		if _, err := helikon.UnmarshalEvent([]byte(f.data)); err != nil || f.id != strconv.Itoa(i+1) {
			t.Fatalf("frame %d: id %q, %v", i, f.id, err)
		}
	}
}

func TestRun_AsyncAnswers202AndOutlivesTheConnection(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "slow", 20*time.Millisecond)})
	resp := post(t, ts.URL+"/agents/slow/runs?mode=async", `{"input":"hi"}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d", resp.StatusCode)
	}
	acc := decode[server.RunAccepted](t, resp)
	if acc.RunID != resp.Header.Get("X-Run-Id") || acc.Status != server.StatusRunning ||
		resp.Header.Get("Location") != "runs/"+acc.RunID || acc.Links.Events != "runs/"+acc.RunID+"/events" {
		t.Fatalf("accepted = %+v, Location %q", acc, resp.Header.Get("Location"))
	}
	// The links resolve against the request URL.
	loc, err := resp.Request.URL.Parse(acc.Links.Self)
	if err != nil || loc.Path != "/agents/slow/runs/"+acc.RunID {
		t.Fatalf("self link resolves to %v (%v)", loc, err)
	}
	waitFor(t, "the async run to complete", func() bool {
		return runInfo(t, ts.URL, "slow", acc.RunID).Status == server.StatusCompleted
	})
}

func TestCancel_StopsARunningRun(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "slow", time.Hour)})
	acc := decode[server.RunAccepted](t, post(t, ts.URL+"/agents/slow/runs?mode=async", `{"input":"hi"}`))
	resp := post(t, ts.URL+"/agents/slow/runs/"+acc.RunID+"/cancel", "")
	info := decode[server.RunInfo](t, resp)
	if resp.StatusCode != http.StatusOK || info.Status != server.StatusCancelled || info.Error == nil ||
		info.Error.Kind != helikon.KindCancelled {
		t.Fatalf("cancel = %d %+v", resp.StatusCode, info)
	}
	// Cancelling a finished run answers it as it is.
	resp = post(t, ts.URL+"/agents/slow/runs/"+acc.RunID+"/cancel", "")
	if again := decode[server.RunInfo](t, resp); again.Status != server.StatusCancelled {
		t.Fatalf("second cancel = %+v", again)
	}
}

func TestShutdown_LetsRunsFinishWithinGrace(t *testing.T) {
	srv, err := server.New([]helikon.Agent{newAgent(t, "slow", 10*time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	ts := startOn(t, srv)
	acc := decode[server.RunAccepted](t, post(t, ts+"/agents/slow/runs?mode=async", `{"input":"hi"}`))
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if info := runInfo(t, ts, "slow", acc.RunID); info.Status != server.StatusCompleted {
		t.Fatalf("after a graceful shutdown the run is %s", info.Status)
	}
	resp := post(t, ts+"/agents/slow/runs", `{"input":"hi"}`)
	if e := decode[server.ErrorBody](t, resp); resp.StatusCode != http.StatusServiceUnavailable || e.Error.Code != server.CodeShuttingDown {
		t.Fatalf("run after shutdown: %d %+v", resp.StatusCode, e.Error)
	}
}

func TestShutdown_CancelsRunsPastGraceAndFlushesThem(t *testing.T) {
	srv, err := server.New([]helikon.Agent{newAgent(t, "stuck", time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	ts := startOn(t, srv)
	acc := decode[server.RunAccepted](t, post(t, ts+"/agents/stuck/runs?mode=async", `{"input":"hi"}`))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("shutdown = %v, want the grace deadline", err)
	}
	info := runInfo(t, ts, "stuck", acc.RunID)
	if info.Status != server.StatusCancelled || info.FinishedAt == nil {
		t.Fatalf("a run cancelled by shutdown reads %+v", info)
	}
}

// startOn serves srv without shutting it down at cleanup (the test does).
func startOn(t *testing.T, srv *server.Server) string {
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}
