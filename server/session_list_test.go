package server_test

import (
	"net/http"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

func TestSessions_EachPrincipalListsOnlyItsOwnSessionsLatestFirst(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0), newAgent(t, "echo", 0)}, bearerAuth)
	for _, r := range []struct{ token, agent, input, session string }{
		{"alice", "greeter", "plan my week", "support"},
		{"alice", "echo", "and Friday?", "support"},
		{"alice", "greeter", "no session", ""},
		{"bob", "greeter", "bob's question", "support"}, // the same id: another session
		{"alice", "greeter", "taxes", "tax"},
	} {
		resp := post(t, ts.URL+"/agents/"+r.agent+"/runs", `{"input":"`+r.input+`"}`, "Authorization", "Bearer "+r.token, "X-Session-Id", r.session)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("run %+v: status %d", r, resp.StatusCode)
		}
		resp.Body.Close()
	}
	list := func(token string) []server.SessionInfo {
		resp := get(t, ts.URL+"/sessions", "Authorization", "Bearer "+token)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", token, resp.StatusCode)
		}
		return decode[server.SessionList](t, resp).Sessions
	}
	alice := list("alice")
	if len(alice) != 2 || alice[0].ID != "tax" || alice[1].ID != "support" {
		t.Fatalf("alice's sessions %+v, want tax then support", alice)
	}
	if s := alice[1]; s.Label != "plan my week" || s.Runs != 2 || s.Agent != "echo" || !s.UpdatedAt.After(s.CreatedAt) {
		t.Errorf("alice's support session %+v: want the first input as label, 2 runs, the latest agent", s)
	}
	if bob := list("bob"); len(bob) != 1 || bob[0].ID != "support" || bob[0].Label != "bob's question" || bob[0].Runs != 1 {
		t.Errorf("bob's sessions %+v, want only his own support session", bob)
	}
	if carol := list("carol"); len(carol) != 0 {
		t.Errorf("a principal with no runs lists %+v", carol)
	}
	// An admin lists its own sessions: ids are scoped per principal, so
	// everyone's would be ambiguous.
	if root := list("root"); len(root) != 0 {
		t.Errorf("the admin lists %+v", root)
	}
	if resp := get(t, ts.URL+"/sessions"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a token: status %d", resp.StatusCode)
	}
}
