package devui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/browsertest"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// turnModel plays the same run every time: a request whose last item is a
// tool result gets answer, any other gets calls (answer when there are
// none); each invocation is a fresh scripted mock. It records each
// request's message count.
type turnModel struct {
	calls  []mock.Call
	answer mock.Script
	delay  time.Duration
	mu     sync.Mutex
	seen   []int
}

func (m *turnModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	m.mu.Lock()
	m.seen = append(m.seen, len(req.Messages))
	m.mu.Unlock()
	script := m.answer
	if n := len(req.Messages); len(m.calls) > 0 && (n == 0 || req.Messages[n-1].Role != helikon.RoleTool) {
		script = mock.ToolCalls(m.calls...)
	}
	return mock.New([]mock.Script{script}, mock.WithDelay(m.delay)).Invoke(ctx, req)
}

func (m *turnModel) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

// Provider and ModelID name the model, so the run's price table prices it.
func (m *turnModel) Provider() string { return "mock" }

// ModelID is the id the price table knows.
func (m *turnModel) ModelID() string { return "mock-1" }

func (m *turnModel) requests() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int(nil), m.seen...)
}

// hostile is model text that would run script if the UI parsed it as HTML.
const hostile = `<img src=x onerror="document.body.dataset.pwned=1"> January: 2,098 <b>USD</b>`

type monthArgs struct {
	Month string `json:"month"`
}

type mailArgs struct {
	To string `json:"to"`
}

// askWrites asks a human about every call that is not read-only.
type askWrites struct{}

func (askWrites) Check(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
	if req.Effect == helikon.ReadOnly {
		return governance.PermissionDecision{Behavior: governance.PermissionAllow}
	}
	return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "send this email?"}
}

type pathArgs struct {
	Path string `json:"path"`
}

// report is the structured answer the reporter agents must give.
type report struct {
	Month string `json:"month"`
	Total int    `json:"total"`
}

// noPasswords trips on a message that asks for a password.
var noPasswords = helikon.GuardrailFunc(func(_ context.Context, _ *helikon.RunContext, in helikon.GuardrailInput) (*helikon.Tripwire, error) {
	if strings.Contains(in.Text, "password") {
		return &helikon.Tripwire{Kind: helikon.GuardrailInputPolicy, Reason: "asks for a password", Info: map[string]string{"matched": "password"}}, nil
	}
	return nil, nil
})

type fixture struct {
	ts        *httptest.Server
	assistant *turnModel
	sends     atomic.Int32
	deletes   atomic.Int32
}

// prices prices the fixture's model: 10 in + 5 out tokens cost $0.000105.
var prices = helikon.Prices{"mock-1": {Input: 3, Output: 15}}

