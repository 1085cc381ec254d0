package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

func TestRuns_ListsRetainedRunsNewestFirstWithTheirInput(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0), newAgent(t, "echo", 0)})
	long := strings.Repeat("é", 3000) // 6,000 bytes: the record keeps 4 KiB on a rune boundary
	var ids []string
	for _, r := range []struct{ agent, body, session string }{
		{"greeter", `{"input":"first"}`, "s1"},
		{"echo", `{"input":"second"}`, ""},
		{"greeter", `{"messages":[{"role":"user","content":[{"type":"text","text":"third"}]}]}`, "s1"},
		{"greeter", `{"input":"` + long + `"}`, "s2"},
	} {
		resp := post(t, ts.URL+"/agents/"+r.agent+"/runs", r.body, "X-Session-Id", r.session)
		ids = append(ids, decode[server.RunInfo](t, resp).ID)
	}
	tests := []struct {
		name, query string
		want        []int // indexes into ids, newest first
	}{
		{"all", "", []int{3, 2, 1, 0}},
		{"one agent", "?agent=greeter", []int{3, 2, 0}},
		{"one session", "?session=s1", []int{2, 0}},
		{"agent and session", "?agent=echo&session=s1", nil},
		{"limited", "?limit=2", []int{3, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := get(t, ts.URL+"/runs"+tt.query)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			got := decode[server.RunList](t, resp).Runs
			if len(got) != len(tt.want) {
				t.Fatalf("got %d runs, want %d", len(got), len(tt.want))
			}
			for i, w := range tt.want {
				if got[i].ID != ids[w] {
					t.Errorf("run %d is %s, want %s", i, got[i].ID, ids[w])
				}
			}
		})
	}
	all := decode[server.RunList](t, get(t, ts.URL+"/runs")).Runs
	if all[1].Input != "third" || all[3].Input != "first" {
		t.Errorf("inputs %q, %q", all[1].Input, all[3].Input)
	}
	if in := all[0].Input; len(in) > 4096 || len(in) < 4094 || !strings.HasPrefix(long, in) {
		t.Errorf("long input kept as %d bytes", len(in))
	}
}

func TestRuns_RefusesBadQueriesAndLogsThatCannotList(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)})
	_, plain := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithEventLog(onlyLog{server.NewMemoryLog()}))
	tests := []struct {
		name, url string
		status    int
		code      string
	}{
		{"limit not a number", ts.URL + "/runs?limit=x", 400, server.CodeBadRequest},
		{"limit zero", ts.URL + "/runs?limit=0", 400, server.CodeBadRequest},
		{"limit too large", ts.URL + "/runs?limit=1001", 400, server.CodeBadRequest},
		{"unknown agent", ts.URL + "/runs?agent=nope", 404, server.CodeAgentNotFound},
		{"log cannot list", plain.URL + "/runs", 501, server.CodeNotImplemented},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := get(t, tt.url)
			body := decode[server.ErrorBody](t, resp)
			if resp.StatusCode != tt.status || body.Error.Code != tt.code {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, body.Error.Code, tt.status, tt.code)
			}
		})
	}
}

// onlyLog hides every method but the EventLog ones of the log it wraps.
type onlyLog struct{ server.EventLog }

func TestWithDevUI_ServesTheUIAtUIAndRedirectsTheRoot(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithDevUI())
	_, bare := start(t, []helikon.Agent{newAgent(t, "greeter", 0)})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		name, url   string
		status      int
		location    string
		contentType string
	}{
		{"root redirects", ts.URL + "/", 302, "ui/", ""},
		{"ui without slash redirects", ts.URL + "/ui", 302, "ui/", ""},
		{"page", ts.URL + "/ui/", 200, "", "text/html; charset=utf-8"},
		{"script", ts.URL + "/ui/app.js", 200, "", "text/javascript; charset=utf-8"},
		{"API still served", ts.URL + "/agents", 200, "", "application/json"},
		{"unknown route still JSON 404", ts.URL + "/nope", 404, "", "application/json"},
		{"without the option, no UI", bare.URL + "/ui/", 404, "", "application/json"},
		{"without the option, no redirect", bare.URL + "/", 404, "", "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := noRedirect.Get(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status || resp.Header.Get("Location") != tt.location ||
				!strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentType) {
				t.Errorf("%d %q %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Content-Type"))
			}
		})
	}
}

func TestWithDevUI_AssetsNeedNoAuthButEveryRouteDoes(t *testing.T) {
	auth := server.AuthFunc(func(r *http.Request) (server.Principal, context.Context, error) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			return server.Principal{}, nil, server.Unauthorized("bearer token required")
		}
		return server.Principal{ID: "caller"}, r.Context(), nil
	})
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithDevUI(), server.WithAuth(auth))
	_, bare := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithAuth(auth))
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		name, method, url, token string
		status                   int
	}{
		{"page", "GET", ts.URL + "/ui/", "", 200},
		{"script", "GET", ts.URL + "/ui/app.js", "", 200},
		{"style, HEAD", "HEAD", ts.URL + "/ui/style.css", "", 200},
		{"root redirect", "GET", ts.URL + "/", "", 302},
		{"ui redirect", "GET", ts.URL + "/ui", "", 302},
		{"unknown UI file", "GET", ts.URL + "/ui/secrets.json", "", 404},
		{"UI path, other method", "POST", ts.URL + "/ui/", "", 401},
		{"agents", "GET", ts.URL + "/agents", "", 401},
		{"runs", "GET", ts.URL + "/runs", "", 401},
		{"openapi", "GET", ts.URL + "/openapi.json", "", 401},
		{"a run's events", "GET", ts.URL + "/agents/greeter/runs/x/events", "", 401},
		{"start a run", "POST", ts.URL + "/agents/greeter/runs", "", 401},
		{"agents with the token", "GET", ts.URL + "/agents", "s3cret", 200},
		{"agents with a wrong token", "GET", ts.URL + "/agents", "nope", 401},
		{"without the UI, the root is guarded", "GET", bare.URL + "/", "", 401},
		{"without the UI, /ui/ is guarded", "GET", bare.URL + "/ui/app.js", "", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("%s %s: %d, want %d", tt.method, tt.url, resp.StatusCode, tt.status)
			}
		})
	}
}
