package cli_test

import (
	"context"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// TestMCPServe_StdioWithSDKClient drives `helikon mcp serve` as a
// subprocess with the official MCP Go SDK client, twice, to pin that every
// call gets a fresh agent (the mock replays its script from the start).
func TestMCPServe_StdioWithSDKClient(t *testing.T) {
	dir := sampleDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(helikonBin, "--agents", filepath.Join(dir, "agents.toml"), "mcp", "serve", "--agent", "triage")
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	// serverInfo carries the version go build stamped into the binary, not
	// the go-sdk's placeholder.
	bi, err := buildinfo.ReadFile(helikonBin)
	if err != nil {
		t.Fatal(err)
	}
	if got := session.InitializeResult().ServerInfo; got.Name != "triage" || got.Version != bi.Main.Version || got.Version == "0" {
		t.Errorf("serverInfo %+v, want triage at %q", got, bi.Main.Version)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools %+v, %v", tools, err)
	}
	for range 2 {
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: tools.Tools[0].Name, Arguments: map[string]any{"input": question}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "In January you spent 2098") {
			t.Fatalf("result %+v", res.Content[0])
		}
	}
}

// TestServe_ListsEveryAgent starts `helikon serve` in process, reads the
// agent list back over HTTP, and finds the dev UI where / redirects.
func TestServe_ListsEveryAgent(t *testing.T) {
	dir := sampleDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		done <- run(t, ctx, "", "--agents", filepath.Join(dir, "agents.toml"), "serve", "--addr", addr)
	}()
	defer func() {
		cancel()
		if r := <-done; r.code != 0 || !strings.Contains(r.errOut, "dev UI at http://"+addr+"/ui/") {
			t.Errorf("serve exited %d: %s", r.code, r.errOut)
		}
	}()
	var body struct{ Agents []struct{ Name string } }
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("http://%s/agents", addr))
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var names []string
	for _, a := range body.Agents {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != "budgeting,triage" {
		t.Fatalf("agents %v", names)
	}
	// The sample's tool says read_only = true, so serve's plan mode lets the
	// model call it: the run holds the tool's output, not a denial.
	resp, err := http.Post(fmt.Sprintf("http://%s/agents/budgeting/runs?stream=sse", addr), "application/json",
		strings.NewReader(`{"input": "How much did I spend in January?"}`))
	if err != nil {
		t.Fatal(err)
	}
	events, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(events), "event: tool_output_item") || strings.Contains(string(events), "denied") {
		t.Errorf("the sample's budgeting run did not reach its read-only tool:\n%s", events)
	}
	resp, err = http.Get(fmt.Sprintf("http://%s/", addr)) // follows the redirect to /ui/
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/ui/" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET / ended at %s: %d %s", resp.Request.URL, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestMCPServe_HTTPWithSDKClient starts `helikon mcp serve --http` in
// process and drives it with the official MCP Go SDK's streamable HTTP
// client: the tool is listed, two calls each run a fresh agent on the mock
// model end to end, a call without its input is a tool error, and
// cancelling the command's context shuts the server down with exit 0 and
// no goroutine left behind.
func TestMCPServe_HTTPWithSDKClient(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := sampleDir(t)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		done <- run(t, ctx, "", "--agents", filepath.Join(dir, "agents.toml"), "mcp", "serve", "--agent", "triage", "--http", addr)
	}()
	stopped := false
	stop := func() result {
		stopped = true
		cancel()
		return <-done
	}
	defer func() {
		if !stopped {
			stop()
		}
	}()

	callCtx, callCancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer callCancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil)
	var session *sdk.ClientSession
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		session, err = client.Connect(callCtx, &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mcp serve --http did not come up at %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	tools, err := session.ListTools(callCtx, nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools %+v, %v", tools, err)
	}
	tool := tools.Tools[0].Name
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"first call", map[string]any{"input": question}, false, "In January you spent 2098"},
		{"second call gets a fresh agent", map[string]any{"input": question}, false, "In January you spent 2098"},
		{"missing input", map[string]any{}, true, "input"},
	}
	for _, tt := range tests {
		res, err := session.CallTool(callCtx, &sdk.CallToolParams{Name: tool, Arguments: tt.args})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if res.IsError != tt.isError || !strings.Contains(text, tt.want) {
			t.Errorf("%s: isError %v, text %q; want isError %v and %q", tt.name, res.IsError, text, tt.isError, tt.want)
		}
	}
	if err := session.Close(); err != nil {
		t.Errorf("close session: %v", err)
	}
	r := stop()
	if r.code != 0 {
		t.Fatalf("mcp serve exited %d: %s", r.code, r.errOut)
	}
	if want := "as MCP tool " + tool + " at http://" + addr + "/mcp"; !strings.Contains(r.errOut, want) {
		t.Errorf("stderr %q does not announce %q", r.errOut, want)
	}
}