// newFixture serves four agents with the dev UI: assistant (a read-only
// tool call, then a streamed answer), mailer (a call that needs approval),
// streamer (1,000 deltas) and planner (an agent tool over a researcher
// that calls the read-only tool). opts add server options.
func newFixture(t *testing.T, opts ...server.Option) *fixture {
	t.Helper()
	f := &fixture{assistant: &turnModel{
		calls:  []mock.Call{{ID: "c1", Name: "lookup_spending", Args: `{"month":"January"}`}},
		answer: mock.Deltas("In ", "January ", "you ", "spent: ", hostile),
	}}
	lookup := helikon.MustTool("lookup_spending", "Look up spending for a month.", func(_ *helikon.ToolContext, in monthArgs) (map[string]any, error) {
		return map[string]any{"month": in.Month, "total": 2098, "categories": map[string]int{"rent": 1500, "food": 598}}, nil
	}, helikon.WithEffect(helikon.ReadOnly))
	send := helikon.MustTool("send_email", "Send an email.", func(_ *helikon.ToolContext, in mailArgs) (string, error) {
		f.sends.Add(1)
		return "queued for " + in.To, nil
	})
	parts := make([]string, 1000)
	for i := range parts {
		parts[i] = fmt.Sprintf("w%03d ", i)
	}
	agents := []helikon.Agent{
		must(helikon.NewAgent("assistant", f.assistant, helikon.WithTools(lookup), helikon.WithDescription("answers spending questions"))),
		must(helikon.NewAgent("mailer", &turnModel{calls: []mock.Call{{ID: "m1", Name: "send_email", Args: `{"to":"bob"}`}}, answer: mock.Deltas("sent", "!")},
			helikon.WithTools(send))),
		must(helikon.NewAgent("streamer", &turnModel{answer: mock.Deltas(parts...), delay: 500 * time.Microsecond})),
	}
	researcher := must(helikon.NewAgent("researcher", &turnModel{
		calls:  []mock.Call{{ID: "r1", Name: "lookup_spending", Args: `{"month":"March"}`}},
		answer: mock.Deltas("March: 2,098"),
	}, helikon.WithTools(lookup)))
	research := must(helikon.AgentAsTool(researcher))
	agents = append(agents, must(helikon.NewAgent("planner", &turnModel{
		calls:  []mock.Call{{ID: "p1", Name: "researcher", Args: `{"input":"March spending"}`}},
		answer: mock.Deltas("Plan: spend less than 2,098."),
	}, helikon.WithTools(research))))
	agents = append(agents, scriptedAgents(f, lookup, send)...)
	asking := server.DefaultContext(governance.WithPermissionMode(governance.PermissionDefault), governance.WithPermissionPolicy(askWrites{}),
		governance.WithDenyRules(governance.DenyTool("delete_files")), helikon.WithPrices(prices))
	srv, err := server.New(agents, append([]server.Option{server.WithDevUI(), server.WithContextProvider(asking)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	f.ts = httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		f.ts.Close()
	})
	return f
}

// scriptedAgents are the fixture's agents on the scripted mock model, one
// run each: triage (hands off to billing, which calls lookup), guarded (an
// input guardrail that trips on "password"), cleaner (a call the deny
// rules refuse), reporter (a structured answer repaired once), strict (a
// structured answer that stays invalid, so the run fails), outbox (a call
// to reject) and newsletter (the same call twice: Always asks once).
func scriptedAgents(f *fixture, lookup, send helikon.Tool) []helikon.Agent {
	deleteFiles := helikon.MustTool("delete_files", "Delete files under a path.", func(_ *helikon.ToolContext, in pathArgs) (string, error) {
		f.deletes.Add(1)
		return "deleted " + in.Path, nil
	})
	billing := must(helikon.NewAgent("billing", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "b1", Name: "lookup_spending", Args: `{"month":"February"}`}),
		mock.Deltas("February: ", "1,870"),
	), helikon.WithTools(lookup)))
	mailTwice := mock.Call{Name: "send_email", Args: `{"to":"bob"}`}
	first, second := mailTwice, mailTwice
	first.ID, second.ID = "n1", "n2"
	return []helikon.Agent{
		must(helikon.NewAgent("triage", mock.Scripted(mock.ToolCalls(mock.Call{ID: "h1", Name: "transfer_to_billing", Args: `{}`})),
			helikon.WithHandoffs(helikon.HandoffTo(billing)))),
		must(helikon.NewAgent("guarded", mock.Scripted(mock.Text("never shown")), helikon.WithInputGuardrails(noPasswords))),
		must(helikon.NewAgent("cleaner", mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "d1", Name: "delete_files", Args: `{"path":"/"}`}),
			mock.Deltas("I may not delete them."),
		), helikon.WithTools(deleteFiles))),
		must(helikon.NewAgent("reporter", mock.Scripted(mock.Text("about 2,098"), mock.Text(`{"month":"January","total":2098}`)),
			helikon.WithOutput[report]())),
		must(helikon.NewAgent("strict", mock.Scripted(mock.Text("about 2,098"), mock.Text(`{"month":"January"}`)),
			helikon.WithOutput[report]())),
		must(helikon.NewAgent("outbox", mock.Scripted(
			mock.ToolCalls(mock.Call{ID: "o1", Name: "send_email", Args: `{"to":"bob"}`}),
			mock.Deltas("Not sent."),
		), helikon.WithTools(send))),
		must(helikon.NewAgent("newsletter", mock.Scripted(mock.ToolCalls(first), mock.ToolCalls(second), mock.Deltas("Sent ", "twice.")),
			helikon.WithTools(send))),
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestMain closes the shared browser after the tests. The browser tests
// run in parallel (each over its own server, in its own browser context):
// they mostly wait on Chromium, and side by side the package took 48–56 s
// where one at a time it took 89–98 s (alternating runs of both test
// binaries, CI=true, load average 33–36 on the 2-core machine).
func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	os.Exit(code)
}

