package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/session/sqlite"
)

// TestFirstApp_TheTutorialShowsThisFile pins docs/first-app.md to this
// program: its Go blocks, in order, are main.go, so the tutorial's code is
// the code the next test compiles and runs.
func TestFirstApp_TheTutorialShowsThisFile(t *testing.T) {
	doc, err := os.ReadFile("../../docs/first-app.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```\n").FindAllStringSubmatch(string(doc), -1) {
		blocks = append(blocks, m[1])
	}
	if got := strings.Join(blocks, "\n"); got != string(src) {
		t.Fatalf("the Go blocks of docs/first-app.md are not main.go; first difference at byte %d:\ndoc:  %q\nfile: %q",
			firstDiff(got, string(src)), around(got, firstDiff(got, string(src))), around(string(src), firstDiff(got, string(src))))
	}
}

func firstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func around(s string, i int) string { return s[max(0, i-40):min(len(s), i+40)] }

// TestFirstApp_ServesTheSupportConversation runs the tutorial's server on
// a real listener and drives it as the tutorial's curl commands do: a run
// streamed over SSE on a session, which reads the order, opens the refund,
// writes the note, is denied .env and pauses before Bash; the approval
// continues it to its answer; the session is in the SQLite file, and the
// dev UI is served.
func TestFirstApp_ServesTheSupportConversation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	// The OS sandbox runs Bash as its own user, who must reach the
	// workspace; a test's temporary directories are private.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv, db, err := newServer(ctx, filepath.Join(dir, "workspace"), filepath.Join(dir, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeListener(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	base := "http://" + ln.Addr().String()

	req, _ := http.NewRequest(http.MethodPost, base+"/agents/support/runs?stream=sse", strings.NewReader(`{"input":"My order A-1001 arrived damaged."}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Session-Id", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	runID := resp.Header.Get("X-Run-Id")
	var events []string
	denied := ""
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, `"permission_denied"`) {
			denied = line
		}
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, e)
			if e == "run_paused" {
				break // the stream stays open for the rest of the run
			}
		}
	}
	resp.Body.Close()
	for _, want := range []string{"run_started", "tool_output_item", "permission_denied", "approval_requested", "run_paused"} {
		if !slices.Contains(events, want) {
			t.Fatalf("the stream has no %s: %v", want, events)
		}
	}
	if !strings.Contains(denied, "Read(.env)") {
		t.Errorf("the denial does not name the deny rule: %s", denied)
	}

	var approvals server.Approvals
	getJSON(t, base+"/agents/support/runs/"+runID+"/approvals", &approvals)
	if len(approvals.Pending) != 1 || approvals.Pending[0].Tool != "Bash" {
		t.Fatalf("pending = %+v, want the one Bash call", approvals.Pending)
	}
	body := `{"decisions":[{"id":"` + approvals.Pending[0].ID + `","kind":"approve"}]}`
	resp, err = http.Post(base+"/agents/support/runs/"+runID+"/approvals", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("approve: %s", resp.Status)
	}
	var info server.RunInfo
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		getJSON(t, base+"/agents/support/runs/"+runID, &info)
		if info.Status.Final() || time.Now().After(deadline) {
			break
		}
	}
	want := "Your order A-1001 arrived damaged, so I opened refund R-A-1001 and noted it in notes/A-1001.md."
	if info.Status != server.StatusCompleted || info.Result == nil || info.Result.FinalOutput != want {
		t.Fatalf("run = %s %+v %+v", info.Status, info.Result, info.Error)
	}
	note, err := os.ReadFile(filepath.Join(dir, "workspace", "notes", "A-1001.md"))
	if err != nil || !strings.Contains(string(note), "Refund opened") {
		t.Errorf("the note: %q, %v", note, err)
	}

	session, err := sqlite.Open(ctx, db, "alice")
	if err != nil {
		t.Fatal(err)
	}
	items, err := session.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) < 2 || !strings.Contains(lastText(items), "refund R-A-1001") {
		t.Errorf("the SQLite session holds %d items, the last %q", len(items), lastText(items))
	}

	resp, err = http.Get(base + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "<html") {
		t.Errorf("the dev UI: %s, %.80q", resp.Status, page)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// lastText is the text of the last assistant message of items.
func lastText(items []helikon.Item) string {
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Role == helikon.RoleAssistant && items[i].Text() != "" {
			return items[i].Text()
		}
	}
	return ""
}
