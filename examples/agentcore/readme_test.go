package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// readmeCurl is one curl command of the README's "Try it locally" block,
// with the comment after it that says what it prints.
type readmeCurl struct{ cmd, says string }

// readmeCurls returns the curl commands of README.md's "Try it locally"
// block, continuation lines joined.
func readmeCurls(t *testing.T) []readmeCurl {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "## Try it locally\n\n```sh\n")
	if !ok {
		t.Fatal(`README.md has no "Try it locally" sh block`)
	}
	block, _, _ = strings.Cut(block, "```")
	var curls []readmeCurl
	var cmd strings.Builder
	sc := bufio.NewScanner(strings.NewReader(block))
	for sc.Scan() {
		line := sc.Text()
		if cmd.Len() == 0 && !strings.HasPrefix(line, "curl ") {
			continue
		}
		code, says, _ := strings.Cut(line, " # ")
		code = strings.TrimSpace(code)
		if more, ok := strings.CutSuffix(code, `\`); ok {
			cmd.WriteString(more)
			continue
		}
		cmd.WriteString(code)
		curls = append(curls, readmeCurl{cmd.String(), strings.TrimSpace(says)})
		cmd.Reset()
	}
	return curls
}

// The README's curl commands, run as written (through sh, against the
// example on another port), succeed and print what their comments say:
// each "…"-separated part of the comment, in order.
func TestREADME_CurlCommandsAnswer(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("curl is not installed: apt-get install curl")
		}
		t.Skip("curl is not installed: apt-get install curl")
	}
	t.Setenv("HELIKON_PROVIDER", "")
	t.Setenv("HELIKON_SESSIONS", "")
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- run(ctx, addr, "", false) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/ping"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the example did not answer /ping")
		}
	}
	curls := readmeCurls(t)
	if len(curls) != 3 || !strings.Contains(curls[2].cmd, "text/event-stream") {
		t.Fatalf("README commands %q, want ping, a buffered and a streamed invocation", curls)
	}
	for _, c := range curls {
		line := strings.ReplaceAll(c.cmd, "localhost:8080", addr)
		out, err := exec.CommandContext(ctx, "sh", "-c", line+" -w '\\nHTTP %{http_code}'").CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", c.cmd, err, out)
			continue
		}
		if !strings.HasSuffix(string(out), "HTTP 200") {
			t.Errorf("%s answered\n%s", c.cmd, out)
			continue
		}
		rest := string(out)
		for part := range strings.SplitSeq(c.says, "…") {
			part = strings.TrimSpace(part)
			i := strings.Index(rest, part)
			if i < 0 {
				t.Errorf("%s printed\n%s\nwithout %q (in the order of its comment %q)", c.cmd, out, part, c.says)
				break
			}
			rest = rest[i+len(part):]
		}
	}
}
