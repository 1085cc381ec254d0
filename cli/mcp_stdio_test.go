package cli_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `helikon mcp serve` answers a malformed line on stdin with a JSON-RPC
// parse error and serves the requests around it: the reply to the
// initialize written just before the bad line, and the call after it.
func TestMCPServe_StdioAnswersAMalformedLineAndGoesOn(t *testing.T) {
	dir := sampleDir(t)
	cmd := exec.Command(helikonBin, "--agents", filepath.Join(dir, "agents.toml"), "mcp", "serve", "--agent", "triage")
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
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	_, err = io.WriteString(stdin, strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, // cut short
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"triage","arguments":{"input":"` + question + `"}}}`,
	}, "\n")+"\n")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // id → the reply
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for len(got) < 3 && sc.Scan() {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("reply is not JSON: %s", sc.Bytes())
		}
		got[string(r.ID)] = sc.Text()
	}
	if !strings.Contains(got["1"], `"serverInfo"`) {
		t.Errorf("initialize reply %q", got["1"])
	}
	if !strings.Contains(got["null"], `"code":-32700`) {
		t.Errorf("parse error reply %q", got["null"])
	}
	if !strings.Contains(got["3"], "In January you spent 2098") {
		t.Errorf("call reply %q", got["3"])
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mcp serve exit after stdin closed: %v", err)
	}
}
