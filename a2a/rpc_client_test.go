package a2a_test

import (
	"context"
	"encoding/json"
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

// rpcRemote is a remote agent on a server whose every JSON-RPC reply is
// written by reply, given the request's method and id (as JSON).
func rpcRemote(t *testing.T, streaming bool, reply func(w http.ResponseWriter, method, id string)) *a2a.RemoteAgent {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string
			ID     json.RawMessage
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply(w, req.Method, string(req.ID))
	}))
	t.Cleanup(ts.Close)
	card := &a2apb.AgentCard{Name: "Remote", URL: ts.URL, Capabilities: a2apb.AgentCapabilities{Streaming: streaming}}
	remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL, a2a.WithCard(card))
	if err != nil {
		t.Fatal(err)
	}
	return remote
}

// completedTask is a message/send result: a completed task saying "done".
const completedTask = `{"kind":"task","id":"t","contextId":"c","status":{"state":"completed","message":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"done"}]}}}`

// completedUpdate is a final status update, completed, saying "done".
const completedUpdate = `{"kind":"status-update","taskId":"t","contextId":"c","final":true,"status":{"state":"completed","message":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"done"}]}}}`

// TestRemoteAgent_AReplyThatIsNoResponseToTheRequestIsAProtocolError pins
// what a reply must be to count as a result: a JSON-RPC 2.0 response with
// the request's id, to message/send a task or a message (as a2a-go's client
// required), to message/stream an event stream. Each case here ended the
// run completed with "done".
func TestRemoteAgent_AReplyThatIsNoResponseToTheRequestIsAProtocolError(t *testing.T) {
	tests := []struct {
		name      string
		streaming bool
		reply     func(w http.ResponseWriter, id string)
	}{
		{"send: a status update", false, func(w http.ResponseWriter, id string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, completedUpdate)
		}},
		{"send: another request's id", false, func(w http.ResponseWriter, id string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"another","result":%s}`, completedTask)
		}},
		{"send: no id", false, func(w http.ResponseWriter, id string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","result":%s}`, completedTask)
		}},
		{"send: JSON-RPC 1.0", false, func(w http.ResponseWriter, id string) {
			fmt.Fprintf(w, `{"jsonrpc":"1.0","id":%s,"result":%s}`, id, completedTask)
		}},
		{"stream: another request's id", true, func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"another\",\"result\":%s}\n\n", completedUpdate)
		}},
		{"stream: no jsonrpc", true, func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"id\":%s,\"result\":%s}\n\n", id, completedUpdate)
		}},
		{"stream: a JSON result in place of the stream", true, func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, completedTask)
		}},
		{"stream: an event stream sent as text/html", true, func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, completedUpdate)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote := rpcRemote(t, tt.streaming, func(w http.ResponseWriter, method, id string) {
				if method == "tasks/cancel" {
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, completedTask)
					return
				}
				tt.reply(w, id)
			})
			res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("hi")))
			if !errors.Is(err, a2a.ErrProtocol) {
				t.Errorf("output %q, error %v, want ErrProtocol", res.FinalOutput, err)
			}
		})
	}
}

// TestRemoteAgent_AWellFormedReplyStillCompletes is the control of the
// test above: the same replies, answering the request, complete the run.
func TestRemoteAgent_AWellFormedReplyStillCompletes(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		remote := rpcRemote(t, streaming, func(w http.ResponseWriter, method, id string) {
			if !streaming {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, completedTask)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			// A comment, a retry, an event name, CRLF and data split over
			// two lines, as the EventSource specification allows.
			fmt.Fprintf(w, ": hello\r\nretry: 10\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":%s,\"result\":%s}\r\n\r\n", id, completedUpdate)
		})
		res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("hi")))
		if err != nil || res.FinalOutput != "done" {
			t.Errorf("streaming %v: output %q, error %v", streaming, res.FinalOutput, err)
		}
	}
}

// TestRemoteAgent_AStreamWithBareCRLineEndsOrABOMCompletes pins that the
// stream is read as the SSE standard (and the providers' decoder) reads it:
// lines may end with a bare CR and the stream may start with a byte-order
// mark. The client's own line scanner failed both with "the stream ended
// before the task finished".
func TestRemoteAgent_AStreamWithBareCRLineEndsOrABOMCompletes(t *testing.T) {
	for name, format := range map[string]string{
		"bare CR": ": hello\rdata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\r\r",
		"BOM":     "\xef\xbb\xbfdata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n",
	} {
		remote := rpcRemote(t, true, func(w http.ResponseWriter, method, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, format, id, completedUpdate)
		})
		res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("hi")))
		if err != nil || res.FinalOutput != "done" {
			t.Errorf("%s: output %q, error %v", name, res.FinalOutput, err)
		}
	}
}

// TestRemoteAgent_RemoteTextInAnErrorIsQuotedAndCut pins that what a remote
// writes (a JSON-RPC error's message and detail, an HTTP status, a failed
// task's id and message) reaches the run's error string quoted and cut: a
// newline in it forged a log line, and a megabyte of it went whole into
// every log that printed the error.
func TestRemoteAgent_RemoteTextInAnErrorIsQuotedAndCut(t *testing.T) {
	forged := "ok\ntime=2026-12-04T21:00:00Z level=INFO msg=\"payment approved\""
	long := strings.Repeat("y", 1<<20)
	esc := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	tests := []struct {
		name  string
		reply func(w http.ResponseWriter, id string)
	}{
		{"JSON-RPC error detail", func(w http.ResponseWriter, id string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"Internal error","data":{"error":%s}}}`, id, esc(forged+long))
		}},
		{"JSON-RPC error message", func(w http.ResponseWriter, id string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%s}}`, id, esc(forged+long))
		}},
		{"failed task", func(w http.ResponseWriter, id string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"task","id":%s,"contextId":"c","status":{"state":"failed","message":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":%s}]}}}}`,
				id, esc(forged), esc(forged+long))
		}},
		{"unknown event kind", func(w http.ResponseWriter, id string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":%s}}`, id, esc(forged))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote := rpcRemote(t, false, func(w http.ResponseWriter, method, id string) { tt.reply(w, id) })
			_, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("hi")))
			if err == nil {
				t.Fatal("the run completed")
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || len(msg) > 4<<10 {
				t.Errorf("error of %d bytes, with a line break: %v; want the remote's text quoted and cut", len(msg), strings.ContainsAny(msg, "\n\r"))
			}
		})
	}
}

// TestRemoteAgent_ADeeplyNestedReplyIsAProtocolError pins that a reply's
// JSON nesting is bounded before it is decoded, as a request's is on the
// server: a data part nested 9,000 deep was decoded (recursing as deep)
// and ended the run as its structured output.
func TestRemoteAgent_ADeeplyNestedReplyIsAProtocolError(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000)
	remote := rpcRemote(t, false, func(w http.ResponseWriter, method, id string) {
		if method == "tasks/cancel" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, completedTask)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"data","data":%s}]}}`, id, deep)
	})
	res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("hi")))
	if !errors.Is(err, a2a.ErrProtocol) {
		t.Errorf("output of %d bytes, error %v, want ErrProtocol", len(res.FinalOutput), err)
	}
}
