package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mcp"
)

// connectEverything connects to server-everything over stdio and closes the
// connection when the test ends.
func connectEverything(t *testing.T, opts ...mcp.ClientOption) *mcp.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcp.ConnectStdio(ctx, everything(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func toolNamed(t testing.TB, c *mcp.Client, name string) helikon.Tool {
	t.Helper()
	tools, _ := c.Tools(context.Background())
	for _, tool := range tools {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func call(ctx context.Context, tool helikon.Tool, args string) (helikon.ToolOutput, error) {
	return tool.Call(helikon.NewToolContext(ctx, nil, "call-1", tool.Name()), json.RawMessage(args))
}

func TestStdioEverything_ToolsArePrefixedWithUntrustedEffects(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	c := connectEverything(t, mcp.WithToolPrefix("ev_"))
	tools, _ := c.Tools(context.Background())
	if len(tools) < 10 {
		t.Fatalf("got %d tools, want server-everything's dozen", len(tools))
	}
	for _, tool := range tools {
		if !strings.HasPrefix(tool.Name(), "ev_") {
			t.Errorf("tool %q lacks the prefix", tool.Name())
		}
		if helikon.EffectOf(tool) == helikon.Write {
			t.Errorf("tool %q claims Write from untrusted annotations", tool.Name())
		}
	}
	// echo is annotated readOnlyHint; gzip-file-as-resource is not.
	if e := helikon.EffectOf(toolNamed(t, c, "ev_echo")); e != helikon.ReadOnly {
		t.Errorf("echo effect = %v, want read_only", e)
	}
	if e := helikon.EffectOf(toolNamed(t, c, "ev_gzip-file-as-resource")); e != helikon.SideEffect {
		t.Errorf("gzip effect = %v, want side_effect", e)
	}
	echo := toolNamed(t, c, "ev_echo")
	if !slices.Contains(echo.InputSchema().Required, "message") || echo.Description() == "" {
		t.Errorf("echo schema/description not passed through: %+v %q", echo.InputSchema(), echo.Description())
	}
}

func TestStdioEverything_ResultsMapAsTheSeedSays(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	c := connectEverything(t)
	ctx := context.Background()

	out, err := call(ctx, toolNamed(t, c, "echo"), `{"message":"hi"}`)
	if err != nil || string(out.Content) != `"Echo: hi"` || out.Parts != nil {
		t.Errorf("one text block: content %s parts %v err %v, want the JSON string", out.Content, out.Parts, err)
	}

	out, err = call(ctx, toolNamed(t, c, "get-structured-content"), `{"location":"Chicago"}`)
	var weather struct {
		Temperature *float64 `json:"temperature"`
		Conditions  string   `json:"conditions"`
	}
	if err != nil || json.Unmarshal(out.Content, &weather) != nil || weather.Temperature == nil || weather.Conditions == "" {
		t.Errorf("structured content: %s err %v, want the structuredContent object", out.Content, err)
	}

	out, err = call(ctx, toolNamed(t, c, "get-tiny-image"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []struct {
		Type     string `json:"type"`
		MimeType string `json:"mimeType"`
	}
	if err := json.Unmarshal(out.Content, &blocks); err != nil || len(blocks) < 2 {
		t.Fatalf("several blocks: %s, want a JSON array (%v)", out.Content, err)
	}
	var img *helikon.ImagePart
	for _, p := range out.Parts {
		if ip, ok := p.(helikon.ImagePart); ok {
			img = &ip
		}
	}
	if img == nil || img.MediaType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
		t.Errorf("image: parts %v, want an image/png ImagePart with PNG bytes", out.Parts)
	}

	_, err = call(ctx, toolNamed(t, c, "get-sum"), `{"a":"not a number"}`)
	var te *helikon.ToolError
	if !errors.As(err, &te) || te.Kind != helikon.ToolFailed || !strings.Contains(err.Error(), "validation") {
		t.Errorf("isError: err = %v, want a ToolError with the server's message", err)
	}
	if mcp.IsKind(err, mcp.KindService) {
		t.Errorf("a tool failure surfaced as *mcp.Error: %v", err)
	}
}

// The long-running operation is told to last an hour: the call can only
// return because it was cancelled. The logging transport shows the client
// told the server.
func TestStdioEverything_CancelledCallReturnsAndNotifiesServer(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	var wire syncBuffer
	cmd := everything(t)
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &sdk.LoggingTransport{
		Transport: &sdk.CommandTransport{Command: cmd, TerminateDuration: 200 * time.Millisecond},
		Writer:    &wire,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	callCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := call(callCtx, toolNamed(t, c, "trigger-long-running-operation"), `{"duration":3600,"steps":3600}`)
		done <- err
	}()
	waitFor(t, "the call to reach the server", func() bool { return strings.Contains(wire.String(), `"trigger-long-running-operation"`) })
	cancel()
	err = <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var te *helikon.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("err = %T, want a ToolError", err)
	}
	waitFor(t, "notifications/cancelled on the wire", func() bool { return strings.Contains(wire.String(), "notifications/cancelled") })
	// The server still works after the cancellation.
	if out, err := call(ctx, toolNamed(t, c, "echo"), `{"message":"after"}`); err != nil || string(out.Content) != `"Echo: after"` {
		t.Fatalf("after cancel: %s %v", out.Content, err)
	}
}

func TestStdioEverything_CloseLeavesNoProcess(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	cmd := everything(t)
	c, err := mcp.ConnectStdio(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !processGone(pid) {
		t.Fatalf("server process %d still exists after Close", pid)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