func TestBrowser_ChatStreamsTheAnswerAndTheTimelineShowsTheToolCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// The first load, as the network saw it.
	var mu sync.Mutex
	transferred := map[network.RequestID]float64{}
	ctx := browsertest.Open(t, func(ev any) {
		if e, ok := ev.(*network.EventLoadingFinished); ok {
			mu.Lock()
			transferred[e.RequestID] = e.EncodedDataLength
			mu.Unlock()
		}
	})
	dir := browsertest.Shots(t)

	browsertest.Do(t, ctx, "load the UI", chromedp.Navigate(f.ts.URL+"/"), browsertest.Until(`document.body.dataset.ready === "true"`))
	if loc := browsertest.Eval[string](t, ctx, "location.pathname"); loc != "/ui/" {
		t.Errorf("/ led to %s", loc)
	}
	mu.Lock()
	total := 0.0
	for _, n := range transferred {
		total += n
	}
	requests := len(transferred)
	mu.Unlock()
	t.Logf("first load: %d requests, %.0f bytes transferred (headers included)", requests, total)
	if total > 150_000 {
		t.Errorf("first load transferred %.0f bytes, over 150 KB", total)
	}

	browsertest.Do(t, ctx, "send a message", chromedp.SetValue(chromedp.CSS("#agent"), "assistant"),
		chromedp.SendKeys(chromedp.CSS("#input"), "How much did I spend in January?"+kb.Enter),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	answer := browsertest.Text(t, ctx, "#chat .msg.assistant .text")
	args := browsertest.Text(t, ctx, `#timeline li[data-tool="lookup_spending"] pre`)
	result := browsertest.Text(t, ctx, `#timeline li[data-tool="lookup_spending"] li[data-type="tool_output_item"] pre`)
	if want := "In January you spent: " + hostile; answer != want {
		t.Errorf("answer %q, want %q", answer, want)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#chat img, #timeline img").length + (document.body.dataset.pwned ? 100 : 0)`); n != 0 {
		t.Errorf("model text became HTML (%d)", n)
	}
	if !strings.Contains(args, `"month": "January"`) || !strings.Contains(result, `"total": 2098`) {
		t.Errorf("timeline args %q, result %q", args, result)
	}
	// Each model call says what it spent; the run's total sums them.
	calls := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#timeline li[data-type="turn_started"] > .head .meta'), (e) => e.textContent)`)
	if len(calls) != 2 || !strings.Contains(calls[0], "mock-1 · 10 in · 5 out tokens · $0.000105") || !strings.Contains(calls[1], "mock-1 · 10 in · 5 out tokens · $0.000105") {
		t.Errorf("model calls say %q, want 10 in · 5 out tokens · $0.000105 each", calls)
	}
	if total := browsertest.Text(t, ctx, "#run-total"); total != "Total: 2 model calls · 20 in · 10 out tokens · $0.000210" {
		t.Errorf("run total %q", total)
	}
	browsertest.Screenshot(t, ctx, dir, "chat.png")

	// A timeline item's raw JSON, closed again with Escape.
	browsertest.Do(t, ctx, "open raw JSON", chromedp.Click(chromedp.CSS(`#timeline li[data-tool="lookup_spending"] > .head > button`)),
		browsertest.Until(`document.getElementById("raw").open`))
	if raw := browsertest.Text(t, ctx, "#raw-json"); !strings.Contains(raw, `"type": "tool_call_item"`) || !strings.Contains(raw, `"type": "tool_output_item"`) {
		t.Errorf("raw JSON %s", raw)
	}
	browsertest.Screenshot(t, ctx, dir, "raw.png")
	browsertest.Do(t, ctx, "close raw JSON", chromedp.KeyEvent(kb.Escape), browsertest.Until(`!document.getElementById("raw").open`))

	// A second turn on the same session: the model sees the first one.
	browsertest.Do(t, ctx, "second turn", chromedp.SendKeys(chromedp.CSS("#input"), "And in February?"+kb.Enter),
		browsertest.Until(`document.querySelectorAll("#chat .msg.user").length === 2 && document.body.dataset.runStatus === "completed"`))
	if seen := f.assistant.requests(); len(seen) != 4 || seen[2] <= seen[1] {
		t.Errorf("messages per model request %v: the second run did not see the first", seen)
	}

	// Past runs: the first one, replayed from the event log after a reload.
	resp, err := http.Get(f.ts.URL + "/runs?agent=assistant")
	if err != nil {
		t.Fatal(err)
	}
	var list server.RunList
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list.Runs) != 2 {
		t.Fatalf("runs %+v %v", list, err)
	}
	first := list.Runs[1].ID
	browsertest.Do(t, ctx, "open a past run", chromedp.Reload(), browsertest.Until(`document.body.dataset.ready === "true"`),
		browsertest.Until(`document.querySelectorAll("#runs button[data-run]").length === 2`),
		// Clicked from the page's script: the replay of the session's
		// latest run re-renders the list when it ends, maybe between a
		// lookup and a click from outside.
		browsertest.Until(`(document.querySelector('#runs button[data-run="`+first+`"]').click(), true)`),
		browsertest.Until(`document.body.dataset.runStatus === "completed" && document.getElementById("run-id").textContent === "`+first+`"`),
		browsertest.Until(`document.querySelector('#timeline li[data-tool="lookup_spending"] li[data-type="tool_output_item"]') !== null`))
	if input := browsertest.Text(t, ctx, "#chat .msg.user .text"); input != "How much did I spend in January?" {
		t.Errorf("past run's input %q", input)
	}
	browsertest.Screenshot(t, ctx, dir, "past-run.png")

	// Dark, and a narrow window.
	browsertest.Do(t, ctx, "dark theme", chromedp.Click(chromedp.CSS("#theme")))
	if theme := browsertest.Eval[string](t, ctx, "document.documentElement.dataset.theme"); theme != "dark" {
		t.Errorf("theme %q", theme)
	}
	browsertest.Screenshot(t, ctx, dir, "dark.png")
	browsertest.Do(t, ctx, "narrow window", chromedp.EmulateViewport(420, 860))
	if browsertest.Eval[bool](t, ctx, "document.documentElement.scrollWidth > window.innerWidth + 1") {
		t.Error("the page scrolls sideways in a 420 px window")
	}
	browsertest.Screenshot(t, ctx, dir, "narrow.png")
	t.Logf("screenshots in %s", dir)
}

