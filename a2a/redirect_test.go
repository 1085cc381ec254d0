package a2a_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
)

// apiKey is a transport that adds an API key to every request it carries,
// the way WithHTTPClient's doc says to authenticate.
type apiKey struct{ key string }

func (k apiKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Api-Key", k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// witness is a complete A2A agent on an origin of its own that counts the
// requests it gets and the API keys among them: on a redirect that is
// followed, the run completes against it.
func witness(t *testing.T) (ts *httptest.Server, requests, keys *atomic.Int32) {
	t.Helper()
	exec := &sdkExecutor{run: func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
		return q.Write(ctx, final(req, a2apb.TaskStateCompleted, "answered by another origin"))
	}}
	sdk := sdkServer(t, exec, true)
	requests, keys = new(atomic.Int32), new(atomic.Int32)
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("X-Api-Key") != "" {
			keys.Add(1)
		}
		sdk.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, requests, keys
}

// TestRemoteAgent_ARedirectToAnotherOriginIsRefused pins that neither the
// card's request nor a JSON-RPC call follows a redirect off its origin: Go's
// client followed them, its transport adding the caller's API key at the
// other host, and a 307 or 308 sent that host the message too (the run
// completed with its answer).
func TestRemoteAgent_ARedirectToAnotherOriginIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		streaming bool
		card      bool // redirect the card's request, not the call's
	}{
		{"message/stream 307", http.StatusTemporaryRedirect, true, false},
		{"message/stream 308", http.StatusPermanentRedirect, true, false},
		{"message/send 307", http.StatusTemporaryRedirect, false, false},
		{"message/send 302", http.StatusFound, false, false},
		{"agent card 302", http.StatusFound, true, true},
		{"agent card 308", http.StatusPermanentRedirect, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other, requests, keys := witness(t)
			mux := http.NewServeMux()
			agent := httptest.NewServer(mux)
			t.Cleanup(agent.Close)
			if tc.card {
				mux.Handle(a2asrv.WellKnownAgentCardPath, http.RedirectHandler(other.URL+a2asrv.WellKnownAgentCardPath, tc.status))
			} else {
				card := &a2apb.AgentCard{Name: "Remote", URL: agent.URL + "/rpc", ProtocolVersion: "0.3.0",
					PreferredTransport: a2apb.TransportProtocolJSONRPC, Capabilities: a2apb.AgentCapabilities{Streaming: tc.streaming}}
				mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
				mux.Handle("/rpc", http.RedirectHandler(other.URL+"/rpc", tc.status))
			}
			hc := &http.Client{Transport: apiKey{"secret"}}
			remote, err := a2a.NewRemoteAgent(context.Background(), agent.URL, a2a.WithHTTPClient(hc))
			if err == nil {
				var res *helikon.RunResult
				res, err = helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("the invoice")))
				if err == nil {
					err = fmt.Errorf("the run completed with %q", res.FinalOutput)
				}
			}
			if !errors.Is(err, a2a.ErrCrossOriginRedirect) {
				t.Errorf("error %v, want ErrCrossOriginRedirect", err)
			}
			if n := requests.Load(); n != 0 {
				t.Errorf("the other origin got %d requests (%d with the API key)", n, keys.Load())
			}
		})
	}
}

// TestRemoteAgent_ARedirectWithinTheOriginIsFollowed pins the other side:
// a redirect that keeps to the origin is followed, for the card and for
// each call, with the caller's credentials, and the client's own
// CheckRedirect still has its say on it.
func TestRemoteAgent_ARedirectWithinTheOriginIsFollowed(t *testing.T) {
	exec := &sdkExecutor{run: func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
		return q.Write(ctx, final(req, a2apb.TaskStateCompleted, "answered after a redirect"))
	}}
	sdk := sdkServer(t, exec, true)
	var keyed atomic.Int32
	mux := http.NewServeMux()
	mux.Handle("/moved/", http.StripPrefix("/moved", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusPermanentRedirect)
	})))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") == "secret" {
			keyed.Add(1)
		}
		sdk.Config.Handler.ServeHTTP(w, r)
	}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	card := &a2apb.AgentCard{Name: "Remote", URL: ts.URL + "/moved/rpc", ProtocolVersion: "0.3.0",
		PreferredTransport: a2apb.TransportProtocolJSONRPC, Capabilities: a2apb.AgentCapabilities{Streaming: true}}

	for _, tc := range []struct {
		name string
		opts []a2a.RemoteOption
	}{
		{"a call", []a2a.RemoteOption{a2a.WithCard(card)}},
		{"the card", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keyed.Store(0)
			hc := &http.Client{Transport: apiKey{"secret"}}
			remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL+"/moved/", append(tc.opts, a2a.WithHTTPClient(hc))...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("the invoice")))
			if err != nil || res.FinalOutput != "answered after a redirect" {
				t.Fatalf("output %q, error %v", res.FinalOutput, err)
			}
			if keyed.Load() == 0 {
				t.Error("no request past the redirect carried the API key")
			}
		})
	}

	errStop := errors.New("no redirects here")
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return errStop }}
	remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL, a2a.WithCard(card), a2a.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("the invoice"))); !errors.Is(err, errStop) {
		t.Errorf("error %v, want the client's own CheckRedirect error", err)
	}
}
