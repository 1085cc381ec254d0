package a2a_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
	"go.uber.org/goleak"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
	"github.com/paigasus/helikon/mock"
)

// sdkExecutor is an a2a-go agent executor whose Execute is run.
type sdkExecutor struct {
	run       func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error
	cancelled chan struct{}
}

func (e *sdkExecutor) Execute(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
	if req.StoredTask == nil {
		if err := q.Write(ctx, a2apb.NewSubmittedTask(req, req.Message)); err != nil {
			return err
		}
	}
	// As a2a.Server does: a2a-go appends artifacts in place to the task
	// last written, which its stream may still be encoding; a status
	// update in between makes that a copy.
	if err := q.Write(ctx, a2apb.NewStatusUpdateEvent(req, a2apb.TaskStateWorking, nil)); err != nil {
		return err
	}
	return e.run(ctx, req, q)
}

func (e *sdkExecutor) Cancel(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
	if e.cancelled != nil {
		close(e.cancelled)
	}
	ev := a2apb.NewStatusUpdateEvent(req, a2apb.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// sdkServer serves exec with the a2a-go SDK alone, card included.
func sdkServer(t testing.TB, exec *sdkExecutor, streaming bool) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	card := &a2apb.AgentCard{Name: "Remote Specialist", Description: "A specialist served by a2a-go.", URL: ts.URL + "/rpc",
		PreferredTransport: a2apb.TransportProtocolJSONRPC, Capabilities: a2apb.AgentCapabilities{Streaming: streaming},
		ProtocolVersion: "0.3.0", Version: "1"}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec)))
	t.Cleanup(ts.Close)
	return ts
}

func final(req *a2asrv.RequestContext, state a2apb.TaskState, text string) *a2apb.TaskStatusUpdateEvent {
	var msg *a2apb.Message
	if text != "" {
		msg = a2apb.NewMessageForTask(a2apb.MessageRoleAgent, req, a2apb.TextPart{Text: text})
	}
	ev := a2apb.NewStatusUpdateEvent(req, state, msg)
	ev.Final = true
	return ev
}

func TestRemoteAgent_StreamsTheRemotesTextAndEndsWithItsOutput(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			exec := &sdkExecutor{run: func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
				first := a2apb.NewArtifactEvent(req, a2apb.TextPart{Text: "Invoice 42 "})
				if err := q.Write(ctx, first); err != nil {
					return err
				}
				if err := q.Write(ctx, a2apb.NewArtifactUpdateEvent(req, first.Artifact.ID, a2apb.TextPart{Text: "is paid."})); err != nil {
					return err
				}
				return q.Write(ctx, final(req, a2apb.TaskStateCompleted, ""))
			}}
			ts := sdkServer(t, exec, streaming)
			remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			if remote.Name() != "remote_specialist" || remote.Description() != "A specialist served by a2a-go." {
				t.Errorf("name %q, description %q", remote.Name(), remote.Description())
			}
			res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("Is invoice 42 paid?")))
			if err != nil {
				t.Fatal(err)
			}
			if res.FinalOutput != "Invoice 42 is paid." || res.LastAgent != "remote_specialist" {
				t.Errorf("output %q by %q", res.FinalOutput, res.LastAgent)
			}
			var deltas []string
			for _, ev := range res.Events {
				if d, ok := ev.(helikon.TokenDelta); ok {
					deltas = append(deltas, d.Text)
				}
			}
			if streaming && strings.Join(deltas, "|") != "Invoice 42 |is paid." {
				t.Errorf("deltas %q", deltas)
			}
		})
	}
}