func TestBrowser_ApprovingAPausedCallFromTheKeyboardContinuesTheRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := browsertest.Open(t, nil)
	dir := browsertest.Shots(t)
	browsertest.Do(t, ctx, "pause", chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "mailer"),
		// Sent with the button, not Enter: chromedp dispatches a key's
		// down and char events separately, and on a loaded machine the
		// pause could move the focus to Approve between them, so the
		// sending Enter approved the call (seen under -race in CI).
		chromedp.SendKeys(chromedp.CSS("#input"), "mail bob"),
		chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.body.dataset.runStatus === "paused"`),
		// The card takes the focus, so Enter approves.
		browsertest.Until(`document.activeElement !== null && document.activeElement.dataset.kind === "approve"`))
	if n := f.sends.Load(); n != 0 {
		t.Fatalf("%d emails went out before the approval", n)
	}
	card := browsertest.Text(t, ctx, ".approvals .approval")
	if !strings.Contains(card, "send_email") || !strings.Contains(card, "send this email?") || !strings.Contains(card, `"to": "bob"`) {
		t.Errorf("approval card %q", card)
	}
	browsertest.Screenshot(t, ctx, dir, "approval.png")
	browsertest.Do(t, ctx, "approve with Enter", chromedp.KeyEvent(kb.Enter),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`),
		browsertest.Until(`document.querySelector('#timeline li[data-tool="send_email"] li[data-type="tool_output_item"]') !== null`))
	answer, outcome := browsertest.Text(t, ctx, "#chat .msg.assistant .text"), browsertest.Text(t, ctx, ".approvals .approval .row .meta")
	if answer != "sent!" || outcome != "approved" || f.sends.Load() != 1 {
		t.Errorf("answer %q, outcome %q, %d emails", answer, outcome, f.sends.Load())
	}
}

