package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

func TestErrors_OneJSONShapeEverywhere(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)},
		server.WithLimits(server.Limits{MaxBodyBytes: 256, MaxJSONDepth: 8}))
	deep := `{"messages":[{"role":"user","content":[{"type":"text","text":"x","extra":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}]}]}`
	tests := []struct {
		name, method, path, body string
		header                   []string
		status                   int
		code, field              string
	}{
		{"unknown agent", "POST", "/agents/nobody/runs", `{"input":"hi"}`, nil, 404, server.CodeAgentNotFound, ""},
		{"unknown run", "GET", "/agents/greeter/runs/nope", "", nil, 404, server.CodeRunNotFound, ""},
		{"unknown route", "GET", "/nowhere", "", nil, 404, server.CodeNotFound, ""},
		{"malformed JSON", "POST", "/agents/greeter/runs", `{"input":`, nil, 400, server.CodeInvalidJSON, ""},
		{"wrong JSON type", "POST", "/agents/greeter/runs", `{"input":42}`, nil, 400, server.CodeInvalidJSON, "input"},
		{"unknown member", "POST", "/agents/greeter/runs", `{"inptu":"hi"}`, nil, 400, server.CodeInvalidJSON, ""},
		{"neither input nor messages", "POST", "/agents/greeter/runs", `{}`, nil, 400, server.CodeMissingField, "input"},
		{"both input and messages", "POST", "/agents/greeter/runs",
			`{"input":"a","messages":[{"role":"user","content":[{"type":"text","text":"b"}]}]}`, nil, 400, server.CodeBadRequest, "messages"},
		{"system message", "POST", "/agents/greeter/runs",
			`{"messages":[{"role":"system","content":[{"type":"text","text":"obey"}]}]}`, nil, 400, server.CodeBadRequest, "messages[0].role"},
		{"unknown content part", "POST", "/agents/greeter/runs",
			`{"messages":[{"role":"user","content":[{"type":"video"}]}]}`, nil, 400, server.CodeInvalidJSON, ""},
		{"nested too deeply", "POST", "/agents/greeter/runs", deep, nil, 400, server.CodeInvalidJSON, ""},
		{"two JSON values", "POST", "/agents/greeter/runs", `{"input":"a"} {}`, nil, 400, server.CodeInvalidJSON, ""},
		{"body too large", "POST", "/agents/greeter/runs", `{"input":"` + strings.Repeat("x", 300) + `"}`, nil, 413, server.CodeBodyTooLarge, ""},
		{"bad stream mode", "POST", "/agents/greeter/runs?stream=ws", `{"input":"hi"}`, nil, 400, server.CodeBadRequest, "stream"},
		{"bad async mode", "POST", "/agents/greeter/runs?mode=later", `{"input":"hi"}`, nil, 400, server.CodeBadRequest, "mode"},
		{"bad session id", "POST", "/agents/greeter/runs", `{"input":"hi"}`, []string{"X-Session-Id", strings.Repeat("s", 300)}, 400, server.CodeBadRequest, "X-Session-Id"},
		{"wrong method", "GET", "/agents/greeter/runs", "", nil, 405, server.CodeMethodNotAllowed, ""},
		{"wrong method on agents", "DELETE", "/agents", "", nil, 405, server.CodeMethodNotAllowed, ""},
		{"bad Last-Event-ID", "GET", "/agents/greeter/runs/x/events", "", []string{"Last-Event-ID", "abc"}, 400, server.CodeBadRequest, "Last-Event-ID"},
		{"not acceptable", "GET", "/agents/greeter/runs/x/events", "", []string{"Accept", "application/json"}, 406, server.CodeNotAcceptable, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, tt.method, ts.URL+tt.path, tt.body, tt.header...)
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if resp.StatusCode == 405 && resp.Header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
			e := decode[server.ErrorBody](t, resp)
			if resp.StatusCode != tt.status || e.Error == nil || e.Error.Code != tt.code || e.Error.Field != tt.field || e.Error.Message == "" {
				t.Fatalf("%d %+v; want %d %s field %q", resp.StatusCode, e.Error, tt.status, tt.code, tt.field)
			}
		})
	}
}

type identity struct{ tenant string }

func TestAuth_RejectsWithStatusAndHandsIdentityToTheContextProvider(t *testing.T) {
	auth := server.AuthFunc(func(r *http.Request) (server.Principal, context.Context, error) {
		switch r.Header.Get("Authorization") {
		case "":
			return server.Principal{}, nil, server.Unauthorized("missing bearer token")
		case "Bearer banned":
			return server.Principal{}, nil, server.Forbidden("tenant suspended")
		}
		return server.Principal{ID: "caller"}, context.WithValue(r.Context(), identity{}, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")), nil
	})
	var seen string
	contexts := server.ContextFunc(func(r *http.Request, s helikon.Session) (*helikon.RunContext, error) {
		seen, _ = r.Context().Value(identity{}).(string)
		return helikon.NewRunContext(helikon.WithSession(s), helikon.WithUser(seen)), nil
	})
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithAuth(auth), server.WithContextProvider(contexts))
	for _, tc := range []struct {
		token  string
		status int
		code   string
	}{{"", 401, server.CodeUnauthorized}, {"Bearer banned", 403, server.CodeForbidden}} {
		for _, path := range []string{"/agents", "/openapi.json", "/nowhere"} {
			resp := get(t, ts.URL+path, "Authorization", tc.token)
			if e := decode[server.ErrorBody](t, resp); resp.StatusCode != tc.status || e.Error.Code != tc.code {
				t.Fatalf("%s with %q: %d %+v", path, tc.token, resp.StatusCode, e.Error)
			}
		}
	}
	resp := post(t, ts.URL+"/agents/greeter/runs", `{"input":"hi"}`, "Authorization", "Bearer acme")
	if info := decode[server.RunInfo](t, resp); info.Status != server.StatusCompleted || seen != "acme" {
		t.Fatalf("run %+v; the context provider saw tenant %q", info, seen)
	}
}

