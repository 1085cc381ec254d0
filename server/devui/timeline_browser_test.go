package devui_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon/internal/browsertest"
)

// shows is a timeline element and a text it must hold.
type shows struct{ sel, text string }

// list is a list in the timeline and the types of its items, in order.
type list struct {
	sel   string
	types []string
}

// TestBrowser_TheTimelineShowsHandoffsTripsDenialsRepairsAndFailures runs
// each scripted agent of the fixture once and checks that the timeline has
// the items its run's events make, with their text, nested where the run
// nests them, and what the chat says of the run.
func TestBrowser_TheTimelineShowsHandoffsTripsDenialsRepairsAndFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const handoff = `#timeline > li[data-type="handoff_item"]`
	tests := []struct {
		name, agent, input string
		status             string
		lists              []list
		shows              []shows
		answers            []string // the assistant's messages in the chat
		note               string   // a note the chat ends with
	}{{
		name: "handoff", agent: "triage", input: "What is my February bill?", status: "completed",
		lists: []list{
			{"#timeline", []string{"run_started", "turn_started", "handoff_item", "run_completed"}},
			// What follows the handoff nests under it: billing's turns.
			{handoff + " > ol", []string{"agent_updated", "turn_started", "turn_started"}},
		},
		shows: []shows{
			{handoff + " > .head", "Handoff triage → billing"},
			{handoff + ` > ol > li[data-type="agent_updated"]`, "Agent now billing"},
			{handoff + ` > ol > li[data-type="turn_started"] > .head .meta`, "billing · mock · 10 in · 5 out tokens"},
			{handoff + ` li[data-tool="lookup_spending"] li[data-type="tool_output_item"] pre`, `"month": "February"`},
		},
		answers: []string{"February: 1,870"},
		note:    "completed · 30 in · 12 out tokens",
	}, {
		name: "guardrail", agent: "guarded", input: "What is my password?", status: "failed",
		lists: []list{{"#timeline", []string{"run_started", "turn_started", "guardrail_triggered", "run_failed"}}},
		shows: []shows{
			{`li[data-type="guardrail_triggered"] > .head`, "Guardrail tripped (input_policy)"},
			{`li[data-type="guardrail_triggered"] pre`, `"matched": "password"`},
			{`li[data-type="run_failed"] > .head`, "Failed: guardrail"},
			{`li[data-type="run_failed"] > .label`, "input_policy: asks for a password"},
		},
		// The model's answer never reaches the chat.
		answers: nil,
		note:    "failed (guardrail): input_policy: asks for a password",
	}, {
		name: "permission denied", agent: "cleaner", input: "Clean up my disk.", status: "completed",
		lists: []list{{`li[data-tool="delete_files"] > ol`, []string{"permission_denied", "tool_output_item"}}},
		shows: []shows{
			{`li[data-tool="delete_files"] > ol > li[data-type="permission_denied"] > .head`, "Permission denied: delete_files"},
			{`li[data-type="permission_denied"] > .label`, "deny rule delete_files"},
			{`li[data-tool="delete_files"] > ol > li[data-type="tool_output_item"] > .head`, "Tool error"},
		},
		answers: []string{"I may not delete them."},
		note:    "completed · 20 in · 6 out tokens",
	}, {
		name: "structured-output repair", agent: "reporter", input: "Report January.", status: "completed",
		lists: []list{{"#timeline", []string{"run_started", "turn_started", "repair_started", "turn_started", "run_completed"}}},
		shows: []shows{{`li[data-type="repair_started"] > .head`, "Structured-output repair, attempt 1"}},
		// The miss streamed before it was checked; the repair follows it.
		answers: []string{"about 2,098", `{"month":"January","total":2098}`},
		note:    "completed · 20 in · 10 out tokens",
	}, {
		name: "failure with its kind", agent: "strict", input: "Report January.", status: "failed",
		lists: []list{{"#timeline", []string{"run_started", "turn_started", "repair_started", "turn_started", "structured_output_failed", "run_failed"}}},
		shows: []shows{
			{`li[data-type="structured_output_failed"] > .head`, "Structured output failed1 schema error"},
			{`li[data-type="structured_output_failed"] pre`, `missing properties: ["total"]`},
			{`li[data-type="run_failed"] > .head`, "Failed: invalid_structured_output"},
			{`li[data-type="run_failed"] > .label`, `missing properties: ["total"]`},
		},
		answers: []string{"about 2,098", `{"month":"January"}`},
		note:    `failed (invalid_structured_output): validating root: required: missing properties: ["total"]`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := browsertest.Open(t, nil)
			// Each case on a session of its own: the page opens the
			// latest of the server's sessions, an earlier case's.
			browsertest.Do(t, ctx, "run "+tt.agent, chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
				chromedp.Click(chromedp.CSS("#new-session")), browsertest.Until(`document.querySelector("#chat > *") === null`),
				chromedp.SetValue(chromedp.CSS("#agent"), tt.agent),
				chromedp.SendKeys(chromedp.CSS("#input"), tt.input+kb.Enter),
				browsertest.Until(`["completed", "failed", "error"].includes(document.body.dataset.runStatus)`))
			if status := browsertest.Eval[string](t, ctx, "document.body.dataset.runStatus"); status != tt.status {
				t.Errorf("run status %q, want %q", status, tt.status)
			}
			for _, l := range tt.lists {
				got := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll(`+jsString(l.sel+" > li")+`), (e) => e.dataset.type)`)
				if !slices.Equal(got, l.types) {
					t.Errorf("items of %s: %q, want %q", l.sel, got, l.types)
				}
			}
			for _, s := range tt.shows {
				got := browsertest.Eval[string](t, ctx, `(() => { const e = document.querySelector(`+jsString(s.sel)+`); return e ? e.textContent : "(no such element)" })()`)
				if !strings.Contains(got, s.text) {
					t.Errorf("%s says %q, want %q in it", s.sel, got, s.text)
				}
			}
			answers := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#chat .msg.assistant .text"), (e) => e.textContent)`)
			if !slices.Equal(answers, tt.answers) {
				t.Errorf("the chat's answers %q, want %q", answers, tt.answers)
			}
			if note := browsertest.Eval[string](t, ctx, `document.querySelector("#chat > :last-child").textContent`); !strings.HasPrefix(note, tt.note) {
				t.Errorf("the chat ends with %q, want %q", note, tt.note)
			}
			browsertest.Screenshot(t, ctx, browsertest.Shots(t), "timeline-"+tt.agent+".png")
		})
	}
	if n := f.deletes.Load(); n != 0 {
		t.Errorf("the denied tool ran %d times", n)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
