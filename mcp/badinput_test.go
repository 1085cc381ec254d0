package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mcp"
	"github.com/paigasus/helikon/mock"
	"go.uber.org/goleak"
)

func TestStdio_BadServersFailClearlyAndLeaveNothing(t *testing.T) {
	for _, tc := range []struct {
		mode string
		kind mcp.ErrorKind
		want string
	}{
		{"garbage", mcp.KindConnect, "invalid"},
		{"badschema", mcp.KindConnect, `tool "work": invalid input schema`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			cmd := fakeServerCmd(tc.mode)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := mcp.ConnectStdio(ctx, cmd, mcp.WithTerminateTimeout(100*time.Millisecond))
			if err == nil {
				c.Close()
				t.Fatal("connected to a broken server")
			}
			if !mcp.IsKind(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want kind %s mentioning %q", err, tc.kind, tc.want)
			}
			if !processGone(cmd.Process.Pid) {
				t.Fatalf("server process %d outlived the failed connect", cmd.Process.Pid)
			}
		})
	}
}

func TestStdio_MissingCommandIsASpawnError(t *testing.T) {
	_, err := mcp.ConnectStdio(context.Background(), fakeServerCmdPath("/nonexistent/mcp-server"))
	if !mcp.IsKind(err, mcp.KindSpawn) {
		t.Fatalf("err = %v, want kind spawn", err)
	}
}

func TestStdio_ServerCrashMidCallIsAToolErrorWithItsStderr(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd := fakeServerCmd("crash")
	c, err := mcp.ConnectStdio(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = call(context.Background(), toolNamed(t, c, "work"), `{}`)
	var te *helikon.ToolError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "out of cheese") {
		t.Fatalf("err = %v, want a ToolError carrying the server's stderr", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close after crash: %v", err)
	}
	if !processGone(cmd.Process.Pid) {
		t.Fatal("crashed server not reaped")
	}
}

// The hanging server never answers, ignores SIGTERM and outlives its stdin:
// the cancelled call must return anyway, and Close must still kill it.
func TestStdio_HungServerCancelReturnsAndCloseKills(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd := fakeServerCmd("hang")
	c, err := mcp.ConnectStdio(context.Background(), cmd, mcp.WithTerminateTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = call(ctx, toolNamed(t, c, "work"), `{}`)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	c.Close()
	if !processGone(cmd.Process.Pid) {
		t.Fatal("hung server survived Close")
	}
}

func TestStdio_CloseKillsTheServersOwnChildren(t *testing.T) {
	pidFile := t.TempDir() + "/grandchild"
	cmd := fakeServerCmd("grandchild")
	cmd.Env = append(cmd.Env, "HELIKON_MCP_GRANDCHILD_FILE="+pidFile)
	c, err := mcp.ConnectStdio(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	grandchild, _ := strconv.Atoi(string(b))
	c.Close()
	waitFor(t, "the grandchild to be reaped by init", func() bool { return processGone(grandchild) || isZombie(grandchild) })
}

// isZombie reports whether pid has exited and awaits its parent's wait:
// a killed orphan is briefly a zombie until init reaps it.
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// Close must not wait for a call the server never answers: the call is
// abandoned with ErrClosed and the hung server killed.
func TestClient_CloseAbandonsCallsInFlight(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd := fakeServerCmd("hang")
	c, err := mcp.ConnectStdio(context.Background(), cmd, mcp.WithTerminateTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	tool := toolNamed(t, c, "work")
	done := make(chan error, 1)
	go func() {
		_, err := call(context.Background(), tool, `{}`)
		done <- err
	}()
	waitFor(t, "the call to be in flight", func() bool { return len(done) == 0 })
	time.Sleep(20 * time.Millisecond) // let the request reach the pipe; correctness does not depend on it
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, mcp.ErrClosed) {
		t.Fatalf("in-flight call: err = %v, want ErrClosed", err)
	}
	if _, err := call(context.Background(), tool, `{}`); !errors.Is(err, mcp.ErrClosed) {
		t.Fatalf("call after Close: err = %v, want ErrClosed", err)
	}
	if !processGone(cmd.Process.Pid) {
		t.Fatal("hung server survived Close")
	}
}

func TestStdio_GarbledCallResultIsAToolError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd := fakeServerCmd("garblecall")
	c, err := mcp.ConnectStdio(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = call(context.Background(), toolNamed(t, c, "work"), `{}`)
	var te *helikon.ToolError
	if !errors.As(err, &te) || mcp.IsKind(err, mcp.KindService) {
		t.Fatalf("err = %v, want a ToolError", err)
	}
}

func TestRefresh_InvalidListIsAServiceErrorAndKeepsTheCache(t *testing.T) {
	c, err := mcp.ConnectStdio(context.Background(), fakeServerCmd("badrelist"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Refresh(context.Background())
	if !mcp.IsKind(err, mcp.KindService) || !strings.Contains(err.Error(), "invalid input schema") {
		t.Fatalf("err = %v, want a service error naming the schema", err)
	}
	if out, err := call(context.Background(), toolNamed(t, c, "work"), `{}`); err != nil || string(out.Content) != `"worked"` {
		t.Fatalf("the previous list was not kept: %s %v", out.Content, err)
	}
}

// A server that dies mid-call fails that call, not the agent's run: the
// model sees the error (with the server's last words) and answers.
func TestStdio_ServerCrashInAnAgentRunIsReportedToTheModel(t *testing.T) {
	ctx := context.Background()
	c, err := mcp.ConnectStdio(ctx, fakeServerCmd("crash"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	model := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "work", Args: `{}`}),
		mock.Text("The work server crashed; I could not finish."),
	)
	agent, err := helikon.NewAgent("worker", model, helikon.WithToolSources(ctx, c))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(agent.Run(ctx, helikon.Ephemeral(), helikon.UserText("work")))
	if err != nil || res.FinalOutput != "The work server crashed; I could not finish." {
		t.Fatalf("run = %q %v, want it to go on past the crash", res.FinalOutput, err)
	}
	last := model.Requests()[1].Messages
	result := last[len(last)-1].Content[0].(helikon.ToolResultPart)
	if !result.IsError || !strings.Contains(result.Content[0].(helikon.TextPart).Text, "out of cheese") {
		t.Fatalf("the model saw %+v, want the crash with the server's stderr", result)
	}
}

// A streamable-HTTP server whose JSON answer has no end is cut off at the
// bound: the client fails the connection instead of buffering it all (the
// go-sdk reads a JSON answer whole).
func TestHTTP_OversizedJSONAnswerFailsInsteadOfBuffering(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for range 32 { // 32 MiB of white space before any value
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := mcp.ConnectHTTP(ctx, hs.URL)
	if err == nil {
		c.Close()
		t.Fatal("connected to a server whose answer never ends")
	}
	if !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("err = %v, want the response bound", err)
	}
}
