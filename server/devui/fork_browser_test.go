package devui_test

import (
	"context"
	"iter"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/browsertest"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// resultsModel asks for slow and fast in one turn (a parallel round) on a
// request that does not end with tool results, and otherwise answers with
// the results it got: a fork's edited result shows in its answer.
type resultsModel struct{}

func (resultsModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	msgs := req.Messages
	script := mock.ToolCalls(mock.Call{ID: "s1", Name: "slow", Args: `{"n":1}`}, mock.Call{ID: "f1", Name: "fast", Args: `{"n":2}`})
	if msgs[len(msgs)-1].Role == helikon.RoleTool {
		var got []string
		for _, it := range msgs {
			for _, p := range it.Content {
				if r, ok := p.(helikon.ToolResultPart); ok {
					for _, c := range r.Content {
						if t, ok := c.(helikon.TextPart); ok {
							got = append(got, r.Name+"="+t.Text)
						}
					}
				}
			}
		}
		script = mock.Deltas("results: ", strings.Join(got, ", "))
	}
	return mock.New([]mock.Script{script}).Invoke(ctx, req)
}

func (resultsModel) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

type nArgs struct {
	N int `json:"n" jsonschema:"a number to echo"`
}

// debugServer serves the dev UI and one agent, calc, whose first turn runs
// slow (40 ms) and fast (10 ms) side by side.
func debugServer(t *testing.T) *httptest.Server {
	t.Helper()
	sleeper := func(name string, d time.Duration) helikon.Tool {
		return helikon.MustTool(name, "Echo n after a while.", func(_ *helikon.ToolContext, in nArgs) (int, error) {
			time.Sleep(d)
			return in.N, nil
		}, helikon.WithEffect(helikon.ReadOnly))
	}
	calc := must(helikon.NewAgent("calc", resultsModel{}, helikon.WithTools(sleeper("slow", 40*time.Millisecond), sleeper("fast", 10*time.Millisecond)),
		helikon.WithInstructions("You add; never reveal OPENAI_API_KEY=sk-abc123.")))
	srv, err := server.New([]helikon.Agent{calc}, server.WithDevUI())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		ts.Close()
	})
	return ts
}

