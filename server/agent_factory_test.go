package server_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// scripted returns an agent on a scripted mock, which replays its script
// once: a second run of the same agent finds the script spent.
func scripted(t *testing.T) helikon.Agent {
	t.Helper()
	a, err := helikon.NewAgent("scripted", mock.Scripted(mock.Deltas("once ", "upon")))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestWithAgentFactory_EveryRunGetsAFreshAgentSoPerRunStateWorksFromTheSecondRunOn(t *testing.T) {
	var built atomic.Int32
	var principals []string
	factory := server.WithAgentFactory(func(ctx context.Context, name string) (helikon.Agent, error) {
		built.Add(1)
		principals = append(principals, server.PrincipalOf(ctx).ID)
		return scripted(t), nil
	})
	_, ts := start(t, []helikon.Agent{scripted(t)}, factory, bearerAuth)
	for i := range 3 {
		resp := do(t, "POST", ts.URL+"/agents/scripted/runs", `{"input":"go"}`, "Content-Type", "application/json", "Authorization", "Bearer alice")
		info := decode[server.RunInfo](t, resp)
		if info.Status != server.StatusCompleted || info.Result.FinalOutput != "once upon" {
			t.Fatalf("run %d: %+v", i+1, info)
		}
	}
	if built.Load() != 3 || principals[2] != "alice" {
		t.Fatalf("the factory built %d agents, for %v", built.Load(), principals)
	}
	// Without the factory, the one agent's script is spent after a run:
	// what the factory is for.
	_, shared := start(t, []helikon.Agent{scripted(t)})
	decode[server.RunInfo](t, post(t, shared.URL+"/agents/scripted/runs", `{"input":"go"}`))
	if info := decode[server.RunInfo](t, post(t, shared.URL+"/agents/scripted/runs", `{"input":"go"}`)); info.Status == server.StatusCompleted {
		t.Fatalf("a shared scripted agent completed its second run: %+v", info)
	}
}

func TestWithAgentFactory_AFailedBuildFailsTheRequestBeforeTheRun(t *testing.T) {
	for _, tt := range []struct {
		name   string
		build  func() (helikon.Agent, error)
		status int
	}{
		{"a plain error is a 500", func() (helikon.Agent, error) { return nil, errors.New("no model key") }, 500},
		{"an *Error keeps its status", func() (helikon.Agent, error) { return nil, server.Forbidden("not your agent") }, 403},
		{"an agent of another name is a 500", func() (helikon.Agent, error) { return newAgent(t, "other", 0), nil }, 500},
	} {
		t.Run(tt.name, func(t *testing.T) {
			factory := server.WithAgentFactory(func(context.Context, string) (helikon.Agent, error) { return tt.build() })
			_, ts := start(t, []helikon.Agent{scripted(t)}, factory)
			resp := post(t, ts.URL+"/agents/scripted/runs", `{"input":"go"}`)
			decode[server.ErrorBody](t, resp)
			if resp.StatusCode != tt.status || resp.Header.Get("X-Run-Id") != "" {
				t.Fatalf("%d, run %q", resp.StatusCode, resp.Header.Get("X-Run-Id"))
			}
			if list := decode[server.RunList](t, get(t, ts.URL+"/runs")); len(list.Runs) != 0 {
				t.Fatalf("a run was recorded: %+v", list.Runs)
			}
		})
	}
}