func TestRemoteAgent_RemoteEndStatesAreTypedErrors(t *testing.T) {
	tests := []struct {
		name  string
		state a2apb.TaskState
		want  error
	}{
		{"failed", a2apb.TaskStateFailed, a2a.ErrTaskFailed},
		{"rejected", a2apb.TaskStateRejected, a2a.ErrTaskFailed},
		{"input required", a2apb.TaskStateInputRequired, a2a.ErrInputRequired},
		{"auth required", a2apb.TaskStateAuthRequired, a2a.ErrInputRequired},
		{"canceled", a2apb.TaskStateCanceled, a2a.ErrTaskCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exec := &sdkExecutor{run: func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
				return q.Write(ctx, final(req, tt.state, "the ledger is closed"))
			}}
			remote, err := a2a.NewRemoteAgent(context.Background(), sdkServer(t, exec, true).URL)
			if err != nil {
				t.Fatal(err)
			}
			_, err = helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("pay")))
			var re *a2a.RemoteError
			if !errors.Is(err, tt.want) || !errors.As(err, &re) {
				t.Fatalf("error %v, want %v as a RemoteError", err, tt.want)
			}
			if re.Message != "the ledger is closed" || re.State != string(tt.state) || re.TaskID == "" {
				t.Errorf("remote error %+v", re)
			}
		})
	}
}

func TestRemoteAgent_ARemoteThatStreamsForeverTimesOutAndItsTaskIsCanceled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cancelled := make(chan struct{})
	exec := &sdkExecutor{cancelled: cancelled, run: func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
		first := a2apb.NewArtifactEvent(req, a2apb.TextPart{Text: "."})
		if err := q.Write(ctx, first); err != nil {
			return err
		}
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(5 * time.Millisecond):
			}
			if err := q.Write(ctx, a2apb.NewArtifactUpdateEvent(req, first.Artifact.ID, a2apb.TextPart{Text: "."})); err != nil {
				return nil
			}
		}
	}}
	ts := sdkServer(t, exec, true)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL, a2a.WithTimeout(200*time.Millisecond), a2a.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("count")))
	if !errors.Is(err, a2a.ErrTimeout) {
		t.Fatalf("error %v, want ErrTimeout", err)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the remote task was not canceled")
	}
	ts.Close()
	tr.CloseIdleConnections()
}

// hostileServer is an A2A server that answers every request with an
// artifact of size bytes, streamed or not, without holding it: what a
// hostile or broken remote can send.
func hostileServer(t testing.TB, size int64, streaming bool) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	mux.HandleFunc(a2asrv.WellKnownAgentCardPath, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"name":"hostile","url":%q,"capabilities":{"streaming":%v}}`, ts.URL+"/rpc", streaming)
	})
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		head := `{"jsonrpc":"2.0","id":1,"result":{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"`
		if !streaming {
			head = `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"`
		}
		if streaming {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: ")
		}
		io.WriteString(w, head)
		io.Copy(w, io.LimitReader(repeatReader('x'), size))
		io.WriteString(w, `"}]}}}`)
	})
	t.Cleanup(ts.Close)
	return ts
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestRemoteAgent_AHundredMegabyteArtifactIsRefusedWithinTheBound(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			ts := hostileServer(t, 100<<20, streaming)
			remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL, a2a.WithMaxResponseBytes(1<<20))
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("send it")))
			runtime.ReadMemStats(&after)
			if !errors.Is(err, a2a.ErrResponseTooLarge) {
				t.Fatalf("error %v, want ErrResponseTooLarge", err)
			}
			// Everything this process allocated meanwhile, the hostile
			// server's side included, stays far below the artifact.
			if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
				t.Errorf("allocated %d MiB reading a 100 MiB artifact bounded at 1 MiB", got>>20)
			}
		})
	}
}

