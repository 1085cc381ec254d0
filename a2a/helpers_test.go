package a2a_test

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
	"github.com/paigasus/helikon/mock"
)

// replay is a model that answers every request with the same script, so
// one agent serves many runs.
type replay struct {
	script mock.Script
	delay  time.Duration
}

func (m replay) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return mock.New([]mock.Script{m.script}, mock.WithDelay(m.delay)).Invoke(ctx, req)
}

func (m replay) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

// turns is a model that plays its scripts in turn, per run: the n-th
// request of a run gets the n-th script (a run is told by its first
// message being the only one).
type turns struct{ scripts []mock.Script }

func (m turns) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	n := 0
	for _, it := range req.Messages {
		if it.Role == helikon.RoleAssistant {
			n++
		}
	}
	if n >= len(m.scripts) {
		n = len(m.scripts) - 1
	}
	return mock.New([]mock.Script{m.scripts[n]}).Invoke(ctx, req)
}

func (m turns) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

func newAgent(t testing.TB, model helikon.Model, opts ...helikon.AgentOption) helikon.Agent {
	t.Helper()
	a, err := helikon.NewAgent("specialist", model, append([]helikon.AgentOption{helikon.WithDescription("Answers questions about invoices.")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// serve starts a [a2a.Server] for agent on a loopback httptest server
// whose card advertises its own URL.
func serve(t testing.TB, agent helikon.Agent, opts ...a2a.ServerOption) (*a2a.Server, *httptest.Server) {
	t.Helper()
	var srv *a2a.Server
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { srv.ServeHTTP(w, r) }))
	var err error
	srv, err = a2a.NewServer(agent, append([]a2a.ServerOption{a2a.WithURL("http://" + ts.Listener.Addr().String() + "/")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return srv, ts
}

// sdkClient is the a2a-go client for the JSON-RPC endpoint url, sending header
// "Authorization: Bearer <token>" when token is set.
func sdkClient(t testing.TB, url, token string) *a2aclient.Client {
	t.Helper()
	hc := &http.Client{Transport: bearer{token: token}}
	card := &a2apb.AgentCard{Name: "x", URL: url, PreferredTransport: a2apb.TransportProtocolJSONRPC, Capabilities: a2apb.AgentCapabilities{Streaming: true}}
	c, err := a2aclient.NewFromCard(context.Background(), card, a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// tokens authenticates "Bearer alice" as alice and "Bearer bob" as bob.
func tokens(r *http.Request) (string, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer alice":
		return "alice", nil
	case "Bearer bob":
		return "bob", nil
	}
	return "", errUnauthenticated
}

var errUnauthenticated = errorString("unauthenticated")

type errorString string

func (e errorString) Error() string { return string(e) }

func userMessage(text string) *a2apb.MessageSendParams {
	return &a2apb.MessageSendParams{Message: a2apb.NewMessage(a2apb.MessageRoleUser, a2apb.TextPart{Text: text})}
}

// artifactText returns the text of the task's artifact named name.
func artifactText(task *a2apb.Task, name string) string {
	var s string
	for _, a := range task.Artifacts {
		if a.Name != name {
			continue
		}
		for _, p := range a.Parts {
			if tp, ok := p.(a2apb.TextPart); ok {
				s += tp.Text
			}
		}
	}
	return s
}

// counter counts the calls of a tool.
type counter struct{ n atomic.Int32 }
