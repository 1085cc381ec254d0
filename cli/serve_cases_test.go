package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/internal/browsertest"
)

// TestServe_ASavedCasePassesEvalRun is the round trip of "Save as case":
// a chat with the sample's triage in the dev UI of helikon serve, saved to
// the dataset [eval] names, then helikon eval run on that dataset passes
// with the sample's evaluators (exact_match, tool_trajectory in order).
func TestServe_ASavedCasePassesEvalRun(t *testing.T) {
	ctx := browsertest.Open(t, nil)
	dir := sampleDir(t)
	sidecar := filepath.Join(dir, "agents.toml")
	data, err := os.ReadFile(sidecar)
	if err != nil {
		t.Fatal(err)
	}
	// The sample's [eval] table gains the dataset the UI appends to.
	if err := os.WriteFile(sidecar, []byte(strings.Replace(string(data), "[eval]\n", "[eval]\ndataset = \"saved.jsonl\"\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	url, stop := startServe(t, sidecar)
	browsertest.Do(t, ctx, "ask triage", chromedp.Navigate(url), browsertest.Until(`document.body.dataset.ready === "true"`),
		browsertest.Until(`document.getElementById("save-case").title.includes("saved.jsonl")`),
		chromedp.SetValue(chromedp.CSS("#agent"), "triage"),
		chromedp.SendKeys(chromedp.CSS("#input"), "How much did I spend in January?"+kb.Enter),
		browsertest.Until(`document.body.dataset.runStatus === "completed"`),
		browsertest.Until(`document.getElementById("save-case").getAttribute("aria-disabled") === "false"`),
		chromedp.Click(chromedp.CSS("#save-case")),
		browsertest.Until(`document.querySelector("#chat .case-note") !== null`))
	saved := browsertest.Text(t, ctx, "#chat .case-note")
	if !strings.HasPrefix(saved, "Saved as case run-") || !strings.Contains(saved, "in saved.jsonl: expects transfer_to_budgeting, lookup_spending") {
		t.Errorf("the UI says %q", saved)
	}
	browsertest.Screenshot(t, ctx, browsertest.Shots(t), "saved-case.png")
	// Saving it again is refused: the dataset would no longer load.
	browsertest.Do(t, ctx, "save again", chromedp.Click(chromedp.CSS("#save-case")),
		browsertest.Until(`document.querySelectorAll("#chat .case-note").length === 2`))
	if again := browsertest.Eval[string](t, ctx, `document.querySelectorAll("#chat .case-note")[1].textContent`); !strings.Contains(again, "Not saved") || !strings.Contains(again, "already has a case") {
		t.Errorf("saving twice says %q", again)
	}
	stop()

	path := filepath.Join(dir, "saved.jsonl")
	ds, err := evals.LoadDataset(path)
	if err != nil || len(ds.Cases) != 1 {
		t.Fatalf("the saved dataset: %+v %v", ds, err)
	}
	c := ds.Cases[0]
	if c.Input != "How much did I spend in January?" || !strings.Contains(string(c.Expected), "In January you spent 2098") ||
		strings.Join(c.ExpectedTools, ",") != "transfer_to_budgeting,lookup_spending" || c.Metadata["agent"] != "triage" {
		t.Errorf("the saved case %+v (expected %s)", c, c.Expected)
	}
	r := run(t, context.Background(), "", "--agents", sidecar, "eval", "run", path, "--agent", "triage")
	if r.code != 0 || !strings.Contains(r.out, "1 cases: 1 passed") {
		t.Fatalf("eval run on the saved case: exit %d\n%s\n%s", r.code, r.out, r.errOut)
	}
	t.Logf("eval run:\n%s", r.out)
}

// TestServe_WithoutADatasetSaveAsCaseSaysHowToTurnItOn: the button is off
// and a click explains.
func TestServe_WithoutADatasetSaveAsCaseSaysHowToTurnItOn(t *testing.T) {
	ctx := browsertest.Open(t, nil)
	url, _ := startServe(t, filepath.Join(sampleDir(t), "agents.toml"))
	browsertest.Do(t, ctx, "load", chromedp.Navigate(url), browsertest.Until(`document.body.dataset.ready === "true"`),
		browsertest.Until(`document.getElementById("save-case").title.startsWith("Saving cases is off")`),
		chromedp.Click(chromedp.CSS("#save-case")),
		browsertest.Until(`document.querySelector("#chat .case-note") !== null`))
	if off := browsertest.Eval[string](t, ctx, `document.getElementById("save-case").getAttribute("aria-disabled")`); off != "true" {
		t.Errorf("aria-disabled %q", off)
	}
	if msg := browsertest.Text(t, ctx, "#chat .case-note"); !strings.Contains(msg, "--eval-dataset FILE") || !strings.Contains(msg, "[eval] table of agents.toml") {
		t.Errorf("the UI says %q", msg)
	}
}

// TestServe_TheEvalDatasetFlagNamesTheDataset: --eval-dataset turns saving
// on (and wins over [eval] dataset).
func TestServe_TheEvalDatasetFlagNamesTheDataset(t *testing.T) {
	url, _ := startServe(t, filepath.Join(sampleDir(t), "agents.toml"), "--eval-dataset", filepath.Join(t.TempDir(), "flagged.jsonl"))
	resp, err := http.Get(strings.TrimSuffix(url, "ui/") + "eval/dataset")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Dataset string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK || body.Dataset != "flagged.jsonl" {
		t.Errorf("GET /eval/dataset: %d %+v %v", resp.StatusCode, body, err)
	}
}
