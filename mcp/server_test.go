package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/rawhttp"
	"github.com/paigasus/helikon/mcp"
	"github.com/paigasus/helikon/mock"
	"go.uber.org/goleak"
)

// serveInMemory serves s over an in-memory pair and returns a go-sdk
// client session, closed when the test ends.
func serveInMemory(t *testing.T, s *mcp.AgentServer, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeTransport(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "go-client", Version: "0"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-served
	})
	return cs
}

func callAgent(ctx context.Context, cs *sdk.ClientSession, tool string, args any) (*sdk.CallToolResult, error) {
	return cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestAgentServer_OneSanitisedToolWithStringInput(t *testing.T) {
	s, err := mcp.NewAgentServer(echoAgent{name: "echo agent/v2!"}, mcp.WithImplementation("helikon-test", "1.2.3"), mcp.WithInstructions("Be brief."))
	if err != nil {
		t.Fatal(err)
	}
	cs := serveInMemory(t, s, nil)
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "helikon-test" || init.ServerInfo.Version != "1.2.3" || init.Instructions != "Be brief." {
		t.Errorf("initialize = %+v %q", init.ServerInfo, init.Instructions)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 {
		t.Fatalf("got %d tools, want 1", len(res.Tools))
	}
	tool := res.Tools[0]
	raw, _ := json.Marshal(tool.InputSchema)
	var schema struct {
		Type       string
		Required   []string
		Properties map[string]struct{ Type string }
	}
	_ = json.Unmarshal(raw, &schema)
	if tool.Name != "echo_agent_v2_" || tool.Description != "Echoes its input." || schema.Type != "object" ||
		len(schema.Properties) != 1 || schema.Properties["input"].Type != "string" || !slices.Equal(schema.Required, []string{"input"}) {
		t.Fatalf("tool = %q %q %s", tool.Name, tool.Description, raw)
	}
	for in, want := range map[string]string{"": "agent", "ok_Name-1": "ok_Name-1", "a b.c": "a_b_c", "日本": "__"} {
		if got := mcp.SanitizeToolName(in); got != want {
			t.Errorf("SanitizeToolName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAgentServer_AnswersWithFinalTextAndReportsProgress(t *testing.T) {
	var mu sync.Mutex
	var progress []string
	s, _ := mcp.NewAgentServer(echoAgent{name: "echo"})
	cs := serveInMemory(t, s, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params.Message)
		mu.Unlock()
	}})
	params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"input": "hello"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError || resultText(res) != "echo: hello" {
		t.Fatalf("result = %+v %v", res, err)
	}
	want := []string{"turn 1", "calling tool lookup", "turn 2"}
	waitFor(t, "three progress notifications", func() bool { mu.Lock(); defer mu.Unlock(); return len(progress) == len(want) })
	if !slices.Equal(progress, want) {
		t.Fatalf("progress = %q, want %q", progress, want)
	}
	// Without a token, no progress is sent.
	progress = nil
	if _, err := callAgent(context.Background(), cs, "echo", map[string]any{"input": "quiet"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) != 0 {
		t.Fatalf("progress without a token: %q", progress)
	}
}

func TestAgentServer_TimeoutEndsWithErrorResult(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	agent := echoAgent{name: "echo", started: make(chan struct{}, 1), cancelled: make(chan error, 1)}
	s, _ := mcp.NewAgentServer(agent, mcp.WithRunConfig(helikon.RunConfig{Timeout: 50 * time.Millisecond}))
	t.Run("call", func(t *testing.T) { // its cleanup closes the session before the leak check
		cs := serveInMemory(t, s, nil)
		res, err := callAgent(context.Background(), cs, "echo", map[string]any{"input": "slow"})
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "timed out after 50ms") {
			t.Fatalf("result = %+v %v, want a timeout error result", res, err)
		}
		if cause := <-agent.cancelled; cause == nil {
			t.Fatal("the run was not cancelled")
		}
	})
}

func TestAgentServer_CancelledCallCancelsTheRun(t *testing.T) {
	agent := echoAgent{name: "echo", started: make(chan struct{}, 1), cancelled: make(chan error, 1)}
	s, _ := mcp.NewAgentServer(agent)
	cs := serveInMemory(t, s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-agent.started
		cancel()
	}()
	_, err := callAgent(ctx, cs, "echo", map[string]any{"input": "slow"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if cause := <-agent.cancelled; !errors.Is(cause, context.Canceled) {
		t.Fatalf("run ended by %v, want context.Canceled", cause)
	}
}

func TestAgentServer_BadInputGetsErrorResults(t *testing.T) {
	s, _ := mcp.NewAgentServer(echoAgent{name: "echo"}, mcp.WithMaxInputBytes(1000))
	cs := serveInMemory(t, s, nil)
	for _, tc := range []struct {
		name string
		args any
		want string
	}{
		{"too large", map[string]any{"input": strings.Repeat("x", 1001)}, "input too large: 1001 bytes, at most 1000"},
		{"missing input", map[string]any{"text": "hi"}, `invalid arguments: want {"input": string}`},
		{"input not a string", map[string]any{"input": 42}, "invalid arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := callAgent(context.Background(), cs, "echo", tc.args)
			if err != nil || !res.IsError || !strings.Contains(resultText(res), tc.want) {
				t.Fatalf("result = %+v %v, want an error result saying %q", res, err, tc.want)
			}
		})
	}
}

func TestAgentServer_FreshContextAndRunConfigPerCall(t *testing.T) {
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "whoami", Args: `{}`}), mock.Text("first"),
		mock.ToolCalls(mock.Call{ID: "c2", Name: "whoami", Args: `{}`}), mock.Text("second"),
	)
	type none struct{}
	var mu sync.Mutex
	var users []any
	whoami := helikon.MustTool("whoami", "Says who runs.", func(tc *helikon.ToolContext, _ none) (string, error) {
		mu.Lock()
		users = append(users, tc.User())
		mu.Unlock()
		return "you", nil
	})
	agent, err := helikon.NewAgent("assistant", model, helikon.WithTools(whoami), helikon.WithDescription("Helps."))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	s, _ := mcp.NewAgentServer(agent, mcp.WithContextFactory(func() *helikon.RunContext {
		n++
		return helikon.NewRunContext(helikon.WithUser(n))
	}), mcp.WithRunConfig(helikon.RunConfig{MaxTurns: 2}))
	cs := serveInMemory(t, s, nil)
	for _, want := range []string{"first", "second"} {
		res, err := callAgent(context.Background(), cs, "assistant", map[string]any{"input": "who am I?"})
		if err != nil || res.IsError || resultText(res) != want {
			t.Fatalf("result = %+v %v, want %q", res, err, want)
		}
	}
	if !slices.Equal(users, []any{1, 2}) {
		t.Fatalf("users seen by the tool = %v, want a fresh context per call", users)
	}
}

