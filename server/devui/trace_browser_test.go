package devui_test

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/paigasus/helikon/internal/browsertest"
	"github.com/paigasus/helikon/server/devui"
)

// traceRow is a row of the trace view's layout, as trace.js computes it.
type traceRow struct {
	ID       int     `json:"id"`
	Parent   *int    `json:"parent"`
	Kind     string  `json:"kind"`
	Label    string  `json:"label"`
	Depth    int     `json:"depth"`
	Status   string  `json:"status"`
	Open     bool    `json:"open"`
	Duration float64 `json:"duration"`
	Left     float64 `json:"left"`
	Width    float64 `json:"width"`
	TTFT     float64 `json:"ttft"`
	Tokens   *struct {
		In  int `json:"in"`
		Out int `json:"out"`
	} `json:"tokens"`
	Parallel int `json:"parallel"`
	Turn     int `json:"turn"`
	Ordinal  int `json:"ordinal"`
}

type traceLayout struct {
	Span    float64    `json:"span"`
	Live    bool       `json:"live"`
	Stamped bool       `json:"stamped"`
	Rows    []traceRow `json:"rows"`
}

// at is 2026-12-02T10:00:00 UTC plus ms milliseconds, in RFC 3339 with
// nanoseconds, as the core stamps events.
func at(ms float64) string {
	ns := int64(math.Round(ms * 1e6))
	sec, frac := ns/1e9, ns%1e9
	return "2026-12-02T10:00:" + pad2(sec) + "." + pad9(frac) + "Z"
}

func pad2(n int64) string { s := "0" + itoa(n); return s[len(s)-2:] }
func pad9(n int64) string { s := "000000000" + itoa(n); return s[len(s)-9:] }
func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// ev is one event of a fixture: its type and data (with "at" unless the
// data says otherwise).
func ev(typ string, data map[string]any) map[string]any {
	return map[string]any{"type": typ, "data": data}
}

func toolUse(id, name string) map[string]any {
	return map[string]any{"type": "tool_use", "call_id": id, "name": name, "args": map[string]any{}}
}

func toolResult(id, name string, isErr bool) map[string]any {
	return map[string]any{"type": "tool_result", "call_id": id, "name": name, "is_error": isErr,
		"content": []any{map[string]any{"type": "text", "text": "ok"}}}
}

func item(parts ...map[string]any) map[string]any {
	return map[string]any{"role": "assistant", "content": parts}
}

// parallelRound is a run whose first turn asks for two tools that run side
// by side (a: 10–250 ms, b: 12–130 ms), then answers.
func parallelRound() []map[string]any {
	return []map[string]any{
		ev("run_started", map[string]any{"agent": "calc", "at": at(0)}),
		ev("turn_started", map[string]any{"agent": "calc", "turn": 1, "at": at(1)}),
		ev("token_delta", map[string]any{"text": "x"}),
		ev("model_responded", map[string]any{"agent": "calc", "turn": 1, "at": at(9), "first_token_at": at(5), "model": "mock-1",
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 4}}),
		ev("tool_call_item", map[string]any{"item": item(toolUse("a", "slow"), toolUse("b", "fast")), "at": at(9.5)}),
		ev("tool_output_item", map[string]any{"item": item(toolResult("b", "fast", false)), "started_at": at(12), "at": at(130)}),
		ev("tool_output_item", map[string]any{"item": item(toolResult("a", "slow", true)), "started_at": at(10), "at": at(250)}),
		ev("turn_started", map[string]any{"agent": "calc", "turn": 2, "at": at(251)}),
		ev("model_responded", map[string]any{"agent": "calc", "turn": 2, "at": at(300), "first_token_at": at(260),
			"usage": map[string]any{"input_tokens": 20, "output_tokens": 5}}),
		ev("message_output", map[string]any{"item": map[string]any{"role": "assistant", "content": []any{}}, "at": at(300.5)}),
		ev("run_completed", map[string]any{"agent": "calc", "usage": map[string]any{}, "at": at(301)}),
	}
}

