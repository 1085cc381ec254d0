package a2a_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
	"github.com/paigasus/helikon/mock"
)

// npmDir holds the A2A JavaScript SDK, installed from the committed
// package-lock.json by .ci/run (npm ci).
var npmDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "npm")
}()

// requireJS ends a test when node or the JavaScript SDK is missing: a skip
// naming how to install them, or a failure under CI.
func requireJS(t testing.TB) {
	t.Helper()
	msg := ""
	if _, err := exec.LookPath("node"); err != nil {
		msg = "node is not installed: apt-get install nodejs npm"
	} else if _, err := os.Stat(filepath.Join(npmDir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		msg = "the A2A JavaScript SDK is not installed: run `npm ci` in " + npmDir
	}
	if msg == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func TestServer_DrivenByTheJavaScriptSDKClient(t *testing.T) {
	t.Parallel()
	requireJS(t)
	_, ts := serve(t, newAgent(t, replay{script: mock.Deltas("Invoice 42 ", "is paid.")}))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(npmDir, "client.mjs"), ts.URL, "Is invoice 42 paid?")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("JavaScript client: %v\n%s", err, stderr.String())
	}
	var r struct {
		Card struct {
			Name      string
			Streaming bool
		}
		Kinds            []string
		Streamed, Output string
		Final            string
		Task             struct {
			State     string
			Artifacts []string
		}
		Unknown string
		Send    struct{ Kind, State string }
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("report %s: %v", out, err)
	}
	if r.Card.Name != "specialist" || !r.Card.Streaming {
		t.Errorf("card %+v", r.Card)
	}
	if len(r.Kinds) == 0 || r.Kinds[0] != "task" || r.Final != "completed" {
		t.Errorf("stream kinds %v, final %q", r.Kinds, r.Final)
	}
	if r.Streamed != "Invoice 42 is paid." || r.Output != "Invoice 42 is paid." {
		t.Errorf("streamed %q, output %q", r.Streamed, r.Output)
	}
	if r.Task.State != "completed" || strings.Join(r.Task.Artifacts, ",") != "stream,output" {
		t.Errorf("tasks/get %+v", r.Task)
	}
	if r.Unknown != "TaskNotFoundJSONRPCError" {
		t.Errorf("unknown task: %q, want TaskNotFoundJSONRPCError (code -32001)", r.Unknown)
	}
	if r.Send.Kind != "task" || r.Send.State != "completed" {
		t.Errorf("message/send %+v", r.Send)
	}
}

// jsServer starts server.mjs and returns its base URL; the server stops
// when the test ends (its stdin closes).
func jsServer(t *testing.T) string {
	t.Helper()
	requireJS(t)
	cmd := exec.Command("node", filepath.Join(npmDir, "server.mjs"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("JavaScript server: %v", err)
	}
	return strings.TrimSpace(line)
}

func TestRemoteAgent_AgainstAJavaScriptSDKServer(t *testing.T) {
	t.Parallel()
	url := jsServer(t)
	remote, err := a2a.NewRemoteAgent(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if remote.Name() != "js_billing" {
		t.Errorf("name %q", remote.Name())
	}
	res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("Is invoice 42 paid?")))
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.TokenDelta); ok {
			deltas = append(deltas, d.Text)
		}
	}
	if res.FinalOutput != "Invoice 42 is paid." || strings.Join(deltas, "|") != "Invoice 42 |is paid." {
		t.Errorf("output %q, deltas %q", res.FinalOutput, deltas)
	}
	_, err = helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("please fail")))
	var re *a2a.RemoteError
	if !errors.Is(err, a2a.ErrTaskFailed) || !errors.As(err, &re) || re.Message != "the ledger is closed" {
		t.Errorf("failed task: %v", err)
	}
}

// TestRemoteAgent_SendsAndCancelsOnAJavaScriptSDKServer covers the client's
// other two calls against the JavaScript SDK's server: message/send (a card
// without streaming) and tasks/cancel (a consumer that stops following a
// task), which the server's executor records.
func TestRemoteAgent_SendsAndCancelsOnAJavaScriptSDKServer(t *testing.T) {
	t.Parallel()
	url := jsServer(t)
	streaming, err := a2a.NewRemoteAgent(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	card := *streaming.Card()
	card.Capabilities.Streaming = false
	sending, err := a2a.NewRemoteAgent(context.Background(), url, a2a.WithCard(&card))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(sending.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("Is invoice 42 paid?")))
	if err != nil || res.FinalOutput != "Invoice 42 is paid." {
		t.Errorf("message/send: output %q, error %v", res.FinalOutput, err)
	}

	for ev := range streaming.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("please wait")) {
		if _, ok := ev.(helikon.TokenDelta); ok {
			break // the run asks the remote to cancel its task before it returns
		}
	}
	resp, err := http.Get(url + "canceled")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var canceled []string
	if err := json.NewDecoder(resp.Body).Decode(&canceled); err != nil || len(canceled) != 1 {
		t.Errorf("tasks canceled on the server: %v (%v), want one", canceled, err)
	}
}
