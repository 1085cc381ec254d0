package devui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon/internal/browsertest"
)

// pauseOn asks agent to mail bob and waits for its run to pause on the
// send_email call.
func pauseOn(t *testing.T, f *fixture, agent string) context.Context {
	t.Helper()
	ctx := browsertest.Open(t, nil)
	browsertest.Do(t, ctx, "pause "+agent, chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), agent),
		chromedp.SendKeys(chromedp.CSS("#input"), "mail bob"+kb.Enter),
		browsertest.Until(`document.body.dataset.runStatus === "paused"`))
	if n := f.sends.Load(); n != 0 {
		t.Fatalf("%d emails went out before a decision", n)
	}
	return ctx
}

func TestBrowser_RejectingAPausedCallRunsNothingAndTheModelSeesTheRefusal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := pauseOn(t, f, "outbox")
	const result = `#timeline li[data-tool="send_email"] > ol > li[data-type="tool_output_item"]`
	browsertest.Do(t, ctx, "reject", chromedp.Click(chromedp.CSS(`.approvals button[data-kind="reject"]`)),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`),
		browsertest.Until(`document.querySelector('`+result+`') !== null`))
	outcome := browsertest.Text(t, ctx, ".approvals .approval .row .meta")
	head, output := browsertest.Text(t, ctx, result+" > .head"), browsertest.Text(t, ctx, result+" pre")
	answer := browsertest.Text(t, ctx, "#chat .msg.assistant .text")
	if outcome != "rejected" || f.sends.Load() != 0 {
		t.Errorf("outcome %q, %d emails sent; want rejected and none", outcome, f.sends.Load())
	}
	if !strings.HasPrefix(head, "✗Tool error") || !strings.Contains(output, "rejected by the user") {
		t.Errorf("the call's result says %q: %q, want a tool error the model reads as a rejection", head, output)
	}
	if answer != "Not sent." {
		t.Errorf("answer %q: the run did not continue after the rejection", answer)
	}
}

// Always grants the call's tool for the rest of the run (the core's
// ScopeRun, what an "always" decision without a scope means): the model's
// second, identical call runs without a second pause.
func TestBrowser_AlwaysRunsTheSameCallAgainInTheRunWithoutAsking(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := pauseOn(t, f, "newsletter")
	browsertest.Do(t, ctx, "always", chromedp.Click(chromedp.CSS(`.approvals button[data-kind="always"]`)),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`),
		browsertest.Until(`document.querySelectorAll('#timeline li[data-tool="send_email"] > ol > li[data-type="tool_output_item"]').length === 2`))
	count := func(sel string) int {
		return browsertest.Eval[int](t, ctx, `document.querySelectorAll('`+sel+`').length`)
	}
	if outcome := browsertest.Text(t, ctx, ".approvals .approval .row .meta"); outcome != "approved (always)" {
		t.Errorf("outcome %q", outcome)
	}
	if n := f.sends.Load(); n != 2 {
		t.Errorf("%d emails sent, want both calls run", n)
	}
	if cards, asked, paused := count(".approvals"), count(`#timeline li[data-type="approval_requested"]`), count(`#timeline li[data-type="run_paused"]`); cards != 1 || asked != 1 || paused != 1 {
		t.Errorf("%d approval cards, %d approvals asked, %d pauses: the second call was asked again", cards, asked, paused)
	}
	if errs := count(`#timeline li[data-tool="send_email"] li.k-err`); errs != 0 {
		t.Errorf("%d error items under the calls", errs)
	}
	if answer := browsertest.Text(t, ctx, "#chat .msg.assistant .text"); answer != "Sent twice." {
		t.Errorf("answer %q", answer)
	}
}
