package cli_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon/internal/browsertest"
)

// TestServe_ApprovalsFromTheDevUIInChromium serves the bank sidecar with
// helikon serve and works its approvals from the dev UI in Chromium:
// teller's pay call pauses the run; Approve runs it and the run completes
// on the agent the server built once (its mock model picks up after the
// call); Reject runs nothing, and the chat says the call was not run, not
// "called pay"; auditor, which sets no mode, runs in plan mode under serve.
func TestServe_ApprovalsFromTheDevUIInChromium(t *testing.T) {
	ctx := browsertest.Open(t, nil)
	url, stop := startServe(t, bank)
	browsertest.Do(t, ctx, "load the dev UI", chromedp.Navigate(url), browsertest.Until(`document.body.dataset.ready === "true"`))
	notes := func() []string {
		return browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#chat .note"), (e) => e.textContent)`)
	}
	// ask sends text to agent and waits for the new run to reach status.
	ask := func(ctx context.Context, agent, text, status string) {
		t.Helper()
		last := browsertest.Eval[string](t, ctx, `document.getElementById("run-id").textContent`)
		browsertest.Do(t, ctx, "ask "+agent, chromedp.SetValue(chromedp.CSS("#agent"), agent),
			chromedp.SendKeys(chromedp.CSS("#input"), text+kb.Enter),
			browsertest.Until(`document.getElementById("run-id").textContent !== "`+last+`" && document.body.dataset.runStatus === "`+status+`"`))
	}
	const result = `#timeline li[data-tool="pay"] > ol > li[data-type="tool_output_item"]`

	ask(ctx, "teller", "pay bob 50", "paused")
	if card := browsertest.Text(t, ctx, ".approvals:not(.resolved) .approval"); !strings.Contains(card, "pay") || !strings.Contains(card, `"bob"`) {
		t.Fatalf("approval card %q", card)
	}
	browsertest.Do(t, ctx, "approve", chromedp.Click(chromedp.CSS(`.approvals:not(.resolved) button[data-kind="approve"]`)),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	browsertest.Screenshot(t, ctx, browsertest.Shots(t), "serve-approved.png")
	if head, out := browsertest.Text(t, ctx, result+" > .head"), browsertest.Text(t, ctx, result+" pre"); strings.HasPrefix(head, "✗") || !strings.Contains(out, `"paid": 50`) {
		t.Errorf("the approved call's result says %q: %q", head, out)
	}
	if answer := browsertest.Eval[string](t, ctx, `Array.from(document.querySelectorAll("#chat .msg.assistant .text")).pop().textContent`); answer != "That is settled." {
		t.Errorf("answer after approval %q", answer)
	}
	if n := notes(); !slices.Contains(n, "called pay") {
		t.Errorf("the chat's notes %q lack called pay", n)
	}

	before := len(notes())
	ask(ctx, "teller", "pay bob 50 again", "paused")
	browsertest.Do(t, ctx, "reject", chromedp.Click(chromedp.CSS(`.approvals:not(.resolved) button[data-kind="reject"]`)),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	browsertest.Screenshot(t, ctx, browsertest.Shots(t), "serve-rejected.png")
	rejected := notes()[before:]
	if !slices.ContainsFunc(rejected, func(s string) bool { return strings.HasPrefix(s, "pay not run: rejected by the user") }) ||
		slices.Contains(rejected, "called pay") || slices.Contains(rejected, "pay failed") {
		t.Errorf("after the rejection the chat's notes are %q, want pay not run and no call", rejected)
	}

	before = len(notes())
	ask(ctx, "auditor", "pay bob 50", "completed")
	planned := notes()[before:]
	if !slices.Contains(planned, "pay not run: agent auditor runs in plan mode, which admits only read-only tools") || slices.Contains(planned, "called pay") {
		t.Errorf("auditor's notes %q, want pay refused by plan mode", planned)
	}
	stop()
}
