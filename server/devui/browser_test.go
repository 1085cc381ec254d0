package devui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon"
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

func (askWrites) Check(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) helikon.PermissionDecision {
	if req.Effect == helikon.ReadOnly {
		return helikon.PermissionDecision{Behavior: helikon.PermissionAllow}
	}
	return helikon.PermissionDecision{Behavior: helikon.PermissionAskUser, Prompt: "send this email?"}
}

type fixture struct {
	ts        *httptest.Server
	assistant *turnModel
	sends     atomic.Int32
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
	asking := server.DefaultContext(helikon.WithPermissionMode(helikon.PermissionDefault), helikon.WithPermissionPolicy(askWrites{}), helikon.WithPrices(prices))
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

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// chrome is the one headless Chromium the package's browser tests share,
// each in a fresh browser context (its own tab, storage and cache):
// starting a browser is the slowest step on a loaded machine.
var chrome struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	err    error
	exe    string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chrome.cancel != nil {
		chrome.cancel()
	}
	os.Exit(code)
}

// browser opens a tab at 1280×800 in a fresh browser context for the
// test, calling listen with its events. Without Chromium it skips, naming
// the package, outside CI and fails in CI.
func browser(t *testing.T, listen func(ev any)) context.Context {
	t.Helper()
	chrome.once.Do(func() {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				chrome.exe = p
				break
			}
		}
		if chrome.exe == "" {
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(chrome.exe), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 800))
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelBrowser := chromedp.NewContext(alloc)
		chrome.ctx, chrome.cancel = ctx, func() { cancelBrowser(); cancelAlloc() }
		// The first Run starts the browser, which lives as long as ctx.
		chrome.err = chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800))
	})
	if chrome.exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (.ci/run installs it: apt-get install chromium)")
		}
		t.Skip("chromium is not installed: apt-get install chromium")
	}
	if chrome.err != nil {
		t.Fatalf("start chromium: %v", chrome.err)
	}
	copts := []chromedp.ContextOption{chromedp.WithNewBrowserContext()}
	if listen != nil {
		copts = append(copts, chromedp.WithListener(listen))
	}
	ctx, cancelTab := chromedp.NewContext(chrome.ctx, copts...)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	// Generous: the machine may be loaded; this bounds a hang, it times
	// nothing.
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// shots is where screenshots go: $HELIKON_SCREENSHOTS, else a temporary
// directory.
func shots(t *testing.T) string {
	if d := os.Getenv("HELIKON_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// until waits for a JavaScript condition on the page (no sleeps: the
// browser checks it on every animation frame).
func until(cond string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(2*time.Minute))(ctx, t)
		if err != nil {
			err = fmt.Errorf("waiting for %s: %w", cond, err)
		}
		return chromedp.Void{}, err
	}
}

// do runs steps, failing the test with the page's markup when one fails.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
		t.Fatalf("%s: %v\npage: %.4000s", what, err, html)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// text is the text of the first element sel matches.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return v
}