func TestNewRemoteAgent_ACardThatDoesNotValidateIsErrInvalidCard(t *testing.T) {
	tests := []struct {
		name string
		card string
	}{
		{"no name", `{"name":"","url":"http://127.0.0.1/rpc"}`},
		{"no url", `{"name":"x"}`},
		{"not http", `{"name":"x","url":"file:///etc/passwd"}`},
		{"bad url", `{"name":"x","url":"http://[::1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tt.card)
			}))
			defer ts.Close()
			if _, err := a2a.NewRemoteAgent(context.Background(), ts.URL); !errors.Is(err, a2a.ErrInvalidCard) {
				t.Errorf("error %v, want ErrInvalidCard", err)
			}
		})
	}
	t.Run("no card", func(t *testing.T) {
		ts := httptest.NewServer(http.NotFoundHandler())
		defer ts.Close()
		if _, err := a2a.NewRemoteAgent(context.Background(), ts.URL); err == nil {
			t.Error("a 404 card was accepted")
		}
	})
	t.Run("a card past the bound", func(t *testing.T) {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"name":"%s","url":"http://127.0.0.1/"}`, strings.Repeat("x", 2<<20))
		}))
		defer ts.Close()
		if _, err := a2a.NewRemoteAgent(context.Background(), ts.URL, a2a.WithMaxResponseBytes(1<<20)); !errors.Is(err, a2a.ErrResponseTooLarge) {
			t.Errorf("error %v, want ErrResponseTooLarge", err)
		}
	})
}

func TestRemoteAgent_OverOurOwnServerKeepsStreamingAndStructuredOutput(t *testing.T) {
	type verdict struct {
		Paid bool `json:"paid"`
	}
	tests := []struct {
		name       string
		agent      helikon.Agent
		want       string
		structured bool
	}{
		{"text", newAgent(t, replay{script: mock.Deltas("Invoice ", "42 ", "is paid.")}), "Invoice 42 is paid.", false},
		{"structured", newAgent(t, replay{script: mock.Text(`{"paid":true}`)}, helikon.WithOutput[verdict]()), `{"paid":true}`, true},
		{"long", newAgent(t, replay{script: mock.Text(strings.Repeat("é", 40_000))}), strings.Repeat("é", 40_000), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ts := serve(t, tt.agent)
			remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("Is 42 paid?")))
			if err != nil {
				t.Fatal(err)
			}
			if res.FinalOutput != tt.want || res.Structured != tt.structured {
				t.Errorf("output %.40q structured %v, want %.40q %v", res.FinalOutput, res.Structured, tt.want, tt.structured)
			}
		})
	}
}

func TestRemoteAgent_IsAHandoffTargetAndATool(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Deltas("Invoice 42 ", "is paid.")}))
	remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL, a2a.WithName("billing"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("handoff", func(t *testing.T) {
		triage, err := helikon.NewAgent("triage", turns{scripts: []mock.Script{mock.ToolCalls(mock.Call{ID: "h", Name: "transfer_to_billing", Args: `{}`})}},
			helikon.WithHandoffs(helikon.HandoffTo(remote)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := helikon.Collect(triage.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("Is 42 paid?")))
		if err != nil {
			t.Fatal(err)
		}
		if res.FinalOutput != "Invoice 42 is paid." || res.LastAgent != "billing" {
			t.Errorf("output %q by %q", res.FinalOutput, res.LastAgent)
		}
	})
	t.Run("tool", func(t *testing.T) {
		tool, err := remote.AsTool()
		if err != nil {
			t.Fatal(err)
		}
		lead, err := helikon.NewAgent("lead", turns{scripts: []mock.Script{mock.ToolCalls(mock.Call{ID: "c", Name: "billing", Args: `{"input":"Is 42 paid?"}`}), mock.Text("Billing says it is paid.")}},
			helikon.WithTools(tool))
		if err != nil {
			t.Fatal(err)
		}
		res, err := helikon.Collect(lead.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("Is 42 paid?")))
		if err != nil {
			t.Fatal(err)
		}
		var sub []string
		for _, ev := range res.Events {
			if s, ok := ev.(helikon.SubRunEvent); ok && s.Agent == "billing" {
				switch e := s.Event.(type) {
				case helikon.RunStarted:
					sub = append(sub, "started")
				case helikon.MessageOutput:
					sub = append(sub, e.Item.Text())
				case helikon.RunCompleted:
					sub = append(sub, "completed")
				}
			}
		}
		if res.FinalOutput != "Billing says it is paid." || strings.Join(sub, "|") != "started|Invoice 42 is paid.|completed" {
			t.Errorf("output %q, sub-run events %q", res.FinalOutput, sub)
		}
	})
}
