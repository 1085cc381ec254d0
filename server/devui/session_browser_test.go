package devui_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon/internal/browsertest"
	"github.com/paigasus/helikon/server"
)

// TestBrowser_NewSessionStartsAfreshAndChoosingTheFirstContinuesIt talks
// on a first session, starts a new one (whose run sees none of the first),
// then chooses the first again from the session picker with the keyboard:
// the chat shows its earlier turn, and the next run builds on it.
func TestBrowser_NewSessionStartsAfreshAndChoosingTheFirstContinuesIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := browsertest.Open(t, nil)
	const done = `document.body.dataset.runStatus === "completed"`
	users := func() []string {
		return browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#chat .msg.user .text"), (e) => e.textContent)`)
	}
	browsertest.Do(t, ctx, "first session", chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "assistant"),
		chromedp.SendKeys(chromedp.CSS("#input"), "January?"+kb.Enter), browsertest.Until(done))
	first := browsertest.Eval[string](t, ctx, `document.getElementById("session").value`)

	browsertest.Do(t, ctx, "new session", chromedp.Click(chromedp.CSS("#new-session")),
		browsertest.Until(`document.getElementById("session").options.length === 2 && document.querySelectorAll("#chat > *").length === 0`),
		chromedp.SendKeys(chromedp.CSS("#input"), "February?"+kb.Enter), browsertest.Until(done))
	second := browsertest.Eval[string](t, ctx, `document.getElementById("session").value`)
	if second == first || !slices.Equal(users(), []string{"February?"}) {
		t.Errorf("new session %q (first %q) shows %q", second, first, users())
	}

	// The picker lists the newest session first: ArrowDown chooses the
	// first one, as a keyboard user would.
	browsertest.Do(t, ctx, "choose the first session", chromedp.Focus(chromedp.CSS("#session")), chromedp.KeyEvent(kb.ArrowDown),
		browsertest.Until(`document.getElementById("session").value === `+jsString(first)),
		browsertest.Until(`document.querySelector("#chat .msg.assistant") !== null && `+done))
	if got := users(); !slices.Equal(got, []string{"January?"}) {
		t.Errorf("the first session shows %q", got)
	}
	browsertest.Do(t, ctx, "continue it", chromedp.SendKeys(chromedp.CSS("#input"), "And March?"+kb.Enter),
		browsertest.Until(`document.querySelectorAll("#chat .msg.user").length === 2 && `+done))
	if got := users(); !slices.Equal(got, []string{"January?", "And March?"}) {
		t.Errorf("after the second turn the chat shows %q", got)
	}

	// Each run makes two model requests (the call, then the answer); their
	// message counts say what history each run saw.
	seen := f.assistant.requests()
	if len(seen) != 6 {
		t.Fatalf("messages per model request %v, want three runs of two requests", seen)
	}
	if seen[2] != seen[0] {
		t.Errorf("the new session's run started with %d messages, the first run with %d: it saw another session's turns", seen[2], seen[0])
	}
	// The first run's last request, its answer, and the new question.
	if seen[4] != seen[1]+2 {
		t.Errorf("messages per model request %v: the chosen session's run started with %d messages, want %d (its first turn and the new question)", seen, seen[4], seen[1]+2)
	}
	for session, want := range map[string]int{first: 2, second: 1} {
		if n := len(runsOf(t, f, session).Runs); n != want {
			t.Errorf("session %s has %d runs, want %d", session, n, want)
		}
	}
}

func runsOf(t *testing.T, f *fixture, session string) server.RunList {
	t.Helper()
	resp, err := http.Get(f.ts.URL + "/runs?session=" + session)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list server.RunList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	return list
}

// A message is sent trimmed: a newline left in the box (the key event of
// the Enter that sent the last message can land after the box was
// cleared) is no part of the next message, in the chat or in the run.
func TestBrowser_AMessageIsSentWithoutTheWhitespaceAroundIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := browsertest.Open(t, nil)
	browsertest.Do(t, ctx, "send", chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`),
		chromedp.SetValue(chromedp.CSS("#agent"), "assistant"),
		chromedp.SetValue(chromedp.CSS("#input"), "\n  How much in\nJanuary?  \n"),
		chromedp.Click(chromedp.CSS("#send")),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`))
	if got := browsertest.Text(t, ctx, "#chat .msg.user .text"); got != "How much in\nJanuary?" {
		t.Errorf("the chat shows %q, want the message without the whitespace around it", got)
	}
	if box := browsertest.Eval[string](t, ctx, `document.getElementById("input").value`); box != "" {
		t.Errorf("the message box still holds %q", box)
	}
	runs := runsOf(t, f, browsertest.Eval[string](t, ctx, `document.getElementById("session").value`)).Runs
	if len(runs) != 1 || runs[0].Input != "How much in\nJanuary?" {
		t.Errorf("runs of the session %+v, want one whose input is the trimmed message", runs)
	}
}
