package devui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon/internal/browsertest"
)

// focused describes the focused element and whether its focus shows: the
// computed outline (the stylesheet's :focus-visible ring) or a box shadow.
const focused = `(() => {
	const e = document.activeElement;
	if (!e || e === document.body) return "body|false";
	const s = getComputedStyle(e);
	const ring = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none";
	const name = e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.dataset.kind ? "[" + e.dataset.kind + "]" : "");
	const label = "value" in e && e.tagName !== "BUTTON" ? e.value : e.textContent;
	return name + " " + (label || "").trim().slice(0, 30) + "|" + ring;
})()`

// tabTo presses Tab until the focused element matches sel, failing if it
// takes more than limit presses or if any stop on the way shows no focus.
// It returns the stops, for the test's log.
func tabTo(t *testing.T, ctx context.Context, sel string, limit int) []string {
	t.Helper()
	var stops []string
	for range limit {
		browsertest.Do(t, ctx, "press Tab", chromedp.KeyEvent(kb.Tab))
		name, ring, _ := strings.Cut(browsertest.Eval[string](t, ctx, focused), "|")
		stops = append(stops, name)
		if ring != "true" {
			t.Errorf("%s has the focus but shows no focus ring", name)
		}
		if browsertest.Eval[bool](t, ctx, `document.activeElement.matches(`+jsString(sel)+`)`) {
			return stops
		}
	}
	t.Fatalf("%d Tabs did not reach %s: %q", limit, sel, stops)
	return nil
}

// TestBrowser_KeyboardAloneChoosesAnAgentSendsAndOpensATimelineItem uses
// only key events: Tab to the agent picker and change it with the arrows,
// Tab to the message box and type, Tab to Send and press Enter, Tab to the
// tool call's timeline item and open its raw JSON with Enter, close it with
// Escape. Every stop on the way shows a focus ring.
func TestBrowser_KeyboardAloneChoosesAnAgentSendsAndOpensATimelineItem(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := browsertest.Open(t, nil)
	dir := browsertest.Shots(t)
	value := func(id string) string {
		return browsertest.Eval[string](t, ctx, `document.getElementById("`+id+`").value`)
	}
	browsertest.Do(t, ctx, "load", chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`))
	var stops []string

	stops = append(stops, tabTo(t, ctx, "#agent", 5)...)
	first := value("agent")
	browsertest.Do(t, ctx, "next agent", chromedp.KeyEvent(kb.ArrowDown))
	if next := value("agent"); next == first {
		t.Errorf("ArrowDown left the agent picker at %q", next)
	}
	browsertest.Do(t, ctx, "back", chromedp.KeyEvent(kb.ArrowUp))
	if v := value("agent"); v != "assistant" {
		t.Fatalf("the agent picker says %q after ArrowDown, ArrowUp; want the first agent, assistant", v)
	}

	stops = append(stops, tabTo(t, ctx, "#input", 20)...)
	browsertest.Do(t, ctx, "type", chromedp.KeyEvent("How much did I spend in January?"))
	stops = append(stops, tabTo(t, ctx, "#send", 1)...)
	browsertest.Screenshot(t, ctx, dir, "keyboard-send.png")
	browsertest.Do(t, ctx, "send with Enter on Send", chromedp.KeyEvent(kb.Enter),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`),
		browsertest.Until(`document.activeElement.id === "input"`))
	if answer := browsertest.Text(t, ctx, "#chat .msg.assistant .text"); !strings.HasPrefix(answer, "In January you spent") {
		t.Errorf("answer %q", answer)
	}

	const item = `#timeline li[data-tool="lookup_spending"] > .head > button`
	stops = append(stops, tabTo(t, ctx, item, 20)...)
	browsertest.Screenshot(t, ctx, dir, "keyboard-timeline.png")
	browsertest.Do(t, ctx, "open raw JSON with Enter", chromedp.KeyEvent(kb.Enter),
		browsertest.Until(`document.getElementById("raw").open && document.activeElement.id === "raw-close"`))
	if name, ring, _ := strings.Cut(browsertest.Eval[string](t, ctx, focused), "|"); ring != "true" {
		t.Errorf("%s has the focus in the raw JSON dialog but shows no focus ring", name)
	}
	if raw := browsertest.Text(t, ctx, "#raw-json"); !strings.Contains(raw, `"type": "tool_call_item"`) {
		t.Errorf("raw JSON %s", raw)
	}
	// Escape closes the dialog and gives the focus back to the item.
	browsertest.Do(t, ctx, "close with Escape", chromedp.KeyEvent(kb.Escape),
		browsertest.Until(`!document.getElementById("raw").open`))
	if !browsertest.Eval[bool](t, ctx, `document.activeElement.matches(`+jsString(item)+`)`) {
		name, _, _ := strings.Cut(browsertest.Eval[string](t, ctx, focused), "|")
		t.Errorf("after Escape the focus is on %s, not the timeline item", name)
	}
	t.Logf("tab stops: %s", strings.Join(stops, ", "))
}