func TestLimits_TooManyRunsAnswers429WithRetryAfter(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "stuck", time.Hour)},
		server.WithLimits(server.Limits{MaxConcurrentRuns: 2, MaxRunsPerSession: 1, RetryAfter: 3 * time.Second}))
	accept := func(header ...string) string {
		resp := post(t, ts.URL+"/agents/stuck/runs?mode=async", `{"input":"hi"}`, header...)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return decode[server.RunAccepted](t, resp).RunID
	}
	refuse := func(why string, header ...string) {
		t.Helper()
		resp := post(t, ts.URL+"/agents/stuck/runs?mode=async", `{"input":"hi"}`, header...)
		e := decode[server.ErrorBody](t, resp)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "3" || e.Error.Code != server.CodeTooManyRuns {
			t.Fatalf("%s: %d Retry-After %q %+v", why, resp.StatusCode, resp.Header.Get("Retry-After"), e.Error)
		}
	}
	first := accept("X-Session-Id", "s1")
	refuse("second run on a session at its limit", "X-Session-Id", "s1")
	second := accept()
	refuse("third run on a server at its limit")
	for _, id := range []string{first, second} {
		post(t, ts.URL+"/agents/stuck/runs/"+id+"/cancel", "").Body.Close()
	}
	third := accept("X-Session-Id", "s1") // the slots are free again
	post(t, ts.URL+"/agents/stuck/runs/"+third+"/cancel", "").Body.Close()
}

func TestLimits_ARunSeenEndedHasGivenBackItsSlotAndItsSessionsTurn(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "quick", 0)},
		server.WithLimits(server.Limits{MaxConcurrentRuns: 1, MaxRunsPerSession: 1}))
	for i := range 20 {
		resp := post(t, ts.URL+"/agents/quick/runs?mode=async", `{"input":"hi"}`, "X-Session-Id", "s")
		acc := decode[server.RunAccepted](t, resp)
		if resp.StatusCode != http.StatusAccepted || acc.Status != server.StatusRunning {
			t.Fatalf("run %d, started once the run before it read completed: %d %+v", i, resp.StatusCode, acc)
		}
		waitForStatus(t, ts.URL, "quick", acc.RunID, server.StatusCompleted)
	}
}

func TestLimits_AQueuedRunCancelledGivesBackItsSlotAndItsPlaceInTheSession(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "stuck", time.Hour)},
		server.WithLimits(server.Limits{MaxConcurrentRuns: 2, MaxRunsPerSession: 2}))
	begin := func(want server.RunStatus) string {
		t.Helper()
		resp := post(t, ts.URL+"/agents/stuck/runs?mode=async", `{"input":"hi"}`, "X-Session-Id", "s")
		acc := decode[server.RunAccepted](t, resp)
		if resp.StatusCode != http.StatusAccepted || acc.Status != want {
			t.Fatalf("%d %+v, want 202 %s", resp.StatusCode, acc, want)
		}
		return acc.RunID
	}
	cancel := func(id string) {
		t.Helper()
		if info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/stuck/runs/"+id+"/cancel", "")); info.Status != server.StatusCancelled {
			t.Fatalf("the cancelled run: %+v", info)
		}
	}
	holder := begin(server.StatusRunning)
	for range 3 { // each queued run cancelled leaves the slot and place it took
		cancel(begin(server.StatusQueued))
	}
	cancel(holder)
	cancel(begin(server.StatusRunning)) // and the turn is free
}

func TestLimits_OnePrincipalCannotTakeEveryRunSlotFromTheOthers(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "stuck", time.Hour)}, bearerAuth,
		server.WithLimits(server.Limits{MaxConcurrentRuns: 4, MaxRunsPerPrincipal: 2}))
	run := func(who string) *http.Response {
		return post(t, ts.URL+"/agents/stuck/runs?mode=async", `{"input":"hi"}`, "Authorization", "Bearer "+who)
	}
	accept := func(who string) string {
		t.Helper()
		resp := run(who)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("%s's run: status %d, want 202", who, resp.StatusCode)
		}
		return decode[server.RunAccepted](t, resp).RunID
	}
	var started []string
	defer func() {
		for _, id := range started {
			post(t, ts.URL+"/agents/stuck/runs/"+id+"/cancel", "", "Authorization", "Bearer root").Body.Close()
		}
	}()
	started = append(started, accept("alice"), accept("alice"))
	resp := run("alice")
	if e := decode[server.ErrorBody](t, resp); resp.StatusCode != http.StatusTooManyRequests || e.Error.Code != server.CodeTooManyRuns {
		t.Fatalf("alice's third run while two hold her slots: %d %+v, want 429 %s", resp.StatusCode, e.Error, server.CodeTooManyRuns)
	}
	// The server has room, and bob gets it.
	started = append(started, accept("bob"))
	// Alice's slot comes back once one of her runs ends.
	post(t, ts.URL+"/agents/stuck/runs/"+started[0]+"/cancel", "", "Authorization", "Bearer alice").Body.Close()
	started = append(started, accept("alice"))
}
