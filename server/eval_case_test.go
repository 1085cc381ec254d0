package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// memCases is a CaseSink in memory.
type memCases struct {
	mu    sync.Mutex
	cases []server.EvalCase
}

func (m *memCases) Dataset() string { return "cases.jsonl" }

func (m *memCases) SaveCase(_ context.Context, c server.EvalCase) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, have := range m.cases {
		if have.ID == c.ID {
			return fmt.Errorf("%w: %s", server.ErrCaseExists, c.ID)
		}
	}
	m.cases = append(m.cases, c)
	return nil
}

func TestSaveCase_ACompletedRunBecomesACaseOnceForItsOwnerOnly(t *testing.T) {
	lookup := helikon.MustTool("lookup", "Look up.", func(*helikon.ToolContext, struct{}) (string, error) { return "2098", nil })
	factory := server.WithAgentFactory(func(_ context.Context, name string) (helikon.Agent, error) {
		if name == "stuck" {
			return newAgent(t, "stuck", 1<<40), nil
		}
		return helikon.NewAgent("teller", mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "a", Name: "lookup", Args: `{}`}, mock.Call{ID: "b", Name: "lookup", Args: `{}`}),
			mock.Text("You spent 2098.")), helikon.WithTools(lookup))
	})
	teller, _ := helikon.NewAgent("teller", mock.Scripted(mock.Text("x")), helikon.WithTools(lookup))
	sink := &memCases{}
	_, ts := start(t, []helikon.Agent{teller, newAgent(t, "stuck", 1<<40)}, bearerAuth, factory, server.WithCaseSink(sink))
	auth := func(who string) []string { return []string{"Authorization", "Bearer " + who} }
	run := decode[server.RunInfo](t, post(t, ts.URL+"/agents/teller/runs", `{"input":"How much?"}`, append(auth("alice"), "X-Session-Id", "s")...))
	if run.Status != server.StatusCompleted {
		t.Fatalf("run %+v", run)
	}
	caseURL := ts.URL + "/agents/teller/runs/" + run.ID + "/case"

	if resp := post(t, caseURL, "", auth("bob")...); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another principal saving the run: %d, want 404", resp.StatusCode)
	}
	resp := post(t, caseURL, "", auth("alice")...)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	saved := decode[server.SavedCase](t, resp)
	c := saved.Case
	if saved.Dataset != "cases.jsonl" || c.ID != "run-"+run.ID || c.Input != "How much?" || c.Expected != "You spent 2098." ||
		strings.Join(c.ExpectedTools, ",") != "lookup,lookup" || c.Agent != "teller" || c.SessionID != "s" {
		t.Errorf("saved %+v", saved)
	}
	again := post(t, caseURL, "", auth("alice")...)
	if body := decode[server.ErrorBody](t, again); again.StatusCode != http.StatusConflict || body.Error.Code != server.CodeCaseExists {
		t.Errorf("saving twice: %d %+v", again.StatusCode, body)
	}
	running := decode[server.RunAccepted](t, post(t, ts.URL+"/agents/stuck/runs?mode=async", `{"input":"wait"}`, auth("alice")...))
	resp = post(t, ts.URL+"/agents/stuck/runs/"+running.RunID+"/case", "", auth("alice")...)
	if body := decode[server.ErrorBody](t, resp); resp.StatusCode != http.StatusConflict || body.Error.Code != server.CodeNotCompleted {
		t.Errorf("saving a running run: %d %+v", resp.StatusCode, body)
	}
	post(t, ts.URL+"/agents/stuck/runs/"+running.RunID+"/cancel", "", auth("alice")...).Body.Close()
	if len(sink.cases) != 1 {
		t.Errorf("the sink holds %d cases", len(sink.cases))
	}
}
