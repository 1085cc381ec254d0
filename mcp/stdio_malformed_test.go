package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon/mcp"
	"go.uber.org/goleak"
)

// rawReply is one JSON-RPC message the server wrote.
type rawReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	// line is the reply as written.
	line string
}

// rawSession drives a stdio MCP server process with raw lines.
type rawSession struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan rawReply
	done    chan struct{} // closed when the reader has seen stdout end
}

func startRawSession(t *testing.T, cmd *exec.Cmd) *rawSession {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawSession{t: t, cmd: cmd, stdin: stdin, replies: make(chan rawReply, 64), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var r rawReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				r.JSONRPC = "not JSON: " + err.Error()
			}
			r.line = sc.Text()
			s.replies <- r
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
		_ = cmd.Wait()
	})
	return s
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("write %.60q: %v", line, err)
	}
}

// next returns the next reply, failing the test when none comes.
func (s *rawSession) next(after string) rawReply {
	s.t.Helper()
	select {
	case r := <-s.replies:
		return r
	case <-s.done:
		s.t.Fatalf("the server closed stdout after %.80q", after)
	case <-time.After(20 * time.Second):
		s.t.Fatalf("no reply after %.80q", after)
	}
	return rawReply{}
}

// A client's malformed line is answered with a JSON-RPC error and the
// session goes on: the reply owed to an initialize read just before it is
// still written, and every valid request after it is served. Each line is
// a real line written to the server process's stdin.
func TestAgentServer_StdioMalformedLinesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	s := startRawSession(t, fakeServerCmd("agent-stdio"))
	// The initialize and a broken line arrive in one write: both are
	// answered, in either order.
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n{not json")
	var gotInit, gotParse bool
	for range 2 {
		r := s.next("initialize and a broken line")
		switch {
		case string(r.ID) == "1" && r.Result != nil:
			gotInit = true
		case string(r.ID) == "null" && r.Error != nil && r.Error.Code == -32700:
			gotParse = true
		default:
			t.Fatalf("unexpected reply %s", r.line)
		}
	}
	if !gotInit || !gotParse {
		t.Fatalf("initialize answered %v, parse error %v", gotInit, gotParse)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	tests := []struct {
		name string
		line string
		id   string // the reply's id, as written
		code int64  // 0: a result
		text string // in the error message or the result
	}{
		{"not JSON", `this is not JSON`, "null", -32700, "parse error"},
		{"a message cut short", `{"jsonrpc":"2.0","id":7,"method":`, "null", -32700, "parse error"},
		{"two values on one line", `{"jsonrpc":"2.0","id":3,"method":"ping"}{"a":1}`, "null", -32700, "after top-level value"},
		{"no version tag", `{"id":8,"method":"tools/list"}`, "8", -32600, "version"},
		{"a string id is echoed", `{"jsonrpc":"1.0","id":"x-9","method":"ping"}`, `"x-9"`, -32600, "invalid request"},
		{"an id that is an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", -32600, "invalid request"},
		{"a bare number", `42`, "null", -32600, "JSON object"},
		{"an empty batch", `[]`, "null", -32600, "empty batch"},
		{"a batch with a broken member", `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"x":1}]`, "null", -32600, "batch member 1"},
		{"a batch repeating an id", `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`, "null", -32600, "repeats id 4"},
		{"an unknown method", `{"jsonrpc":"2.0","id":9,"method":"no/such/method"}`, "9", -32601, ""},
		{"a valid line with trailing blanks", "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\"}  \t\r", "10", 0, "echo_agent"},
		{"a line over 16 MiB", `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"` + strings.Repeat("x", 17<<20) + `"}}`, "null", -32600, "at most 16777216 bytes"},
		{"a call after all that", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo_agent","arguments":{"input":"still here"}}}`, "12", 0, "echo: still here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.t = t
			s.send("") // a blank line is skipped without a reply
			s.send(tt.line)
			r := s.next(tt.line)
			if string(r.ID) != tt.id {
				t.Errorf("id = %s, want %s (reply %s)", r.ID, tt.id, r.line)
			}
			if tt.code == 0 {
				if r.Error != nil || !strings.Contains(string(r.Result), tt.text) {
					t.Errorf("reply %s, want a result with %q", r.line, tt.text)
				}
				return
			}
			if r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code != tt.code || !strings.Contains(r.Error.Message, tt.text) {
				t.Errorf("reply %.300s, want error %d with %q", r.line, tt.code, tt.text)
			}
		})
	}
	s.t = t
	// A batch the guard passes but the go-sdk refuses (it reuses the id of
	// a call still running) is answered too, and the session goes on.
	s.send(`[{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"echo_agent","arguments":{"input":"slow"}}}]`)
	s.send(`[{"jsonrpc":"2.0","id":20,"method":"ping"}]`)
	if r := s.next("a batch reusing a running call's id"); string(r.ID) != "null" || r.Error == nil || r.Error.Code != -32600 ||
		!strings.Contains(r.Error.Message, "previously seen request") {
		t.Fatalf("reply %s, want -32600 naming the reused id", r.line)
	}
	s.send(`{"jsonrpc":"2.0","id":21,"method":"ping"}`)
	if r := s.next("a ping after the refused batch"); string(r.ID) != "21" || r.Error != nil {
		t.Fatalf("reply %s, want the ping's result", r.line)
	}
	if err := s.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit after stdin closed")
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("server exit: %v", err)
	}
}

// ServeIO on pipes answers a malformed line, returns the context's error
// when the context ends, closes its input, and leaves no goroutine behind.
func TestServeIO_ContextEndClosesTheInputAndLeavesNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, err := mcp.NewAgentServer(echoAgent{name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.ServeIO(ctx, inR, outW) }()
	wrote := make(chan error, 1)
	go func() { _, err := io.WriteString(inW, "{oops\n"); wrote <- err }()
	reply, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(reply, `"id":null,"error":{"code":-32700`) {
		t.Fatalf("reply %q (%v), want a parse error", reply, err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-served; !errors.Is(err, context.Canceled) {
		t.Fatalf("ServeIO = %v, want context.Canceled", err)
	}
	if _, err := io.WriteString(inW, "{}\n"); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("writing to the input after ServeIO returned: %v, want the pipe closed", err)
	}
	outR.Close()
}