func TestBrowser_ThousandDeltasRenderInAnimationFrames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := browsertest.Open(t, nil)
	browsertest.Do(t, ctx, "stream 1,000 deltas", chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		browsertest.Until(`(window.helikonPerf = [], window.longTasks = [], new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration) }).observe({ type: "longtask" }), true)`),
		chromedp.SetValue(chromedp.CSS("#agent"), "streamer"),
		chromedp.SendKeys(chromedp.CSS("#input"), "stream"+kb.Enter),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	longTasks := browsertest.Eval[[]float64](t, ctx, "window.longTasks")
	own := browsertest.Eval[[]float64](t, ctx, "window.helikonPerf")
	answer := strings.TrimSpace(browsertest.Text(t, ctx, "#chat .msg.assistant .text"))
	if !strings.HasPrefix(answer, "w000 w001 ") || !strings.HasSuffix(answer, "w998 w999") || strings.Count(answer, " w") != 999 {
		t.Errorf("streamed text: %d chars, %d words, %q…%q", len(answer), len(strings.Fields(answer)), answer[:min(len(answer), 40)], answer[max(0, len(answer)-40):])
	}
	if turn := browsertest.Text(t, ctx, `#timeline li[data-type="turn_started"] > .head .meta`); !strings.Contains(turn, "1000 deltas") {
		t.Errorf("turn item says %q", turn)
	}
	longest := 0.0
	for _, d := range longTasks {
		longest = max(longest, d)
	}
	ownLongest := 0.0
	for _, d := range own {
		ownLongest = max(ownLongest, d)
	}
	// Reported, never asserted: timings depend on the machine's load,
	// which the line says (Linux's /proc/loadavg; empty elsewhere).
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("1,000 deltas: %d long tasks (>50 ms) on the main thread, longest %.0f ms; the UI's own work: %d slices (stream chunks and frames), longest %.1f ms; load %s",
		len(longTasks), longest, len(own), ownLongest, strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))

	// A past run's replay: the log's ~1,000 frames arrive in a few large
	// chunks, the UI's heaviest parse.
	browsertest.Do(t, ctx, "replay the run", chromedp.Click(chromedp.CSS("#refresh")),
		browsertest.Until(`document.querySelector('#runs button[data-run]') !== null`),
		// Clicked from the page's script: the list may be re-rendered
		// between a lookup and a click from outside.
		browsertest.Until(`(window.helikonPerf = [], window.longTasks = [], document.querySelector('#runs button[data-run]').click(), true)`),
		browsertest.Until(`document.body.dataset.runStatus === "completed" && document.querySelector('#timeline li[data-type="run_completed"]') !== null`))
	replayTasks := browsertest.Eval[[]float64](t, ctx, "window.longTasks")
	replayOwn := browsertest.Eval[[]float64](t, ctx, "window.helikonPerf")
	rl, ro := 0.0, 0.0
	for _, d := range replayTasks {
		rl = max(rl, d)
	}
	for _, d := range replayOwn {
		ro = max(ro, d)
	}
	if answer := strings.TrimSpace(browsertest.Text(t, ctx, "#chat .msg.assistant .text")); !strings.HasSuffix(answer, "w998 w999") {
		t.Errorf("replayed answer ends %q", answer[max(0, len(answer)-40):])
	}
	t.Logf("replay of the 1,000-delta run: %d long tasks (>50 ms), longest %.0f ms; the UI's own work: %d slices, longest %.1f ms",
		len(replayTasks), rl, len(replayOwn), ro)
}