// nested is a run whose agent tool runs a sub-run (its own model call), then
// hands off to billing, which pauses for an approval.
func nested() []map[string]any {
	sub := func(inner map[string]any) map[string]any {
		return ev("sub_run_event", map[string]any{"call_id": "r1", "tool": "researcher", "agent": "researcher", "event": inner, "at": inner["at"]})
	}
	flat := func(typ string, data map[string]any) map[string]any { data["type"] = typ; return data }
	return []map[string]any{
		ev("run_started", map[string]any{"agent": "planner", "at": at(0)}),
		ev("turn_started", map[string]any{"agent": "planner", "turn": 1, "at": at(1)}),
		ev("model_responded", map[string]any{"agent": "planner", "turn": 1, "at": at(10), "usage": map[string]any{}}),
		ev("tool_call_item", map[string]any{"item": item(toolUse("r1", "researcher")), "at": at(11)}),
		sub(flat("run_started", map[string]any{"agent": "researcher", "at": at(12)})),
		sub(flat("turn_started", map[string]any{"agent": "researcher", "turn": 1, "at": at(13)})),
		sub(flat("model_responded", map[string]any{"agent": "researcher", "turn": 1, "at": at(40), "usage": map[string]any{}})),
		sub(flat("run_completed", map[string]any{"agent": "researcher", "at": at(41), "usage": map[string]any{}})),
		ev("tool_output_item", map[string]any{"item": item(toolResult("r1", "researcher", false)), "started_at": at(11.5), "at": at(42)}),
		ev("turn_started", map[string]any{"agent": "planner", "turn": 2, "at": at(43)}),
		ev("model_responded", map[string]any{"agent": "planner", "turn": 2, "at": at(50), "usage": map[string]any{}}),
		ev("handoff_item", map[string]any{"from": "planner", "to": "billing", "at": at(51)}),
		ev("agent_updated", map[string]any{"agent": "billing", "at": at(51)}),
		ev("turn_started", map[string]any{"agent": "billing", "turn": 1, "at": at(52)}),
		ev("model_responded", map[string]any{"agent": "billing", "turn": 1, "at": at(60), "usage": map[string]any{}}),
		ev("tool_call_item", map[string]any{"item": item(toolUse("p1", "pay")), "at": at(61)}),
		ev("approval_requested", map[string]any{"call_id": "p1", "tool": "pay", "args": map[string]any{}, "at": at(62)}),
		ev("run_paused", map[string]any{"agent": "planner", "state": map[string]any{}, "usage": map[string]any{}, "at": at(63)}),
	}
}