func TestAgentServer_MountsAsHTTPHandler(t *testing.T) {
	s, _ := mcp.NewAgentServer(echoAgent{name: "echo"})
	var auth []string
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.Handle("/agents/echo", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		s.ServeHTTP(w, r)
	}))
	hs := httptest.NewServer(mux)
	defer hs.Close()
	c, err := mcp.ConnectHTTP(context.Background(), hs.URL+"/agents/echo", mcp.WithHeader("Authorization", "Bearer t0ken"), mcp.WithHTTPClient(hs.Client()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out, err := call(context.Background(), toolNamed(t, c, "echo"), `{"input":"over http"}`)
	if err != nil || string(out.Content) != `"echo: over http"` {
		t.Fatalf("call = %s %v", out.Content, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || slices.ContainsFunc(auth, func(a string) bool { return a != "Bearer t0ken" }) {
		t.Fatalf("Authorization headers seen = %q", auth)
	}
}

func TestAgentServer_ListenAndServe(t *testing.T) {
	s, _ := mcp.NewAgentServer(echoAgent{name: "echo"})
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	if err := s.ListenAndServe(context.Background(), taken.Addr().String()); !mcp.IsKind(err, mcp.KindBind) {
		t.Fatalf("binding a taken port: err = %v, want kind bind", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	c, err := mcp.ConnectHTTP(ctx, "http://"+ln.Addr().String()+"/mcp")
	if err != nil {
		t.Fatal(err)
	}
	out, err := call(ctx, toolNamed(t, c, "echo"), `{"input":"at /mcp"}`)
	c.Close()
	cancel()
	if err != nil || string(out.Content) != `"echo: at /mcp"` {
		t.Fatalf("call = %s %v", out.Content, err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve after ctx ended: %v", err)
	}
}

// An HTTP client on the 2025-11-25 protocol that drops its POST mid-call
// (no notifications/cancelled: the connection just goes) cancels the run.
// The go-sdk itself ties calls to the POST only from protocol 2026-07-28.
func TestAgentServer_HTTPDisconnectCancelsTheRun(t *testing.T) {
	agent := echoAgent{name: "echo", started: make(chan struct{}, 1), cancelled: make(chan error, 1)}
	s, _ := mcp.NewAgentServer(agent)
	hs := httptest.NewServer(s)
	defer hs.Close()
	post := func(ctx context.Context, sid, body string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL, bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil // the dropped POST
		}
		return resp
	}
	r := post(context.Background(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	sid := r.Header.Get("Mcp-Session-Id")
	r.Body.Close()
	r = post(context.Background(), sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.Body.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-agent.started; cancel() }()
	r = post(ctx, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"input":"slow"}}}`)
	if r != nil {
		r.Body.Close()
	}
	select {
	case cause := <-agent.cancelled:
		if cause == nil || !strings.Contains(cause.Error(), "disconnected") {
			t.Fatalf("run ended by %v, want the disconnect", cause)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run outlived its client's disconnect")
	}
}

// An LLM agent stuck in a tool: the server's timeout ends the call with its
// error result, the tool sees the cancellation.
func TestAgentServer_TimeoutStopsAnLLMAgentInATool(t *testing.T) {
	type none struct{}
	stopped := make(chan error, 1)
	stuck := helikon.MustTool("stuck", "Never returns on its own.", func(tc *helikon.ToolContext, _ none) (string, error) {
		<-tc.Done()
		stopped <- tc.Err()
		return "", tc.Err()
	})
	model := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "stuck", Args: `{}`}), mock.Text("unreachable"))
	agent, err := helikon.NewAgent("assistant", model, helikon.WithTools(stuck))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := mcp.NewAgentServer(agent, mcp.WithRunConfig(helikon.RunConfig{Timeout: 100 * time.Millisecond}))
	cs := serveInMemory(t, s, nil)
	res, err := callAgent(context.Background(), cs, "assistant", map[string]any{"input": "go"})
	if err != nil || !res.IsError || resultText(res) != "agent run timed out after 100ms" {
		t.Fatalf("result = %+v %v, want the timeout error result", res, err)
	}
	if err := <-stopped; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("tool saw %v, want the deadline", err)
	}
}

// Every rejection of the HTTP server — the router's, the transport's
// method check, the body bounds, and net/http's own for oversized headers
// — is JSON in the agent server's error shape, and a body that stalls
// after its headers is answered 408 (the deadline is short here so the
// test is quick).
func TestAgentServer_RejectionsAreTheJSONErrorShape(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			opts := []mcp.ServerOption{mcp.WithMaxInputBytes(16)}
			allow := "DELETE, GET, POST"
			if stateless {
				opts, allow = append(opts, mcp.WithStateless()), "POST"
			}
			s, err := mcp.NewAgentServer(echoAgent{name: "echo"}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			addr := rawhttp.Serve(t, s.Serve)
			// The stalled body gets a server of its own with a short
			// deadline, so that the other bodies never race it.
			quick, err := mcp.NewAgentServer(echoAgent{name: "echo"}, append(opts, mcp.WithBodyReadTimeout(50*time.Millisecond))...)
			if err != nil {
				t.Fatal(err)
			}
			quickAddr := rawhttp.Serve(t, quick.Serve)
			post := "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
			rawhttp.CheckRejections(t, addr, []rawhttp.Rejection{
				{Name: "unknown route", Req: "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", Status: 404, Code: "not_found"},
				{Name: "wrong method", Req: "PUT /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", Status: 405, Code: "method_not_allowed", Allow: allow},
				{Name: "oversized headers", Req: post + "X-Big: " + strings.Repeat("a", 200<<10) + "\r\n\r\n", Status: 431, Code: "header_too_large"},
				{Name: "body past the frame limit", Req: post + "Content-Length: 70000\r\n\r\n" + strings.Repeat(" ", 70000), Status: 413, Code: "body_too_large"},
			})
			rawhttp.CheckRejections(t, quickAddr, []rawhttp.Rejection{
				{Name: "body that stalls", Req: post + "Content-Length: 100\r\n\r\n{\"jsonrpc\":", Status: 408, Code: "body_timeout"},
			})
		})
	}
}

func TestNewAgentServer_RefusesANonPositiveBodyReadTimeout(t *testing.T) {
	if _, err := mcp.NewAgentServer(echoAgent{name: "echo"}, mcp.WithBodyReadTimeout(-time.Second)); err == nil {
		t.Fatal("a negative body read timeout was accepted")
	}
}
