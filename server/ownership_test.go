package server_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

// logBuffer collects a server's log lines; safe for concurrent writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// bearerAuth admits "Bearer <id>" as principal id; root is an admin.
var bearerAuth = server.WithAuth(server.AuthFunc(func(r *http.Request) (server.Principal, context.Context, error) {
	id, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || id == "" {
		return server.Principal{}, nil, server.Unauthorized("bearer token required")
	}
	return server.Principal{ID: id, Admin: id == "root"}, nil, nil
}))

// eventLogs are the logs every ownership and resume test runs on.
var eventLogs = []struct {
	name string
	open func(t *testing.T) server.EventLog
}{
	{"memory", func(*testing.T) server.EventLog { return server.NewMemoryLog() }},
	{"redis", func(t *testing.T) server.EventLog { return redisLog(t, "helikon-test:"+uuid.NewString()[:8]+":") }},
}

// answer is what a route said: status, X-Run-Id and body, with the run id
// in the body replaced, so that answers about two ids compare.
type answer struct {
	status int
	runID  string
	body   string
}

// call asks route of run id as the principal token, over transport.
func call(t *testing.T, base, token, transport, method, path, body string) answer {
	t.Helper()
	auth := []string{"Authorization", "Bearer " + token}
	switch transport {
	case "websocket":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base+path, "http"),
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
		if err == nil {
			defer c.CloseNow()
			var msgs []string
			for {
				_, data, err := c.Read(ctx)
				if err != nil {
					break
				}
				msgs = append(msgs, string(data))
				if bytes.Contains(data, []byte(`"type":"run_paused"`)) {
					break // a paused run's stream waits for its continuation
				}
			}
			return answer{status: resp.StatusCode, runID: resp.Header.Get("X-Run-Id"), body: strings.Join(msgs, "\n")}
		}
		if resp == nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return answer{status: resp.StatusCode, runID: resp.Header.Get("X-Run-Id"), body: string(data)}
	case "sse":
		auth = append(auth, "Accept", "text/event-stream")
	default:
		auth = append(auth, "Content-Type", "application/json")
	}
	resp := do(t, method, base+path, body, auth...)
	defer resp.Body.Close()
	if transport == "sse" && resp.StatusCode == http.StatusOK {
		var got []string
		for f := range frames(resp.Body) {
			if got = append(got, f.event); f.event == "run_paused" {
				break // a paused run's stream waits for its continuation
			}
		}
		return answer{status: resp.StatusCode, runID: resp.Header.Get("X-Run-Id"), body: strings.Join(got, "\n")}
	}
	data, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, runID: resp.Header.Get("X-Run-Id"), body: string(data)}
}

// runRoutes are every route that names a run, with each transport it
// answers on.
var runRoutes = []struct {
	name, transport, method, path, body string
}{
	{"read the run", "json", "GET", "", ""},
	{"replay its events", "sse", "GET", "/events", ""},
	{"replay its events", "websocket", "GET", "/events", ""},
	{"cancel it", "json", "POST", "/cancel", ""},
	{"list its approvals", "json", "GET", "/approvals", ""},
	{"approve its call", "json", "POST", "/approvals", `{"decisions":[{"id":"APPROVAL","kind":"approve"}]}`},
}