func TestBrowser_ChatStreamsTheAnswerAndTheTimelineShowsTheToolCall(t *testing.T) {
	f := newFixture(t)
	// The first load, as the network saw it.
	var mu sync.Mutex
	transferred := map[network.RequestID]float64{}
	ctx := browser(t, func(ev any) {
		if e, ok := ev.(*network.EventLoadingFinished); ok {
			mu.Lock()
			transferred[e.RequestID] = e.EncodedDataLength
			mu.Unlock()
		}
	})
	dir := shots(t)

	do(t, ctx, "load the UI", chromedp.Navigate(f.ts.URL+"/"), until(`document.body.dataset.ready === "true"`))
	if loc := eval[string](t, ctx, "location.pathname"); loc != "/ui/" {
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

	do(t, ctx, "send a message", chromedp.SetValue(chromedp.CSS("#agent"), "assistant"),
		chromedp.SendKeys(chromedp.CSS("#input"), "How much did I spend in January?"+kb.Enter),
		until(`document.body.dataset.runStatus === "completed"`))
	answer := text(t, ctx, "#chat .msg.assistant .text")
	args := text(t, ctx, `#timeline li[data-tool="lookup_spending"] pre`)
	result := text(t, ctx, `#timeline li[data-tool="lookup_spending"] li[data-type="tool_output_item"] pre`)
	if want := "In January you spent: " + hostile; answer != want {
		t.Errorf("answer %q, want %q", answer, want)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#chat img, #timeline img").length + (document.body.dataset.pwned ? 100 : 0)`); n != 0 {
		t.Errorf("model text became HTML (%d)", n)
	}
	if !strings.Contains(args, `"month": "January"`) || !strings.Contains(result, `"total": 2098`) {
		t.Errorf("timeline args %q, result %q", args, result)
	}
	// Each model call says what it spent; the run's total sums them.
	calls := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#timeline li[data-type="turn_started"] > .head .meta'), (e) => e.textContent)`)
	if len(calls) != 2 || !strings.Contains(calls[0], "mock-1 · 10 in · 5 out tokens · $0.000105") || !strings.Contains(calls[1], "mock-1 · 10 in · 5 out tokens · $0.000105") {
		t.Errorf("model calls say %q, want 10 in · 5 out tokens · $0.000105 each", calls)
	}
	if total := text(t, ctx, "#run-total"); total != "Total: 2 model calls · 20 in · 10 out tokens · $0.000210" {
		t.Errorf("run total %q", total)
	}
	screenshot(t, ctx, dir, "chat.png")

	// A timeline item's raw JSON, closed again with Escape.
	do(t, ctx, "open raw JSON", chromedp.Click(chromedp.CSS(`#timeline li[data-tool="lookup_spending"] > .head > button`)),
		until(`document.getElementById("raw").open`))
	if raw := text(t, ctx, "#raw-json"); !strings.Contains(raw, `"type": "tool_call_item"`) || !strings.Contains(raw, `"type": "tool_output_item"`) {
		t.Errorf("raw JSON %s", raw)
	}
	screenshot(t, ctx, dir, "raw.png")
	do(t, ctx, "close raw JSON", chromedp.KeyEvent(kb.Escape), until(`!document.getElementById("raw").open`))

	// A second turn on the same session: the model sees the first one.
	do(t, ctx, "second turn", chromedp.SendKeys(chromedp.CSS("#input"), "And in February?"+kb.Enter),
		until(`document.querySelectorAll("#chat .msg.user").length === 2 && document.body.dataset.runStatus === "completed"`))
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
	do(t, ctx, "open a past run", chromedp.Reload(), until(`document.body.dataset.ready === "true"`),
		until(`document.querySelectorAll("#runs button[data-run]").length === 2`),
		chromedp.Click(chromedp.CSS(`#runs button[data-run="`+first+`"]`)),
		until(`document.body.dataset.runStatus === "completed" && document.getElementById("run-id").textContent === "`+first+`"`),
		until(`document.querySelector('#timeline li[data-tool="lookup_spending"] li[data-type="tool_output_item"]') !== null`))
	if input := text(t, ctx, "#chat .msg.user .text"); input != "How much did I spend in January?" {
		t.Errorf("past run's input %q", input)
	}
	screenshot(t, ctx, dir, "past-run.png")

	// Dark, and a narrow window.
	do(t, ctx, "dark theme", chromedp.Click(chromedp.CSS("#theme")))
	if theme := eval[string](t, ctx, "document.documentElement.dataset.theme"); theme != "dark" {
		t.Errorf("theme %q", theme)
	}
	screenshot(t, ctx, dir, "dark.png")
	do(t, ctx, "narrow window", chromedp.EmulateViewport(420, 860))
	if eval[bool](t, ctx, "document.documentElement.scrollWidth > window.innerWidth + 1") {
		t.Error("the page scrolls sideways in a 420 px window")
	}
	screenshot(t, ctx, dir, "narrow.png")
	t.Logf("screenshots in %s", dir)
}

func TestBrowser_ApprovingAPausedCallFromTheKeyboardContinuesTheRun(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t, nil)
	dir := shots(t)
	do(t, ctx, "pause", chromedp.Navigate(f.ts.URL+"/ui/"), until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "mailer"),
		chromedp.SendKeys(chromedp.CSS("#input"), "mail bob"+kb.Enter),
		until(`document.body.dataset.runStatus === "paused"`),
		// The card takes the focus, so Enter approves.
		until(`document.activeElement !== null && document.activeElement.dataset.kind === "approve"`))
	if n := f.sends.Load(); n != 0 {
		t.Fatalf("%d emails went out before the approval", n)
	}
	card := text(t, ctx, ".approvals .approval")
	if !strings.Contains(card, "send_email") || !strings.Contains(card, "send this email?") || !strings.Contains(card, `"to": "bob"`) {
		t.Errorf("approval card %q", card)
	}
	screenshot(t, ctx, dir, "approval.png")
	do(t, ctx, "approve with Enter", chromedp.KeyEvent(kb.Enter),
		until(`document.body.dataset.runStatus === "completed"`),
		until(`document.querySelector('#timeline li[data-tool="send_email"] li[data-type="tool_output_item"]') !== null`))
	answer, outcome := text(t, ctx, "#chat .msg.assistant .text"), text(t, ctx, ".approvals .approval .row .meta")
	if answer != "sent!" || outcome != "approved" || f.sends.Load() != 1 {
		t.Errorf("answer %q, outcome %q, %d emails", answer, outcome, f.sends.Load())
	}
}

