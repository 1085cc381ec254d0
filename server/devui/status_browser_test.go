package devui_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/browsertest"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// badgeLooks is a script that renders a run-list badge of each status
// given, as the list does, and returns how each looks: its colour, its
// border's style and its background.
const badgeLooks = `((statuses) => {
  const li = document.createElement("li");
  const out = {};
  document.getElementById("runs").append(li);
  for (const s of statuses) {
    const meta = document.createElement("span");
    meta.className = "meta";
    const badge = document.createElement("span");
    badge.className = "badge s-" + s;
    badge.textContent = s;
    meta.append(badge);
    li.append(meta);
    const cs = getComputedStyle(badge);
    out[s] = cs.color + " " + cs.borderTopStyle + " " + cs.backgroundColor;
  }
  li.remove();
  return out;
})`

// TestBrowser_EveryRunStatusHasABadgeOfItsOwn opens the UI while a run
// waits queued behind another of its session, and checks the run list
// shows it with a queued badge, and that a badge of each status the
// server reports (the OpenAPI document's list) looks like no other's but
// failed and interrupted, which are both errors: queued had no style, so
// its badge took the list's muted text colour, the look of cancelled (and
// of the plain text beside it).
func TestBrowser_EveryRunStatusHasABadgeOfItsOwn(t *testing.T) {
	t.Parallel()
	stuck := must(helikon.NewAgent("stuck", &turnModel{answer: mock.Deltas("never"), delay: time.Hour}))
	srv, err := server.New([]helikon.Agent{stuck}, server.WithDevUI())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		// A done context: the stuck runs are cancelled at once.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_ = srv.Shutdown(ctx)
		ts.Close()
	})
	start := func() server.RunAccepted {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/agents/stuck/runs?mode=async", strings.NewReader(`{"input":"wait"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Session-Id", "one")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var acc server.RunAccepted
		if err := json.NewDecoder(resp.Body).Decode(&acc); err != nil || resp.StatusCode != http.StatusAccepted {
			t.Fatalf("start a run: %d %v", resp.StatusCode, err)
		}
		return acc
	}
	holder := start()
	queued := start()
	if queued.Status != server.StatusQueued {
		t.Fatalf("the second run of the session is %s, want queued", queued.Status)
	}

	resp, err := http.Get(ts.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas struct {
				RunInfo struct {
					Properties struct {
						Status struct {
							Enum []string `json:"enum"`
						} `json:"status"`
					} `json:"properties"`
				} `json:"RunInfo"`
			} `json:"schemas"`
		} `json:"components"`
	}
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	statuses := doc.Components.Schemas.RunInfo.Properties.Status.Enum
	if err != nil || !strings.Contains(strings.Join(statuses, " "), "queued") {
		t.Fatalf("the document's run statuses: %q, %v", statuses, err)
	}

	ctx := browsertest.Open(t, nil)
	browsertest.Do(t, ctx, "load", chromedp.Navigate(ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		browsertest.Until(`document.querySelectorAll("#runs button[data-run]").length === 2`))
	badge := `#runs button[data-run="` + queued.RunID + `"] .badge`
	if got := browsertest.Eval[string](t, ctx, `document.querySelector(`+jsString(badge)+`).className + " " + document.querySelector(`+jsString(badge)+`).textContent`); got != "badge s-queued queued" {
		t.Fatalf("the queued run's badge is %q", got)
	}

	browsertest.Screenshot(t, ctx, browsertest.Shots(t), "queued.png")
	looks := browsertest.Eval[map[string]string](t, ctx, badgeLooks+`(`+jsList(statuses)+`)`)
	sameOnPurpose := map[[2]string]bool{{"failed", "interrupted"}: true, {"interrupted", "failed"}: true}
	for i, a := range statuses {
		for _, b := range statuses[i+1:] {
			if looks[a] == looks[b] && !sameOnPurpose[[2]string{a, b}] {
				t.Errorf("a %s badge looks like a %s one (%s)", a, b, looks[a])
			}
		}
	}

	// Opened, the queued run says it waits; once the holder is cancelled
	// it takes the turn, and its first event says it runs. A message sent
	// meanwhile on the session is queued behind it, and says so.
	browsertest.Do(t, ctx, "open the queued run", chromedp.Click(chromedp.CSS(`#runs button[data-run="`+queued.RunID+`"]`)),
		browsertest.Until(`document.getElementById("run-id").textContent === `+jsString(queued.RunID)),
		browsertest.Until(`document.body.dataset.runStatus === "queued"`))
	if st := browsertest.Text(t, ctx, "#status"); st != "queued: waiting for the session's previous run" {
		t.Errorf("the open queued run's status line says %q", st)
	}
	resp, err = http.Post(ts.URL+"/agents/stuck/runs/"+holder.RunID+"/cancel", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	browsertest.Do(t, ctx, "the queued run takes its turn", browsertest.Until(`document.body.dataset.runStatus === "running"`),
		browsertest.Until(`document.getElementById("status").textContent === "running"`))
	browsertest.Do(t, ctx, "send on the busy session",
		chromedp.SendKeys(chromedp.CSS("#input"), "and then?"), chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.getElementById("run-id").textContent !== `+jsString(queued.RunID)),
		browsertest.Until(`document.body.dataset.runStatus === "queued"`))
	if st := browsertest.Text(t, ctx, "#status"); st != "queued: waiting for the session's previous run" {
		t.Errorf("a run sent on the busy session: the status line says %q", st)
	}
}
