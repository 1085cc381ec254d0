package devui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/browsertest"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/workflow"
)

// workflowServer serves "pipeline": two lenses side by side, then a
// writer that looks a month up and streams slowly enough to be watched.
func workflowServer(t *testing.T) string {
	t.Helper()
	lookup := helikon.MustTool("lookup_spending", "Look up spending for a month.", func(_ *helikon.ToolContext, in monthArgs) (int, error) {
		return 2098, nil
	}, helikon.WithEffect(helikon.ReadOnly))
	parts := make([]string, 60)
	for i := range parts {
		parts[i] = fmt.Sprintf("w%02d ", i)
	}
	optimist := must(helikon.NewAgent("optimist", mock.Scripted(mock.Text("It will be fine."))))
	pessimist := must(helikon.NewAgent("pessimist", mock.Scripted(mock.Text("It will not."))))
	lenses := must(workflow.NewParallel("lenses", workflow.Step(optimist), workflow.Step(pessimist)))
	writer := must(helikon.NewAgent("writer", mock.New([]mock.Script{
		mock.ToolCalls(mock.Call{ID: "w1", Name: "lookup_spending", Args: `{"month":"May"}`}),
		mock.Deltas(parts...),
	}, mock.WithDelay(40*time.Millisecond)), helikon.WithTools(lookup)))
	pipeline := must(workflow.NewSequential("pipeline", workflow.Step(lenses), workflow.Step(writer)))
	srv, err := server.New([]helikon.Agent{pipeline}, server.WithDevUI())
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
	return ts.URL
}

// TestBrowser_TheAgentGraphDrawsAWorkflowHighlightsTheActiveAgentAndFiltersTheTimeline
// draws a sequence of a parallel pair and a writer with a tool, watches
// the writer light up while it streams, then clicks an agent and sees
// only its items in the timeline.
func TestBrowser_TheAgentGraphDrawsAWorkflowHighlightsTheActiveAgentAndFiltersTheTimeline(t *testing.T) {
	t.Parallel()
	url := workflowServer(t)
	ctx := browsertest.Open(t, nil)
	dir := browsertest.Shots(t)
	browsertest.Do(t, ctx, "draw the graph", chromedp.Navigate(url+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		browsertest.Until(`document.querySelector("#graph svg") !== null`))
	nodes := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#graph .gnode"), (g) => g.dataset.agent + ":" + Array.from(g.querySelectorAll(":scope > text"), (e) => e.textContent).join("/"))`)
	want := []string{"pipeline:sequential · pipeline", "lenses:parallel · lenses", "optimist:optimist/mock", "pessimist:pessimist/mock", "writer:writer/⚙ lookup_spending/mock"}
	if len(nodes) != len(want) {
		t.Fatalf("graph nodes %q, want %q", nodes, want)
	}
	for i := range want {
		if !strings.HasPrefix(nodes[i], want[i]) {
			t.Errorf("node %d is %q, want %q", i, nodes[i], want[i])
		}
	}
	// The sequence's edge: lenses above writer, an arrow between them.
	if above := browsertest.Eval[bool](t, ctx, `(() => { const r = (a) => document.querySelector('#graph .gnode[data-agent="' + a + '"] rect').getBoundingClientRect(); return r("lenses").bottom < r("writer").top && r("optimist").top === r("pessimist").top })()`); !above {
		t.Error("the lenses are not above the writer, or the branches not side by side")
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#graph path.edge").length`); n != 1 {
		t.Errorf("%d edges, want 1 (lenses → writer)", n)
	}

	browsertest.Do(t, ctx, "run the pipeline", chromedp.SendKeys(chromedp.CSS("#input"), "Will May be fine?"), chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.body.dataset.graphActive === "writer" && document.querySelector('#chat .msg.assistant.streaming') !== null`))
	if active := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#graph .gnode.active"), (g) => g.dataset.agent)`); len(active) != 1 || active[0] != "writer" {
		t.Errorf("while the writer streams the active nodes are %q", active)
	}
	browsertest.Screenshot(t, ctx, dir, "graph-active.png")
	browsertest.Do(t, ctx, "the run ends", browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	if seen := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#graph .gnode.seen"), (g) => g.dataset.agent)`); strings.Join(seen, " ") != "pipeline lenses optimist pessimist writer" {
		t.Errorf("nodes the run went through: %q", seen)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#graph .gnode.active").length`); n != 0 {
		t.Errorf("%d nodes still active after the run", n)
	}

	// A click on the optimist leaves its items in the timeline.
	visible := `Array.from(document.querySelectorAll("#timeline li.tl"), (li) => li).filter((li) => li.querySelector(":scope > .head").offsetParent !== null).map((li) => li.dataset.agent + ":" + li.dataset.type)`
	all := browsertest.Eval[[]string](t, ctx, visible)
	browsertest.Do(t, ctx, "filter to the optimist", chromedp.Click(chromedp.CSS(`#graph .gnode[data-agent="optimist"]`)),
		browsertest.Until(`!document.getElementById("graph-all").hidden`))
	only := browsertest.Eval[[]string](t, ctx, visible)
	if len(only) == 0 || len(only) >= len(all) {
		t.Fatalf("filtered to the optimist: %q of %q", only, all)
	}
	for _, v := range only {
		if !strings.HasPrefix(v, "optimist:") {
			t.Errorf("filtered to the optimist, the timeline shows %q", v)
		}
	}
	browsertest.Screenshot(t, ctx, dir, "graph-filter.png")
	browsertest.Do(t, ctx, "show all again", chromedp.Click(chromedp.CSS("#graph-all")), browsertest.Until(`document.getElementById("graph-all").hidden`))
	if again := browsertest.Eval[[]string](t, ctx, visible); len(again) != len(all) {
		t.Errorf("after show all: %d items, want %d", len(again), len(all))
	}
}