func TestBrowser_ThousandDeltasRenderInAnimationFrames(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t, nil)
	do(t, ctx, "stream 1,000 deltas", chromedp.Navigate(f.ts.URL+"/ui/"), until(`document.body.dataset.ready === "true"`),
		until(`(window.helikonPerf = [], window.longTasks = [], new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration) }).observe({ type: "longtask" }), true)`),
		chromedp.SetValue(chromedp.CSS("#agent"), "streamer"),
		chromedp.SendKeys(chromedp.CSS("#input"), "stream"+kb.Enter),
		until(`document.body.dataset.runStatus === "completed"`))
	longTasks := eval[[]float64](t, ctx, "window.longTasks")
	own := eval[[]float64](t, ctx, "window.helikonPerf")
	answer := strings.TrimSpace(text(t, ctx, "#chat .msg.assistant .text"))
	if !strings.HasPrefix(answer, "w000 w001 ") || !strings.HasSuffix(answer, "w998 w999") || strings.Count(answer, " w") != 999 {
		t.Errorf("streamed text: %d chars, %d words, %q…%q", len(answer), len(strings.Fields(answer)), answer[:min(len(answer), 40)], answer[max(0, len(answer)-40):])
	}
	if turn := text(t, ctx, `#timeline li[data-type="turn_started"] > .head .meta`); !strings.Contains(turn, "1000 deltas") {
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
	do(t, ctx, "replay the run", chromedp.Click(chromedp.CSS("#refresh")),
		until(`document.querySelector('#runs button[data-run]') !== null`),
		// Clicked from the page's script: the list may be re-rendered
		// between a lookup and a click from outside.
		until(`(window.helikonPerf = [], window.longTasks = [], document.querySelector('#runs button[data-run]').click(), true)`),
		until(`document.body.dataset.runStatus === "completed" && document.querySelector('#timeline li[data-type="run_completed"]') !== null`))
	replayTasks := eval[[]float64](t, ctx, "window.longTasks")
	replayOwn := eval[[]float64](t, ctx, "window.helikonPerf")
	rl, ro := 0.0, 0.0
	for _, d := range replayTasks {
		rl = max(rl, d)
	}
	for _, d := range replayOwn {
		ro = max(ro, d)
	}
	if answer := strings.TrimSpace(text(t, ctx, "#chat .msg.assistant .text")); !strings.HasSuffix(answer, "w998 w999") {
		t.Errorf("replayed answer ends %q", answer[max(0, len(answer)-40):])
	}
	t.Logf("replay of the 1,000-delta run: %d long tasks (>50 ms), longest %.0f ms; the UI's own work: %d slices, longest %.1f ms",
		len(replayTasks), rl, len(replayOwn), ro)
}

