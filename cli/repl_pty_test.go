package cli_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// term is the helikon repl on a pseudo-terminal.
type term struct {
	t    *testing.T
	pty  *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	seen int
}

func (tm *term) read() {
	b := make([]byte, 4096)
	for {
		n, err := tm.pty.Read(b)
		tm.mu.Lock()
		tm.buf.Write(b[:n])
		tm.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// expect waits for s to appear after what earlier expects consumed.
func (tm *term) expect(s string) {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		tm.mu.Lock()
		out := tm.buf.String()
		tm.mu.Unlock()
		if i := strings.Index(out[tm.seen:], s); i >= 0 {
			tm.seen += i + len(s)
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %q; the terminal shows after the last match:\n%s", s, out[tm.seen:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := tm.pty.WriteString(s); err != nil {
		tm.t.Fatal(err)
	}
}

// TestRepl_EndToEndOnAPseudoTerminal types into the real binary on a
// pseudo-terminal: a streamed answer, a hot reload, a broken save that
// keeps the old agent answering, and Ctrl-C cancelling a turn stuck on a
// model that never answers, with the repl still alive after it.
func TestRepl_EndToEndOnAPseudoTerminal(t *testing.T) {
	// A model endpoint that accepts the request and never answers, so the
	// turn is in flight when Ctrl-C arrives.
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client hang up.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hung.Close()
	defer close(release)

	dir := sampleDir(t)
	sidecarPath := filepath.Join(dir, "agents.toml")
	original, err := os.ReadFile(sidecarPath)
	if err != nil {
		t.Fatal(err)
	}
	withSlow := string(original) + "\n[agents.slow]\nmodel = { provider = \"openai\", id = \"gpt-5-mini\" }\n"
	write(t, sidecarPath, withSlow)

	cmd := exec.Command(helikonBin, "--agents", sidecarPath, "repl", "--agent", "triage")
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+hung.URL,
		"HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, pty: f}
	readDone := make(chan struct{})
	go func() { tm.read(); close(readDone) }()
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		f.Close()
		<-readDone
	}()

	tm.expect("/help for commands")
	tm.send(question + "\r")
	tm.expect("handoff triage → budgeting")
	tm.expect("In January you spent 2098")
	tm.expect("budgeting> ")

	// Edit and save the sidecar: the repl reloads it by itself.
	write(t, sidecarPath, strings.Replace(withSlow, "Answers budgeting questions", "Answers budgeting questions (v2)", 1))
	tm.expect("reloaded")
	tm.send("/agents\r")
	tm.expect("(v2)")

	// Break it: the error shows, the last good agents keep answering.
	write(t, sidecarPath, withSlow+"\n[agents.broken\n")
	tm.expect("reload failed, keeping the last good definitions")
	tm.send("/agent triage\r")
	tm.expect("now talking to triage")
	tm.send(question + "\r")
	tm.expect("In January you spent 2098")

	// Ctrl-C cancels a turn in flight, not the repl.
	tm.send("/agent slow\r")
	tm.expect("now talking to slow")
	tm.send("are you there?\r")
	select {
	case <-arrived:
	case <-time.After(15 * time.Second):
		t.Fatal("the slow agent's request never reached the model endpoint")
	}
	tm.send("\x03")
	tm.expect("(cancelled)")
	tm.send("/usage\r")
	tm.expect("2 turns")
	tm.send("/quit\r")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("repl exited with %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the repl did not exit on /quit")
	}
}
