package a2a_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
)

// TestPackage_LinksNoGRPC fails when the package imports gRPC again, as it
// did through a2a-go's a2aclient, whose package holds the gRPC transport
// beside the JSON-RPC one: every program importing this package, the
// helikon command among them, ran gRPC's and the protocol buffers'
// package inits at each start.
func TestPackage_LinksNoGRPC(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var linked []string
	for p := range strings.FieldsSeq(string(out)) {
		if p == "google.golang.org/grpc" || p == "github.com/a2aproject/a2a-go/a2aclient" {
			linked = append(linked, p)
		}
	}
	if len(linked) > 0 {
		t.Errorf("the package links %s", strings.Join(linked, " and "))
	}
}

// TestNewRemoteAgent_ACardWithoutAJSONRPCInterfaceIsErrInvalidCard pins the
// interface a remote is reached at, as a2a-go's client factory chose it: a
// card offering gRPC alone is refused, and one that prefers gRPC is
// reached at its additional JSON-RPC interface.
func TestNewRemoteAgent_ACardWithoutAJSONRPCInterfaceIsErrInvalidCard(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"x","url":"http://127.0.0.1:1/","preferredTransport":"GRPC"}`)
	}))
	defer ts.Close()
	if _, err := a2a.NewRemoteAgent(context.Background(), ts.URL); !errors.Is(err, a2a.ErrInvalidCard) {
		t.Errorf("a gRPC-only card: error %v, want ErrInvalidCard", err)
	}

	exec := &sdkExecutor{run: func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
		return q.Write(ctx, final(req, a2apb.TaskStateCompleted, "over JSON-RPC"))
	}}
	sdk := sdkServer(t, exec, true)
	card := &a2apb.AgentCard{Name: "Remote", URL: "http://127.0.0.1:1/", PreferredTransport: a2apb.TransportProtocolGRPC,
		AdditionalInterfaces: []a2apb.AgentInterface{{Transport: a2apb.TransportProtocolJSONRPC, URL: sdk.URL + "/rpc"}},
		Capabilities:         a2apb.AgentCapabilities{Streaming: true}}
	remote, err := a2a.NewRemoteAgent(context.Background(), sdk.URL, a2a.WithCard(card))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("hi")))
	if err != nil || res.FinalOutput != "over JSON-RPC" {
		t.Errorf("output %q, error %v", res.FinalOutput, err)
	}
}

// TestRemoteAgent_AStreamedEventPast64KiBWithinTheBoundIsRead pins that one
// event of a stream may be as large as the response bound: a2a-go's client
// read the stream a line at a time through a 64 KiB buffer, so a 100 KiB
// artifact failed the run as too large under a 16 MiB bound.
func TestRemoteAgent_AStreamedEventPast64KiBWithinTheBoundIsRead(t *testing.T) {
	text := strings.Repeat("x", 100<<10)
	exec := &sdkExecutor{run: func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
		if err := q.Write(ctx, a2apb.NewArtifactEvent(req, a2apb.TextPart{Text: text})); err != nil {
			return err
		}
		return q.Write(ctx, final(req, a2apb.TaskStateCompleted, ""))
	}}
	ts := sdkServer(t, exec, true)
	remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("send it")))
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalOutput != text {
		t.Errorf("output of %d bytes, want %d", len(res.FinalOutput), len(text))
	}
}

// TestRemoteAgent_AJSONRPCErrorInPlaceOfTheStreamIsTheRunsError pins that a
// server answering message/stream with a JSON-RPC error, not a stream,
// fails the run with that error (a2a-go's client read the reply as an
// empty stream: "the stream ended before the task finished").
func TestRemoteAgent_AJSONRPCErrorInPlaceOfTheStreamIsTheRunsError(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"Invalid params","data":{"error":"no parts"}}}`)
	}))
	defer ts.Close()
	card := &a2apb.AgentCard{Name: "Remote", URL: ts.URL, Capabilities: a2apb.AgentCapabilities{Streaming: true}}
	remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL, a2a.WithCard(card))
	if err != nil {
		t.Fatal(err)
	}
	_, err = helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("hi")))
	if !errors.Is(err, a2apb.ErrInvalidParams) || !strings.Contains(err.Error(), "no parts") {
		t.Errorf("error %v, want ErrInvalidParams with the server's detail", err)
	}
}