func TestBrowser_AnAgentToolsTurnsNestUnderItsCall(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t, nil)
	dir := shots(t)
	do(t, ctx, "ask the planner", chromedp.Navigate(f.ts.URL+"/ui/"), until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "planner"),
		chromedp.SendKeys(chromedp.CSS("#input"), "plan my March"+kb.Enter),
		until(`document.body.dataset.runStatus === "completed"`))
	// The researcher's run sits under the planner's call: its own model
	// calls, its own tool call with its result, its completion.
	const call = `#timeline li[data-tool="researcher"]`
	nested := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('`+call+` > ol > li'), (e) => e.dataset.type + (e.dataset.tool ? ":" + e.dataset.tool : ""))`)
	want := []string{"run_started", "turn_started", "turn_started", "run_completed", "tool_output_item"}
	if strings.Join(nested, " ") != strings.Join(want, " ") {
		t.Errorf("under the researcher call: %q, want %q", nested, want)
	}
	if r := text(t, ctx, call+` li[data-tool="lookup_spending"] li[data-type="tool_output_item"] pre`); !strings.Contains(r, `"month": "March"`) {
		t.Errorf("the sub-run's tool result %q", r)
	}
	if total := text(t, ctx, "#run-total"); total != "Total: 4 model calls · 40 in · 12 out tokens · $0.000300" {
		t.Errorf("run total %q, want the planner's and the researcher's calls", total)
	}
	// Only the planner talks in the chat.
	if msgs := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#chat .msg.assistant .text"), (e) => e.textContent)`); len(msgs) != 1 || msgs[0] != "Plan: spend less than 2,098." {
		t.Errorf("chat answers %q", msgs)
	}
	screenshot(t, ctx, dir, "agent-tool.png")
}

func TestBrowser_WithABearerTokenTheUIAsksForItAndSendsItOnEveryCall(t *testing.T) {
	var refused atomic.Int32
	auth := server.AuthFunc(func(r *http.Request) (context.Context, error) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			refused.Add(1)
			return nil, server.Unauthorized("this server wants a bearer token")
		}
		return r.Context(), nil
	})
	f := newFixture(t, server.WithAuth(auth))
	ctx := browser(t, nil)
	dir := shots(t)
	do(t, ctx, "load and be asked", chromedp.Navigate(f.ts.URL+"/"),
		until(`document.getElementById("auth").open && document.activeElement.id === "auth-token"`))
	if why := text(t, ctx, "#auth-why"); why != "this server wants a bearer token" {
		t.Errorf("the dialog says %q", why)
	}
	screenshot(t, ctx, dir, "auth.png")
	do(t, ctx, "a wrong token is asked again", chromedp.SendKeys(chromedp.CSS("#auth-token"), "nope"+kb.Enter),
		until(`document.getElementById("auth").open && document.getElementById("auth-token").value === ""`))
	do(t, ctx, "the right token", chromedp.SendKeys(chromedp.CSS("#auth-token"), "s3cret"+kb.Enter),
		until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "assistant"),
		chromedp.SendKeys(chromedp.CSS("#input"), "How much did I spend in January?"+kb.Enter),
		until(`document.body.dataset.runStatus === "completed"`),
		until(`document.querySelector('#timeline li[data-tool="lookup_spending"] li[data-type="tool_output_item"]') !== null`))
	if tok := eval[string](t, ctx, `sessionStorage.getItem("helikon.token")`); tok != "s3cret" {
		t.Errorf("session storage holds %q", tok)
	}
	// A reload keeps the tab's token: nothing is asked, nothing refused.
	before := refused.Load()
	do(t, ctx, "reload", chromedp.Reload(), until(`document.body.dataset.ready === "true"`),
		until(`document.querySelectorAll("#runs button[data-run]").length === 1`))
	if open := eval[bool](t, ctx, `document.getElementById("auth").open`); open || refused.Load() != before {
		t.Errorf("after a reload: dialog open %v, %d more refusals", open, refused.Load()-before)
	}
}