// TestTrace_LayoutPlacesEachSpanOnTheRunsTimeAxis feeds event fixtures to
// trace.js's model in the page and checks the rows it lays out: durations,
// time to first token, tokens, parallel calls side by side, nesting of
// agent tools and handoffs, approval waits, and runs without times.
func TestTrace_LayoutPlacesEachSpanOnTheRunsTimeAxis(t *testing.T) {
	t.Parallel()
	ui, err := devui.New(devui.WithAPI("/"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(ui)
	t.Cleanup(ts.Close)
	ctx := browsertest.Open(t, nil)
	browsertest.Do(t, ctx, "load the UI", chromedp.Navigate(ts.URL+"/"), browsertest.Until(`window.helikonTrace !== undefined`))
	lay := func(t *testing.T, events []map[string]any, now float64) traceLayout {
		t.Helper()
		b, _ := json.Marshal(events)
		nowArg := "null"
		if now > 0 {
			nowArg = "helikonTrace.parseAt(" + jsString(at(now)) + ")"
		}
		return browsertest.Eval[traceLayout](t, ctx, "helikonTrace.layout("+string(b)+", "+nowArg+")")
	}
	near := func(t *testing.T, what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}

	t.Run("parallel tool round", func(t *testing.T) {
		l := lay(t, parallelRound(), 0)
		kinds := []string{}
		for _, r := range l.Rows {
			kinds = append(kinds, r.Kind+":"+r.Label)
		}
		if got, want := strings.Join(kinds, ", "), "run:Run calc, model:calc · turn 1, tool:slow, tool:fast, model:calc · turn 2"; got != want {
			t.Fatalf("rows %s, want %s", got, want)
		}
		run, m1, slow, fast, m2 := l.Rows[0], l.Rows[1], l.Rows[2], l.Rows[3], l.Rows[4]
		near(t, "span", l.Span, 301)
		near(t, "run duration", run.Duration, 301)
		near(t, "turn 1 duration", m1.Duration, 8)
		near(t, "turn 1 time to first token", m1.TTFT, 4)
		if m1.Tokens == nil || m1.Tokens.In != 10 || m1.Tokens.Out != 4 {
			t.Errorf("turn 1 tokens %+v", m1.Tokens)
		}
		near(t, "slow: duration from started_at", slow.Duration, 240)
		near(t, "fast: duration", fast.Duration, 118)
		near(t, "slow: left", slow.Left, 10.0/301)
		near(t, "fast: left", fast.Left, 12.0/301)
		near(t, "slow: width", slow.Width, 240.0/301)
		if slow.Parallel != 2 || fast.Parallel != 2 {
			t.Errorf("parallel ×%d and ×%d, want 2 and 2", slow.Parallel, fast.Parallel)
		}
		// Side by side: the two bars overlap in time.
		if !(fast.Left < slow.Left+slow.Width && slow.Left < fast.Left+fast.Width) {
			t.Errorf("the parallel calls do not overlap: %+v %+v", slow, fast)
		}
		if slow.Status != "error" || fast.Status != "" {
			t.Errorf("statuses %q %q, want error and none", slow.Status, fast.Status)
		}
		if m1.Depth != 1 || slow.Depth != 1 || run.Depth != 0 {
			t.Errorf("depths run %d, model %d, tool %d", run.Depth, m1.Depth, slow.Depth)
		}
		near(t, "turn 2 ttft", m2.TTFT, 9)
		if m2.Turn != 2 || m2.Ordinal != 0 || l.Live {
			t.Errorf("turn 2: turn %d ordinal %d; live %v", m2.Turn, m2.Ordinal, l.Live)
		}
	})

	t.Run("agent tool, handoff and approval wait", func(t *testing.T) {
		l := lay(t, nested(), 0)
		byLabel := map[string]traceRow{}
		for _, r := range l.Rows {
			byLabel[r.Label] = r
		}
		tool, ok := byLabel["agent tool researcher"]
		if !ok {
			t.Fatalf("no agent tool row in %+v", l.Rows)
		}
		sub := byLabel["researcher · turn 1"]
		if sub.Depth != tool.Depth+1 || sub.Parent == nil || *sub.Parent != tool.ID {
			t.Errorf("the sub-run's model call is not nested under its call: %+v under %+v", sub, tool)
		}
		near(t, "sub-run model call", sub.Duration, 27)
		near(t, "agent tool call", tool.Duration, 30.5)
		h := byLabel["handoff planner → billing"]
		billing := byLabel["billing · turn 1"]
		if billing.Depth != h.Depth+1 || *billing.Parent != h.ID {
			t.Errorf("billing's turn is not nested under the handoff: %+v, %+v", billing, h)
		}
		wait := byLabel["approval: pay"]
		pay := byLabel["pay"]
		if wait.Parent == nil || *wait.Parent != pay.ID || wait.Depth != pay.Depth+1 {
			t.Errorf("the approval wait is not under its call: %+v, %+v", wait, pay)
		}
		if !wait.Open || wait.Status != "waiting" {
			t.Errorf("the paused run's wait: open %v status %q, want open and waiting", wait.Open, wait.Status)
		}
		near(t, "wait so far (to the pause)", wait.Duration, 1)
	})

	t.Run("approved wait ends when the call starts", func(t *testing.T) {
		events := append(nested(),
			ev("tool_output_item", map[string]any{"item": item(toolResult("p1", "pay", false)), "started_at": at(5000), "at": at(5003)}),
			ev("run_completed", map[string]any{"agent": "billing", "usage": map[string]any{}, "at": at(5010)}))
		l := lay(t, events, 0)
		for _, r := range l.Rows {
			switch r.Label {
			case "approval: pay":
				near(t, "approval wait", r.Duration, 5000-62)
			case "pay":
				near(t, "approved call", r.Duration, 3)
			case "handoff planner → billing":
				near(t, "handoff span", r.Duration, 5010-51)
			}
			if r.Open {
				t.Errorf("row %q still open after the run completed", r.Label)
			}
		}
	})

	t.Run("a live run's open model call reaches now", func(t *testing.T) {
		l := lay(t, parallelRound()[:2], 500)
		if !l.Live || len(l.Rows) != 2 || !l.Rows[1].Open || l.Rows[1].Status != "running" {
			t.Fatalf("live layout %+v", l)
		}
		near(t, "open model call so far", l.Rows[1].Duration, 499)
	})

	t.Run("events without times keep their structure", func(t *testing.T) {
		events := parallelRound()
		for _, e := range events {
			d := e["data"].(map[string]any)
			delete(d, "at")
			delete(d, "started_at")
			delete(d, "first_token_at")
		}
		l := lay(t, events, 0)
		if l.Stamped || len(l.Rows) != 5 {
			t.Errorf("unstamped: stamped %v, %d rows", l.Stamped, len(l.Rows))
		}
	})
}