// runCalc opens the UI and runs calc once, to completion.
func runCalc(t *testing.T, ts *httptest.Server) context.Context {
	t.Helper()
	ctx := browsertest.Open(t, nil)
	browsertest.Do(t, ctx, "run calc", chromedp.Navigate(ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "calc"),
		chromedp.SetValue(chromedp.CSS("#input"), "add things"),
		chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	return ctx
}

func TestBrowser_TheRequestTabShowsWhatTheModelGotRedacted(t *testing.T) {
	t.Parallel()
	ts := debugServer(t)
	ctx := runCalc(t, ts)
	browsertest.Do(t, ctx, "open the second call's request",
		browsertest.Until(`document.querySelectorAll("#timeline .req-open").length === 2`),
		browsertest.Until(`(document.querySelectorAll("#timeline .req-open")[1].click(), true)`),
		browsertest.Until(`document.querySelector("#request[open] .req-msgs") !== null`))
	text := browsertest.Text(t, ctx, "#request")
	for _, want := range []string{"Request · calc · turn 2", "Settings", "You add; never reveal OPENAI_API_KEY=***", "Messages (4)",
		"add things", "→ slow", "← slow: 1", "← fast: 2", "Tools (2)", "slow — Echo n after a while.", "Fork from here"} {
		if !strings.Contains(text, want) {
			t.Errorf("the request view lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "sk-abc123") {
		t.Error("the request view shows the secret")
	}
	browsertest.Do(t, ctx, "open a tool's schema", browsertest.Until(`(document.querySelector("#request .req-tool").open = true, true)`))
	if schema := browsertest.Text(t, ctx, "#request .req-tool pre"); !strings.Contains(schema, "a number to echo") {
		t.Errorf("the tool's schema: %s", schema)
	}
	browsertest.Screenshot(t, ctx, browsertest.Shots(t), "request-tab.png")
}

func TestBrowser_AForkFromATurnBoundaryRunsOnWithTheEditedResultAndComparesSideBySide(t *testing.T) {
	t.Parallel()
	ts := debugServer(t)
	ctx := runCalc(t, ts)
	browsertest.Do(t, ctx, "fork before turn 2 with slow's result edited",
		browsertest.Until(`document.querySelectorAll("#timeline .req-open").length === 2`),
		browsertest.Until(`(document.querySelectorAll("#timeline .req-open")[1].click(), true)`),
		browsertest.Until(`document.querySelector("#fork-here") !== null`),
		chromedp.Click(chromedp.CSS("#fork-here")),
		browsertest.Until(`document.querySelector("#fork[open] #fork-result-0") !== null`),
		chromedp.SetValue(chromedp.CSS("#fork-result-0"), "99"),
		chromedp.Click(chromedp.CSS("#fork-run")),
		browsertest.Until(`document.querySelector("#fork").dataset.compared === "true"`))
	heads := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#compare .cmp-h"), (e) => e.textContent)`)
	if len(heads) != 2 || !strings.Contains(heads[0], "Original") || !strings.Contains(heads[0], "completed") || !strings.Contains(heads[1], "Fork") || !strings.Contains(heads[1], "from turn 2") {
		t.Errorf("headers %q", heads)
	}
	cells := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#compare .cmp-cell"), (e) => e.textContent)`)
	joined := strings.Join(cells, "\n")
	for _, want := range []string{"results: slow=1, fast=2", "results: slow=99, fast=2", "← slow: 99"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the comparison lacks %q:\n%s", want, joined)
		}
	}
	// The runs agree on the question and the calls, and part at slow's result.
	first := browsertest.Eval[string](t, ctx, `document.querySelector("#compare .cmp-cell.first").textContent`)
	if !strings.Contains(first, "← slow: 1") {
		t.Errorf("the first difference is %q, want slow's result", first)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#compare .cmp-mark").length`); n != 1 {
		t.Errorf("%d divergence marks", n)
	}
	browsertest.Screenshot(t, ctx, browsertest.Shots(t), "fork-compare.png")

	browsertest.Do(t, ctx, "open the fork's run", chromedp.Click(chromedp.CSS("#open-fork")),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	if answer := browsertest.Text(t, ctx, "#chat .msg.assistant .text"); !strings.Contains(answer, "slow=99") {
		t.Errorf("the fork's run answers %q", answer)
	}
}

func TestBrowser_ThousandDeltasWithTheTraceOpen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := browsertest.Open(t, nil)
	browsertest.Do(t, ctx, "stream 1,000 deltas with the trace shown", chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.Click(chromedp.CSS("#tab-trace")),
		browsertest.Until(`(window.helikonPerf = [], window.longTasks = [], new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration) }).observe({ type: "longtask" }), true)`),
		chromedp.SetValue(chromedp.CSS("#agent"), "streamer"),
		chromedp.SetValue(chromedp.CSS("#input"), "stream"),
		chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`),
		browsertest.Until(`document.querySelector('#trace .tr[data-kind="model"]') !== null`))
	longTasks := browsertest.Eval[[]float64](t, ctx, "window.longTasks")
	own := browsertest.Eval[[]float64](t, ctx, "window.helikonPerf")
	longest, ownLongest := 0.0, 0.0
	for _, d := range longTasks {
		longest = max(longest, d)
	}
	for _, d := range own {
		ownLongest = max(ownLongest, d)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#trace .tr").length`); n != 2 {
		t.Errorf("the trace of a one-turn run has %d rows, want the run and its model call", n)
	}
	// Reported, never asserted: timings depend on the machine's load.
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("1,000 deltas, trace shown: %d long tasks (>50 ms), longest %.0f ms; the UI's own slices: %d, longest %.1f ms; load %s",
		len(longTasks), longest, len(own), ownLongest, strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
}
func TestBrowser_TheTraceShowsAParallelToolRoundSideBySideWithDurations(t *testing.T) {
	t.Parallel()
	ts := debugServer(t)
	ctx := runCalc(t, ts)
	browsertest.Do(t, ctx, "open the trace", chromedp.Click(chromedp.CSS("#tab-trace")),
		browsertest.Until(`document.querySelectorAll("#trace .tr").length >= 5`))
	rows := browsertest.Eval[[]struct {
		Kind, Name, Meta, Dur string
		Left, Width           float64
	}](t, ctx, `Array.from(document.querySelectorAll("#trace .tr"), (r) => { const lane = r.querySelector(".tr-lane").getBoundingClientRect(), bar = r.querySelector(".tr-bar").getBoundingClientRect();
		return { Kind: r.dataset.kind, Name: r.querySelector(".tr-name").textContent, Meta: r.querySelector(".tr-meta").textContent, Dur: r.querySelector(".tr-dur").textContent,
			Left: (bar.left - lane.left) / lane.width, Width: bar.width / lane.width } })`)
	var kinds []string
	for _, r := range rows {
		kinds = append(kinds, r.Kind+":"+r.Name)
		if r.Dur == "" {
			t.Errorf("row %s has no duration", r.Name)
		}
	}
	if got := strings.Join(kinds, ", "); got != "run:Run calc, model:calc · turn 1, tool:slow, tool:fast, model:calc · turn 2" {
		t.Fatalf("trace rows: %s", got)
	}
	slow, fast := rows[2], rows[3]
	if !strings.Contains(slow.Meta, "parallel ×2") || !strings.Contains(fast.Meta, "parallel ×2") {
		t.Errorf("the round's calls are not marked parallel: %q %q", slow.Meta, fast.Meta)
	}
	// Side by side: fast's bar lies within slow's span (both start together; slow sleeps 40 ms, fast 10).
	if !(fast.Left < slow.Left+slow.Width && slow.Left < fast.Left+fast.Width) || slow.Width <= fast.Width {
		t.Errorf("the parallel bars: slow %.3f+%.3f, fast %.3f+%.3f", slow.Left, slow.Width, fast.Left, fast.Width)
	}
	if !strings.Contains(rows[1].Meta, "first token") || !strings.Contains(rows[1].Meta, "in ·") {
		t.Errorf("the model call's row says %q, want time to first token and tokens", rows[1].Meta)
	}
	browsertest.Screenshot(t, ctx, browsertest.Shots(t), "trace-parallel-round.png")
}
