package devui_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/browsertest"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/sqliteindex"
	"github.com/paigasus/helikon/session/sqlite"
)

// reachable is a script that reports, for each selector, why its
// element is not usable: missing, hidden, too small, or covered by
// another element once scrolled into view. An empty list: all usable.
const reachable = `((sels) => sels.flatMap((sel) => {
  const e = document.querySelector(sel);
  if (!e) return [sel + ": missing"];
  e.scrollIntoView({ block: "center", inline: "center" });
  const r = e.getBoundingClientRect();
  if (r.width < 16 || r.height < 16) return [sel + ": " + Math.round(r.width) + "×" + Math.round(r.height) + " px"];
  const x = Math.min(r.left + r.width / 2, innerWidth - 1), y = Math.min(r.top + Math.min(r.height / 2, 12), innerHeight - 1);
  const hit = document.elementFromPoint(x, y);
  return hit && (hit === e || e.contains(hit)) ? [] : [sel + ": covered by " + (hit ? hit.tagName + "#" + hit.id + "." + hit.className : "nothing")];
}))`

// panes and controls are what must be usable at every width.
var (
	panes    = []string{"#runs", "#chat", "#timeline"}
	controls = []string{"#agent", "#session", "#new-session", "#theme", "#refresh", "#input", "#send"}
)

// TestBrowser_EveryPaneAndControlIsUsableAt1280And800And420Pixels opens
// a past run by clicking it at each width, after checking that every pane
// has room and every control can be reached and is not covered.
func TestBrowser_EveryPaneAndControlIsUsableAt1280And800And420Pixels(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var ids []string
	for _, q := range []string{"January?", "February?", "March?"} {
		resp := postRun(t, f.ts.URL, "assistant", q, "layout")
		ids = append(ids, resp.ID)
	}
	ctx := browsertest.Open(t, nil)
	dir := browsertest.Shots(t)
	for i, w := range []struct{ width, height int }{{1280, 800}, {800, 900}, {420, 860}} {
		id := ids[i]
		browsertest.Do(t, ctx, fmt.Sprintf("load at %d px", w.width), chromedp.EmulateViewport(int64(w.width), int64(w.height)),
			chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
			browsertest.Until(`document.querySelectorAll("#runs button[data-run]").length === 3`))
		for _, sel := range panes {
			if h := browsertest.Eval[float64](t, ctx, `document.querySelector("`+sel+`").getBoundingClientRect().height`); h < 80 {
				t.Errorf("at %d px %s is %.0f px high", w.width, sel, h)
			}
		}
		if bad := browsertest.Eval[[]string](t, ctx, reachable+`(`+jsList(append(panes, controls...))+`)`); len(bad) > 0 {
			t.Errorf("at %d px: %s", w.width, strings.Join(bad, "; "))
		}
		if browsertest.Eval[bool](t, ctx, "document.documentElement.scrollWidth > window.innerWidth + 1") {
			t.Errorf("at %d px the page scrolls sideways", w.width)
		}
		// A real click (chromedp scrolls to the button and presses the
		// mouse at its centre), which a covered or zero-height list fails.
		run := `#runs button[data-run="` + id + `"]`
		what := fmt.Sprintf("open a past run at %d px", w.width)
		// The list re-renders when a run's status arrives; a click between
		// finding the button and pressing it finds the node gone, so it is
		// tried again on the re-rendered list (a covered button still fails).
		var err error
		for try := 0; try < 3; try++ {
			err = chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(run)), chromedp.Click(chromedp.CSS(run)))
			if err == nil || !strings.Contains(err.Error(), "Could not find node") {
				break
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		browsertest.Do(t, ctx, what,
			browsertest.Until(`document.getElementById("run-id").textContent === "`+id+`" && document.body.dataset.runStatus === "completed"`),
			browsertest.Until(`document.querySelector('#timeline li[data-tool="lookup_spending"] li[data-type="tool_output_item"]') !== null`))
		if input := browsertest.Text(t, ctx, "#chat .msg.user .text"); input != []string{"January?", "February?", "March?"}[i] {
			t.Errorf("at %d px the opened run shows %q", w.width, input)
		}
		browsertest.Do(t, ctx, "scroll to the top", browsertest.Until(`(scrollTo(0, 0), true)`))
		browsertest.Screenshot(t, ctx, dir, fmt.Sprintf("layout-%d.png", w.width))
	}
}

