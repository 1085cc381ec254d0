package mcp_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon/mcp"
)

// tsReport is what testdata/npm/client.mjs prints after driving a server
// with the TypeScript SDK's client.
type tsReport struct {
	Server struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Instructions string `json:"instructions"`
	Tools        []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		} `json:"inputSchema"`
	} `json:"tools"`
	Result   tsResult `json:"result"`
	Progress []struct {
		Progress float64 `json:"progress"`
		Message  string  `json:"message"`
	} `json:"progress"`
	// UnknownMethod is how the client saw a call of a method the server
	// does not serve: the JSON-RPC error code over stdio; over HTTP the
	// status, with the body in the message.
	UnknownMethod struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"unknownMethod"`
	Aborted string   `json:"aborted"`
	Huge    tsResult `json:"huge"`
	BadArgs tsResult `json:"badArgs"`
}

type tsResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Thrown string `json:"thrown"`
}

func (r tsResult) text() string {
	if len(r.Content) == 0 {
		return r.Thrown
	}
	return r.Content[0].Text
}

// runTSClient runs client.mjs with args and decodes its report.
func runTSClient(t *testing.T, env []string, args ...string) tsReport {
	t.Helper()
	script := filepath.Join(npmDir, "client.mjs")
	nodeScript(t, "@modelcontextprotocol/sdk/package.json")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TypeScript client: %v\n%s", err, stderr.String())
	}
	var r tsReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	return r
}

// checkTSReport holds the report to what the agent server promises.
//
// The aborted call is aborted from its first progress notification, so it
// proves progress reaches the client on every transport. The quick call's
// progress is checked over HTTP only: the TypeScript client handles a
// progress notification a microtask late, so when the notifications and the
// final response reach it in one stdio read (the echo agent answers at
// once) it settles the call first and drops them. The wire order is right;
// TestAgentServer_AnswersWithFinalTextAndReportsProgress checks it.
func checkTSReport(t *testing.T, r tsReport, quickProgress bool) {
	t.Helper()
	if r.Server.Name != "helikon-test" || r.Server.Version != "1.2.3" || r.Instructions != "Ask the echo agent anything." {
		t.Errorf("server = %+v, instructions %q", r.Server, r.Instructions)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "echo_agent" || r.Tools[0].Description != "Echoes its input." ||
		r.Tools[0].InputSchema.Properties["input"].Type != "string" || len(r.Tools[0].InputSchema.Required) != 1 {
		t.Errorf("tools = %+v", r.Tools)
	}
	if r.Result.IsError || r.Result.text() != "echo: hello" {
		t.Errorf("result = %+v, want echo: hello", r.Result)
	}
	var msgs []string
	for _, p := range r.Progress {
		msgs = append(msgs, p.Message)
	}
	if quickProgress && strings.Join(msgs, ",") != "turn 1,calling tool lookup,turn 2" {
		t.Errorf("progress = %q", msgs)
	}
	if !strings.Contains(r.Aborted, "client gave up") {
		t.Errorf("aborted call = %q, want the abort reason", r.Aborted)
	}
	if !r.Huge.IsError || !strings.Contains(r.Huge.text(), "input too large") {
		t.Errorf("2 MiB input = %+v, want an input-too-large error result", r.Huge)
	}
	if !r.BadArgs.IsError || !strings.Contains(r.BadArgs.text(), "invalid arguments") {
		t.Errorf("bad arguments = %+v, want an invalid-arguments error result", r.BadArgs)
	}
}

// The TypeScript client spawns this test binary as the agent server; the
// aborted call's run must see the cancellation, which the server process
// records in a file.
func TestTypeScriptClient_Stdio(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	r := runTSClient(t, []string{serverModeEnv + "=agent-stdio", "HELIKON_MCP_CANCEL_FILE=" + cancelFile}, "stdio", os.Args[0])
	checkTSReport(t, r, false)
	if r.UnknownMethod.Code != -32601 {
		t.Errorf("unknown method = %+v, want JSON-RPC error -32601", r.UnknownMethod)
	}
	waitFor(t, "the server to record the cancelled run", func() bool {
		b, _ := os.ReadFile(cancelFile)
		return strings.Contains(string(b), "context canceled")
	})
}

func TestTypeScriptClient_StreamableHTTP(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	agent := echoAgent{name: "echo agent", started: make(chan struct{}, 1), cancelled: make(chan error, 1)}
	s, err := mcp.NewAgentServer(agent, mcp.WithImplementation("helikon-test", "1.2.3"), mcp.WithInstructions("Ask the echo agent anything."))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	r := runTSClient(t, nil, "http", "http://"+ln.Addr().String()+"/mcp")
	checkTSReport(t, r, true)
	if r.UnknownMethod.Code != 400 || !strings.Contains(r.UnknownMethod.Message, `"code":-32601`) {
		t.Errorf("unknown method = %+v, want a 400 carrying JSON-RPC error -32601", r.UnknownMethod)
	}
	select {
	case cause := <-agent.cancelled:
		if cause == nil {
			t.Fatal("run ended without a cause")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the aborted call's run was never cancelled")
	}
}

// A client that goes away mid-call, closing the server's stdin without a
// word of cancellation, cancels the run in the server process. The client
// here is raw JSON-RPC lines, so nothing but the disconnect can be the
// cause.
func TestAgentServer_StdioDisconnectCancelsTheRun(t *testing.T) {
	dir := t.TempDir()
	cmd := fakeServerCmd("agent-stdio")
	cmd.Env = append(cmd.Env, "HELIKON_MCP_STARTED_FILE="+dir+"/started", "HELIKON_MCP_CANCEL_FILE="+dir+"/cancelled")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_agent","arguments":{"input":"slow"}}}`,
	} {
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the slow run to start", func() bool { _, err := os.Stat(dir + "/started"); return err == nil })
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server exit: %v", err)
	}
	b, err := os.ReadFile(dir + "/cancelled")
	if err != nil || !strings.Contains(string(b), "context canceled") {
		t.Fatalf("server recorded %q (%v), want the run cancelled", b, err)
	}
}