func TestOwnership_AnotherPrincipalGets404FromEveryRouteOnEveryTransportAndLog(t *testing.T) {
	for _, lg := range eventLogs {
		t.Run(lg.name, func(t *testing.T) {
			var logs logBuffer
			var sends atomic.Int32
			var asked sync.Map // the session ids the provider was asked for
			memory := server.NewMemorySessions()
			sessions := server.SessionFunc(func(ctx context.Context, id string) (helikon.Session, error) {
				asked.Store(server.PrincipalOf(ctx).ID+" "+id, true)
				return memory.Session(ctx, id)
			})
			_, ts := start(t, []helikon.Agent{mailAgent(t, &sends), newAgent(t, "greeter", 0)}, bearerAuth, askingContext,
				server.WithEventLog(lg.open(t)), server.WithSessionProvider(sessions), server.WithLogger(logs.logger()))
			u := ts.URL

			// Alice's run pauses for approval on her session "support".
			paused := call(t, u, "alice", "json", "POST", "/agents/mailer/runs", `{"input":"mail bob"}`)
			if paused.status != http.StatusOK || !strings.Contains(paused.body, `"status":"paused"`) {
				t.Fatalf("alice's run: %+v", paused)
			}
			pausedID := paused.runID
			info := decode[server.RunInfo](t, get(t, u+"/agents/mailer/runs/"+pausedID, "Authorization", "Bearer alice"))
			if info.Owner != "alice" || len(info.Pending) != 1 {
				t.Fatalf("alice's paused run reads %+v", info)
			}
			approval := info.Pending[0].ID
			unknown := uuid.NewString()

			for _, rt := range runRoutes {
				t.Run(rt.name+" over "+rt.transport, func(t *testing.T) {
					body := strings.ReplaceAll(rt.body, "APPROVAL", approval)
					got := call(t, u, "bob", rt.transport, rt.method, "/agents/mailer/runs/"+pausedID+rt.path, body)
					none := call(t, u, "bob", rt.transport, rt.method, "/agents/mailer/runs/"+unknown+rt.path, body)
					none.body = strings.ReplaceAll(none.body, unknown, pausedID)
					if got.status != http.StatusNotFound || got != none || !strings.Contains(got.body, `"run_not_found"`) {
						t.Fatalf("bob on alice's run: %+v\nbob on a run that does not exist: %+v", got, none)
					}
				})
			}
			// Nothing bob asked for happened: the run is still paused at
			// its pause, and no email went out.
			if info := decode[server.RunInfo](t, get(t, u+"/agents/mailer/runs/"+pausedID, "Authorization", "Bearer alice")); info.Status != server.StatusPaused || sends.Load() != 0 {
				t.Fatalf("after bob's attempts alice's run is %s, %d emails sent", info.Status, sends.Load())
			}

			// Both say X-Session-Id: support, and get a session each.
			bobs := call(t, u, "bob", "json", "POST", "/agents/greeter/runs", `{"input":"hi"}`)
			if bobs.status != http.StatusOK {
				t.Fatalf("bob's run: %+v", bobs)
			}
			bobsOnSupport := do(t, "POST", u+"/agents/greeter/runs", `{"input":"hi"}`,
				"Authorization", "Bearer bob", "Content-Type", "application/json", "X-Session-Id", "support")
			bobsOnSupport.Body.Close()
			alicesOnSupport := do(t, "POST", u+"/agents/greeter/runs", `{"input":"hi"}`,
				"Authorization", "Bearer alice", "Content-Type", "application/json", "X-Session-Id", "support")
			alicesOnSupport.Body.Close()
			var ids []string
			asked.Range(func(k, _ any) bool {
				if strings.HasSuffix(k.(string), "support") {
					ids = append(ids, k.(string))
				}
				return true
			})
			if len(ids) != 2 || strings.Fields(ids[0])[1] == strings.Fields(ids[1])[1] {
				t.Fatalf("the session ids the provider got for two principals' \"support\": %q", ids)
			}

			// Each lists only its own runs; an admin lists all, and the
			// audit log says so.
			for _, tt := range []struct {
				token string
				want  []string
			}{
				{"alice", []string{alicesOnSupport.Header.Get("X-Run-Id"), pausedID}},
				{"bob", []string{bobsOnSupport.Header.Get("X-Run-Id"), bobs.runID}},
				{"root", []string{alicesOnSupport.Header.Get("X-Run-Id"), bobsOnSupport.Header.Get("X-Run-Id"), bobs.runID, pausedID}},
			} {
				list := decode[server.RunList](t, get(t, u+"/runs", "Authorization", "Bearer "+tt.token))
				var got []string
				for _, r := range list.Runs {
					got = append(got, r.ID)
				}
				if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(tt.want))) {
					t.Errorf("%s lists %v, want %v", tt.token, got, tt.want)
				}
				session := decode[server.RunList](t, get(t, u+"/runs?session=support", "Authorization", "Bearer "+tt.token))
				if tt.token != "root" && (len(session.Runs) != 1 || session.Runs[0].Owner != tt.token) {
					t.Errorf("%s's session support lists %+v", tt.token, session.Runs)
				}
			}
			if !strings.Contains(logs.String(), `msg="server: audit: admin access" principal=root method=GET path=/runs`) {
				t.Errorf("the admin's listing is not in the audit log:\n%s", logs.String())
			}

			// The admin reaches alice's run on every route that reads it,
			// and each access is audited.
			for _, rt := range runRoutes[:3] {
				got := call(t, u, "root", rt.transport, rt.method, "/agents/mailer/runs/"+pausedID+rt.path, "")
				if got.status != http.StatusOK && got.status != http.StatusSwitchingProtocols {
					t.Errorf("the admin's %s over %s: %+v", rt.name, rt.transport, got)
				}
			}
			if n := strings.Count(logs.String(), "principal=root method=GET path=/agents/mailer/runs/"+pausedID); n != 3 {
				t.Errorf("%d audited admin reads of alice's run, want 3:\n%s", n, logs.String())
			}

			// Alice herself reaches it on every route: she approves and
			// the email goes out.
			for _, rt := range runRoutes {
				if rt.method == "POST" {
					continue
				}
				got := call(t, u, "alice", rt.transport, rt.method, "/agents/mailer/runs/"+pausedID+rt.path, "")
				if got.status != http.StatusOK && got.status != http.StatusSwitchingProtocols || got.runID != pausedID {
					t.Errorf("alice's %s over %s: %+v", rt.name, rt.transport, got)
				}
			}
			approve := call(t, u, "alice", "json", "POST", "/agents/mailer/runs/"+pausedID+"/approvals",
				`{"decisions":[{"id":"`+approval+`","kind":"approve"}]}`)
			if approve.status != http.StatusAccepted {
				t.Fatalf("alice's approval: %+v", approve)
			}
			waitFor(t, "the approved run to complete", func() bool {
				info := decode[server.RunInfo](t, get(t, u+"/agents/mailer/runs/"+pausedID, "Authorization", "Bearer alice"))
				return info.Status == server.StatusCompleted
			})
			if sends.Load() != 1 {
				t.Fatalf("%d emails sent after alice approved", sends.Load())
			}
			if got := call(t, u, "alice", "json", "POST", "/agents/mailer/runs/"+pausedID+"/cancel", ""); got.status != http.StatusOK {
				t.Errorf("alice's cancel of her finished run: %+v", got)
			}
		})
	}
}

func TestOwnership_AnAuthenticatorThatNamesNoPrincipalIsRefused(t *testing.T) {
	anonymous := server.WithAuth(server.AuthFunc(func(r *http.Request) (server.Principal, context.Context, error) {
		return server.Principal{}, nil, nil
	}))
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, anonymous)
	for _, path := range []string{"/runs", "/agents"} {
		resp := get(t, ts.URL+path)
		body := decode[server.ErrorBody](t, resp)
		if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body.Error.Message, "principal") {
			t.Errorf("GET %s: %d %+v", path, resp.StatusCode, body)
		}
	}
}