func jsList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = jsString(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// postRun runs agent on input in session and returns the finished run.
func postRun(t *testing.T, base, agent, input, session string) server.RunInfo {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/agents/"+agent+"/runs", strings.NewReader(`{"input":`+jsString(input)+`}`))
	req.Header.Set("Content-Type", "application/json")
	if session != "" {
		req.Header.Set("X-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info server.RunInfo
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		t.Fatal(err)
	}
	if info.Status != server.StatusCompleted {
		t.Fatalf("run %s: %+v", input, info)
	}
	time.Sleep(2 * time.Millisecond) // distinct creation times: the list's order
	return info
}

// indexedServer serves the greeter agent with the dev UI on the SQLite
// file at path (sessions and run index, as helikon serve --db does) and a
// fresh in-memory event log, at addr ("" for any port). stop shuts it
// down as a restart would.
func indexedServer(t *testing.T, path, addr string) (url string, stop func()) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlite.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	idx, err := sqliteindex.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	greeter := func(context.Context, string) (helikon.Agent, error) {
		return helikon.NewAgent("greeter", mock.Scripted(mock.Deltas("Hello, ", "again")))
	}
	agent, _ := greeter(ctx, "greeter")
	sessions := server.SessionFunc(func(_ context.Context, id string) (helikon.Session, error) {
		if id == "" {
			return helikon.NewMemorySession(), nil
		}
		return sqlite.OpenWithoutMigrate(db, id)
	})
	srv, err := server.New([]helikon.Agent{agent}, server.WithDevUI(), server.WithRunIndex(idx),
		server.WithSessionProvider(sessions), server.WithAgentFactory(greeter))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	if addr != "" {
		ln, err := listenAgain(addr)
		if err != nil {
			t.Fatal(err)
		}
		ts.Listener.Close()
		ts.Listener = ln
	}
	ts.Start()
	var stopped bool
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		ts.Close()
		closeDB(db)
	}
	t.Cleanup(stop)
	return ts.URL, stop
}

func closeDB(db *sql.DB) { _ = db.Close() }

// listenAgain listens on addr, which a server just closed: the port may
// take a moment to be free.
func listenAgain(addr string) (net.Listener, error) {
	var err error
	for range 50 {
		var ln net.Listener
		if ln, err = net.Listen("tcp", addr); err == nil {
			return ln, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, err
}

// TestBrowser_ARestartedServerListsTheEarlierRunsAndSessions runs on a
// server with a SQLite run index, restarts it on the same file and
// address (the same origin: the page's storage is the same), and reloads:
// the runs and the session come from the server's index, and a run whose
// events went with the old event log shows its record.
func TestBrowser_ARestartedServerListsTheEarlierRunsAndSessions(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "helikon.db")
	url, stop := indexedServer(t, path, "")
	ctx := browsertest.Open(t, nil)
	dir := browsertest.Shots(t)
	browsertest.Do(t, ctx, "two turns before the restart", chromedp.Navigate(url+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.SendKeys(chromedp.CSS("#input"), "first question"), chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`),
		chromedp.SendKeys(chromedp.CSS("#input"), "second question"), chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.querySelectorAll("#chat .msg.user").length === 2 && document.body.dataset.runStatus === "completed"`))
	session := browsertest.Eval[string](t, ctx, `document.getElementById("session").value`)
	stop()
	addr := strings.TrimPrefix(url, "http://")
	url2, _ := indexedServer(t, path, addr)
	if url2 != url {
		t.Fatalf("restarted at %s, not %s", url2, url)
	}
	// Storage the page might have kept is cleared: what it lists now can
	// only come from the server.
	browsertest.Do(t, ctx, "reload after the restart", browsertest.Until(`(localStorage.clear(), true)`), chromedp.Reload(),
		browsertest.Until(`document.body.dataset.ready === "true"`),
		browsertest.Until(`document.querySelectorAll("#runs button[data-run]").length === 2`),
		browsertest.Until(`document.getElementById("session").value === `+jsString(session)),
		browsertest.Until(`document.querySelectorAll("#chat .msg.user").length === 2`),
		browsertest.Until(`document.querySelector('#timeline li[data-type="record"]') !== null`))
	runs := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#runs button[data-run] .what"), (e) => e.textContent)`)
	if strings.Join(runs, "|") != "second question|first question" {
		t.Errorf("after the restart the runs are %q", runs)
	}
	if label := browsertest.Eval[string](t, ctx, `document.getElementById("session").selectedOptions[0].textContent`); !strings.HasPrefix(label, "first question · ") {
		t.Errorf("the session is labelled %q", label)
	}
	answers := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#chat .msg.assistant .text"), (e) => e.textContent)`)
	if len(answers) != 2 || answers[1] != "Hello, again" {
		t.Errorf("after the restart the chat answers %q", answers)
	}
	if st := browsertest.Text(t, ctx, "#status"); !strings.Contains(st, "events no longer kept") {
		t.Errorf("status %q", st)
	}
	browsertest.Screenshot(t, ctx, dir, "restart.png")
	// The conversation goes on from the stored session.
	browsertest.Do(t, ctx, "a third turn", chromedp.SendKeys(chromedp.CSS("#input"), "third question"), chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.querySelectorAll("#chat .msg.user").length === 3 && document.body.dataset.runStatus === "completed"`),
		browsertest.Until(`document.querySelectorAll("#runs button[data-run]").length === 3`))
}
