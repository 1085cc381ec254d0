package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mcp"
)

// startEverythingHTTP runs server-everything's streamable-HTTP transport on
// a free loopback port and returns its /mcp URL.
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	script := nodeScript(t, "@modelcontextprotocol/server-everything/dist/index.js")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // the server binds it next; a clash only fails this test
	cmd := exec.Command("node", script, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitFor(t, "server-everything to listen: "+stderr.String(), func() bool { return strings.Contains(stderr.String(), "listening on port") })
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}

func TestHTTPEverything_ToolsCallsAndCancel(t *testing.T) {
	t.Parallel() // waits on Node processes; runs after the leak-checked tests
	url := startEverythingHTTP(t)
	ctx := context.Background()
	wire := &recordingTransport{base: http.DefaultTransport}
	c, err := mcp.ConnectHTTP(ctx, url, mcp.WithToolPrefix("ev_"), mcp.WithHeader("Authorization", "Bearer unused"),
		mcp.WithHTTPClient(&http.Client{Transport: wire}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if e := helikon.EffectOf(toolNamed(t, c, "ev_echo")); e != helikon.ReadOnly {
		t.Errorf("echo effect = %v", e)
	}
	out, err := call(ctx, toolNamed(t, c, "ev_echo"), `{"message":"over http"}`)
	if err != nil || string(out.Content) != `"Echo: over http"` {
		t.Fatalf("echo = %s %v", out.Content, err)
	}
	out, err = call(ctx, toolNamed(t, c, "ev_get-structured-content"), `{"location":"New York"}`)
	if err != nil || !strings.Contains(string(out.Content), `"temperature"`) {
		t.Fatalf("structured = %s %v", out.Content, err)
	}
	// An hour-long operation can only return by being cancelled.
	callCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := call(callCtx, toolNamed(t, c, "ev_trigger-long-running-operation"), `{"duration":3600,"steps":3600}`)
		done <- err
	}()
	waitFor(t, "the call to be posted", func() bool { return strings.Contains(wire.String(), "trigger-long-running-operation") })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: err = %v", err)
	}
	waitFor(t, "notifications/cancelled to be posted", func() bool { return strings.Contains(wire.String(), "notifications/cancelled") })
	if !strings.Contains(wire.String(), "Authorization: Bearer unused") {
		t.Error("the configured header was not sent")
	}
	if out, err := call(ctx, toolNamed(t, c, "ev_echo"), `{"message":"still here"}`); err != nil || string(out.Content) != `"Echo: still here"` {
		t.Fatalf("after cancel: %s %v", out.Content, err)
	}
}

func TestHTTP_UnreachableServerIsAConnectError(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	_, err := mcp.ConnectHTTP(context.Background(), "http://"+addr+"/mcp")
	if !mcp.IsKind(err, mcp.KindConnect) {
		t.Fatalf("err = %v, want kind connect", err)
	}
}

// recordingTransport records the headers and bodies of the requests it sends.
type recordingTransport struct {
	base http.RoundTripper
	log  syncBuffer
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for k, v := range req.Header {
		fmt.Fprintf(&r.log, "%s: %s\n", k, strings.Join(v, ","))
	}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		r.log.Write(append(body, '\n'))
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	return r.base.RoundTrip(req)
}

func (r *recordingTransport) String() string { return r.log.String() }