func TestBrowser_AnAgentToolsTurnsNestUnderItsCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := browsertest.Open(t, nil)
	dir := browsertest.Shots(t)
	browsertest.Do(t, ctx, "ask the planner", chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "planner"),
		chromedp.SendKeys(chromedp.CSS("#input"), "plan my March"+kb.Enter),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	// The researcher's run sits under the planner's call: its own model
	// calls, its own tool call with its result, its completion.
	const call = `#timeline li[data-tool="researcher"]`
	nested := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll('`+call+` > ol > li'), (e) => e.dataset.type + (e.dataset.tool ? ":" + e.dataset.tool : ""))`)
	want := []string{"run_started", "turn_started", "turn_started", "run_completed", "tool_output_item"}
	if strings.Join(nested, " ") != strings.Join(want, " ") {
		t.Errorf("under the researcher call: %q, want %q", nested, want)
	}
	if r := browsertest.Text(t, ctx, call+` li[data-tool="lookup_spending"] li[data-type="tool_output_item"] pre`); !strings.Contains(r, `"month": "March"`) {
		t.Errorf("the sub-run's tool result %q", r)
	}
	if total := browsertest.Text(t, ctx, "#run-total"); total != "Total: 4 model calls · 40 in · 12 out tokens · $0.000300" {
		t.Errorf("run total %q, want the planner's and the researcher's calls", total)
	}
	// Only the planner talks in the chat.
	if msgs := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#chat .msg.assistant .text"), (e) => e.textContent)`); len(msgs) != 1 || msgs[0] != "Plan: spend less than 2,098." {
		t.Errorf("chat answers %q", msgs)
	}
	browsertest.Screenshot(t, ctx, dir, "agent-tool.png")
}

func TestBrowser_WithABearerTokenTheUIAsksForItAndSendsItOnEveryCall(t *testing.T) {
	t.Parallel()
	var refused atomic.Int32
	auth := server.AuthFunc(func(r *http.Request) (server.Principal, context.Context, error) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			refused.Add(1)
			return server.Principal{}, nil, server.Unauthorized("this server wants a bearer token")
		}
		return server.Principal{ID: "caller"}, r.Context(), nil
	})
	f := newFixture(t, server.WithAuth(auth))
	ctx := browsertest.Open(t, nil)
	dir := browsertest.Shots(t)
	browsertest.Do(t, ctx, "load and be asked", chromedp.Navigate(f.ts.URL+"/"),
		browsertest.Until(`document.getElementById("auth").open && document.activeElement.id === "auth-token"`))
	if why := browsertest.Text(t, ctx, "#auth-why"); why != "this server wants a bearer token" {
		t.Errorf("the dialog says %q", why)
	}
	browsertest.Screenshot(t, ctx, dir, "auth.png")
	browsertest.Do(t, ctx, "a wrong token is asked again", chromedp.SendKeys(chromedp.CSS("#auth-token"), "nope"+kb.Enter),
		browsertest.Until(`document.getElementById("auth").open && document.getElementById("auth-token").value === ""`))
	browsertest.Do(t, ctx, "the right token", chromedp.SendKeys(chromedp.CSS("#auth-token"), "s3cret"+kb.Enter),
		browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "assistant"),
		chromedp.SendKeys(chromedp.CSS("#input"), "How much did I spend in January?"+kb.Enter),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`),
		browsertest.Until(`document.querySelector('#timeline li[data-tool="lookup_spending"] li[data-type="tool_output_item"]') !== null`))
	if tok := browsertest.Eval[string](t, ctx, `sessionStorage.getItem("helikon.token")`); tok != "s3cret" {
		t.Errorf("session storage holds %q", tok)
	}
	// A reload keeps the tab's token: nothing is asked, nothing refused.
	before := refused.Load()
	browsertest.Do(t, ctx, "reload", chromedp.Reload(), browsertest.Until(`document.body.dataset.ready === "true"`),
		browsertest.Until(`document.querySelectorAll("#runs button[data-run]").length === 1`))
	if open := browsertest.Eval[bool](t, ctx, `document.getElementById("auth").open`); open || refused.Load() != before {
		t.Errorf("after a reload: dialog open %v, %d more refusals", open, refused.Load()-before)
	}
}
