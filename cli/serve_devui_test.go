package cli_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon/internal/browsertest"
)

// uiAddress is the line `helikon serve` prints for the dev UI.
var uiAddress = regexp.MustCompile(`^helikon: dev UI at (http://\S+/ui/)$`)

// TestServe_TheSampleChatsInChromiumAtThePrintedDevUIAddress is the dev
// UI's "done": the helikon binary serves the sample `helikon init` writes
// on a port the system picks, Chromium loads the UI at the address it
// printed, and a question to triage streams budgeting's answer, with the
// handoff and the sample's lookup_spending call in the timeline.
func TestServe_TheSampleChatsInChromiumAtThePrintedDevUIAddress(t *testing.T) {
	ctx := browsertest.Open(t, nil)
	url, stop := startServe(t, filepath.Join(sampleDir(t), "agents.toml"))

	browsertest.Do(t, ctx, "load the printed address", chromedp.Navigate(url), browsertest.Until(`document.body.dataset.ready === "true"`))
	if agents := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#agent option"), (o) => o.value)`); strings.Join(agents, ",") != "budgeting,triage" {
		t.Errorf("the agent picker offers %q", agents)
	}
	// The session picker shows its whole label: the room inside the box,
	// less the arrow's, holds the label's width in the box's font.
	if spare := browsertest.Eval[float64](t, ctx, `(() => {
		const s = document.getElementById("session"), cs = getComputedStyle(s);
		const g = document.createElement("canvas").getContext("2d");
		g.font = cs.font;
		const text = g.measureText(s.selectedOptions[0].textContent).width;
		return s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20 - text;
	})()`); spare < 0 {
		t.Errorf("the session picker cuts its label: %.0f px short", -spare)
	}
	browsertest.Do(t, ctx, "ask triage", chromedp.SetValue(chromedp.CSS("#agent"), "triage"),
		chromedp.SendKeys(chromedp.CSS("#input"), "How much did I spend in January?"+kb.Enter),
		browsertest.Until(`["completed", "failed", "error"].includes(document.body.dataset.runStatus)`))
	browsertest.Screenshot(t, ctx, browsertest.Shots(t), "serve-sample.png")
	if status := browsertest.Eval[string](t, ctx, "document.body.dataset.runStatus"); status != "completed" {
		t.Fatalf("the run ended %s: %s", status, browsertest.Text(t, ctx, "#chat"))
	}
	const handoff = `#timeline > li[data-type="handoff_item"]`
	const call = handoff + ` li[data-tool="lookup_spending"]`
	answer := browsertest.Text(t, ctx, "#chat .msg.assistant .text")
	turn := browsertest.Text(t, ctx, handoff+` > ol > li[data-type="turn_started"]:last-child > .head .meta`)
	if want := "In January you spent 2098 in total: 1500 on rent, 412 on groceries and 186 eating out."; answer != want {
		t.Errorf("answer %q, want %q", answer, want)
	}
	if !strings.Contains(turn, "budgeting · mock · 90 in · 24 out tokens") || !strings.Contains(turn, "6 deltas") {
		t.Errorf("the answering model call says %q, want budgeting's usage and its 6 streamed deltas", turn)
	}
	if h := browsertest.Text(t, ctx, handoff+" > .head"); !strings.Contains(h, "Handoff triage → budgeting") {
		t.Errorf("handoff item %q", h)
	}
	// The result is long enough to be collapsed: its text, not what shows.
	args := browsertest.Text(t, ctx, call+" pre")
	result := browsertest.Eval[string](t, ctx, `document.querySelector('`+call+` li[data-type="tool_output_item"] pre').textContent`)
	if !strings.Contains(args, `"month": "2026-01"`) || !strings.Contains(result, `"total": 2098`) {
		t.Errorf("lookup_spending's arguments %q, result %q", args, result)
	}
	stop()
}

// startServe runs helikon serve on sidecar on a port the system picks and
// returns the dev UI address it printed; stop interrupts it and checks it
// ended cleanly (it is called at the test's end if the test does not).
func startServe(t *testing.T, sidecar string, flags ...string) (url string, stop func()) {
	t.Helper()
	cmd := exec.Command(helikonBin, append([]string{"--agents", sidecar, "serve", "--addr", "127.0.0.1:0"}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The reader owns stderr until EOF: the address on the way, the rest
	// kept for a failure's message.
	address := make(chan string, 1)
	var rest bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if m := uiAddress.FindStringSubmatch(lines.Text()); m != nil {
				address <- m[1]
			}
			rest.WriteString(lines.Text() + "\n")
		}
		close(address)
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Errorf("interrupt helikon serve: %v", err)
		}
		<-read
		if err := cmd.Wait(); err != nil {
			t.Errorf("helikon serve ended with %v after an interrupt:\n%s", err, rest.String())
		}
	}
	t.Cleanup(stop)
	url, ok := <-address
	if !ok {
		<-read
		t.Fatalf("helikon serve printed no dev UI address:\n%s", rest.String())
	}
	return url, stop
}
