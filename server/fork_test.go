package server_test

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// echoModel asks for lookup({"q": question}) on a request that does not
// end with a tool result, and otherwise answers "got: " and that result's
// text: what a fork's edited result does shows in its answer.
type echoModel struct{}

func (echoModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	msgs := req.Messages
	last := msgs[len(msgs)-1]
	script := mock.ToolCalls(mock.Call{ID: "k1", Name: "lookup", Args: `{"q":"x"}`})
	if last.Role == helikon.RoleTool {
		text := ""
		for _, p := range last.Content {
			if r, ok := p.(helikon.ToolResultPart); ok {
				for _, c := range r.Content {
					if t, ok := c.(helikon.TextPart); ok {
						text += t.Text
					}
				}
			}
		}
		script = mock.Text("got: " + text)
	}
	return mock.New([]mock.Script{script}).Invoke(ctx, req)
}

func (echoModel) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

type lookupArgs struct {
	Q string `json:"q" jsonschema:"what to look up"`
}

func lookupAgent(t *testing.T) helikon.Agent {
	t.Helper()
	lookup := helikon.MustTool("lookup", "Look a thing up.", func(_ *helikon.ToolContext, in lookupArgs) (string, error) {
		return "the original value", nil
	}, helikon.WithEffect(helikon.ReadOnly))
	temp := 0.25
	a, err := helikon.NewAgent("finder", echoModel{}, helikon.WithTools(lookup), helikon.WithInstructions("You find things."),
		helikon.WithSettings(helikon.ModelSettings{Temperature: &temp}))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runTo starts an async run of finder (with query's parameters) and waits
// for it to complete.
func runTo(t *testing.T, base, query, input string, header ...string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"input": input})
	acc := decode[server.RunAccepted](t, post(t, base+"/agents/finder/runs?mode=async"+query, string(body), header...))
	waitFor(t, "run "+acc.RunID+" to complete", func() bool {
		return runInfoAs(t, base, acc.RunID, header...).Status == server.StatusCompleted
	})
	return acc.RunID
}

func runInfoAs(t *testing.T, base, id string, header ...string) server.RunInfo {
	t.Helper()
	return decode[server.RunInfo](t, get(t, base+"/agents/finder/runs/"+id, header...))
}

func TestModelCalls_ARunStartedWithCaptureKeepsWhatEachCallWasGivenRedacted(t *testing.T) {
	_, ts := start(t, []helikon.Agent{lookupAgent(t)})
	id := runTo(t, ts.URL, "&capture=calls", "find it; OPENAI_API_KEY=sk-abc123")

	resp, body := send(t, http.MethodGet, ts.URL+"/agents/finder/runs/"+id+"/calls", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("calls: %d %s", resp.StatusCode, body)
	}
	var got server.ModelCalls
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Captured || len(got.Calls) != 2 {
		t.Fatalf("captured %v, %d calls: %s", got.Captured, len(got.Calls), body)
	}
	first, second := got.Calls[0], got.Calls[1]
	if first.Index != 0 || second.Index != 1 || first.Turn != 1 || second.Turn != 2 || first.Agent != "finder" || first.Depth != 0 || !first.Forkable || !second.Forkable {
		t.Errorf("calls: %+v / %+v", first, second)
	}
	req := first.Request
	if len(req.Instructions) != 1 || req.Instructions[0] != "You find things." {
		t.Errorf("instructions %q", req.Instructions)
	}
	if len(req.Tools) != 1 || req.Tools[0].Name != "lookup" || !strings.Contains(string(req.Tools[0].Parameters), "what to look up") {
		t.Errorf("tools %+v", req.Tools)
	}
	if !strings.Contains(string(req.Settings), `"temperature":0.25`) {
		t.Errorf("settings %s", req.Settings)
	}
	if strings.Contains(string(body), "sk-abc123") || !strings.Contains(req.Messages[0].Text(), "OPENAI_API_KEY=***") {
		t.Errorf("the secret was not redacted: %q", req.Messages[0].Text())
	}
	// The second call got the tool round: call and result.
	if n := len(second.Request.Messages); n != 3 || second.Request.Messages[2].Role != helikon.RoleTool {
		t.Errorf("second call's messages: %d", n)
	}

	plain := runTo(t, ts.URL, "", "find it")
	if got := decode[server.ModelCalls](t, get(t, ts.URL+"/agents/finder/runs/"+plain+"/calls")); got.Captured || len(got.Calls) != 0 {
		t.Errorf("a run without capture: %+v", got)
	}
	if resp := post(t, ts.URL+"/agents/finder/runs?capture=all", `{"input":"x"}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("capture=all: %d, want 400", resp.StatusCode)
	}
}

func TestFork_AnEditedToolResultReachesTheModelInANewRunAndTheOriginalIsUntouched(t *testing.T) {
	_, ts := start(t, []helikon.Agent{lookupAgent(t)})
	id := runTo(t, ts.URL, "&capture=calls", "find it")
	before := runInfoAs(t, ts.URL, id)
	beforeEvents := eventsSoFar(t, ts.URL, "finder", id)

	resp, body := send(t, http.MethodPost, ts.URL+"/agents/finder/runs/"+id+"/fork",
		`{"call":1,"tool_results":{"k1":"an edited value"}}`, "Content-Type", "application/json")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("fork: %d %s", resp.StatusCode, body)
	}
	var acc server.RunAccepted
	_ = json.Unmarshal(body, &acc)
	if loc := resp.Header.Get("Location"); loc != "../"+acc.RunID {
		t.Errorf("Location %q", loc)
	}
	waitFor(t, "the fork to complete", func() bool { return runInfoAs(t, ts.URL, acc.RunID).Status == server.StatusCompleted })
	fork := runInfoAs(t, ts.URL, acc.RunID)
	if fork.Result.FinalOutput != "got: an edited value" {
		t.Errorf("the fork answered %q", fork.Result.FinalOutput)
	}
	if fork.ForkOf == nil || fork.ForkOf.RunID != id || fork.ForkOf.Call != 1 || fork.ForkOf.Turn != 2 || fork.Input != "find it" || !strings.HasPrefix(fork.SessionID, "fork-") {
		t.Errorf("the fork's record: %+v", fork)
	}
	// One model call: the fork started at turn 2, its tool did not run again.
	calls := decode[server.ModelCalls](t, get(t, ts.URL+"/agents/finder/runs/"+acc.RunID+"/calls"))
	if len(calls.Calls) != 1 || calls.Calls[0].Turn != 2 {
		t.Errorf("the fork's calls: %+v", calls)
	}
	after := runInfoAs(t, ts.URL, id)
	if !strings.Contains(after.Result.FinalOutput, "the original value") || after.Result.FinalOutput != before.Result.FinalOutput || after.LastEvent != before.LastEvent {
		t.Errorf("the original changed: %q (last event %d) → %q (%d)", before.Result.FinalOutput, before.LastEvent, after.Result.FinalOutput, after.LastEvent)
	}
	if n := eventsSoFar(t, ts.URL, "finder", id); n != beforeEvents {
		t.Errorf("the original has %d events, had %d", n, beforeEvents)
	}

	// From the first boundary, with another question.
	resp, body = send(t, http.MethodPost, ts.URL+"/agents/finder/runs/"+id+"/fork",
		`{"call":0,"user_message":"find another"}`, "Content-Type", "application/json")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("fork at 0: %d %s", resp.StatusCode, body)
	}
	_ = json.Unmarshal(body, &acc)
	waitFor(t, "the second fork to complete", func() bool { return runInfoAs(t, ts.URL, acc.RunID).Status == server.StatusCompleted })
	calls = decode[server.ModelCalls](t, get(t, ts.URL+"/agents/finder/runs/"+acc.RunID+"/calls"))
	if len(calls.Calls) != 2 || calls.Calls[0].Request.Messages[0].Text() != "find another" {
		t.Errorf("the second fork's calls: %+v", calls)
	}
}

func TestFork_RefusesWhatItCannotForkWithATypedError(t *testing.T) {
	_, ts := start(t, []helikon.Agent{lookupAgent(t)})
	kept := runTo(t, ts.URL, "&capture=calls", "find it")
	plain := runTo(t, ts.URL, "", "find it")
	tests := []struct {
		name, run, body string
		status          int
		code            string
	}{
		{"a run that kept no calls", plain, `{"call":0}`, http.StatusConflict, "not_forkable"},
		{"a call past the last", kept, `{"call":2}`, http.StatusConflict, "not_forkable"},
		{"a tool result not yet in the conversation", kept, `{"call":0,"tool_results":{"k1":"x"}}`, http.StatusBadRequest, "bad_request"},
		{"instructions on a server without the dev UI", kept, `{"call":0,"instructions":"Be evil."}`, http.StatusForbidden, "forbidden"},
		{"malformed JSON", kept, `{"call":`, http.StatusBadRequest, "invalid_json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := send(t, http.MethodPost, ts.URL+"/agents/finder/runs/"+tt.run+"/fork", tt.body, "Content-Type", "application/json")
			if resp.StatusCode != tt.status || !strings.Contains(string(body), `"code":"`+tt.code+`"`) {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, body, tt.status, tt.code)
			}
		})
	}
}

func TestFork_InstructionsEditOnADevServerReachesTheModel(t *testing.T) {
	_, ts := start(t, []helikon.Agent{lookupAgent(t)}, server.WithDevUI())
	id := runTo(t, ts.URL, "&capture=calls", "find it")
	acc := decode[server.RunAccepted](t, post(t, ts.URL+"/agents/finder/runs/"+id+"/fork", `{"call":0,"instructions":"You find things fast."}`))
	waitFor(t, "the fork to complete", func() bool { return runInfoAs(t, ts.URL, acc.RunID).Status == server.StatusCompleted })
	calls := decode[server.ModelCalls](t, get(t, ts.URL+"/agents/finder/runs/"+acc.RunID+"/calls"))
	if len(calls.Calls) == 0 || strings.Join(calls.Calls[0].Request.Instructions, "") != "You find things fast." {
		t.Errorf("the fork's instructions: %+v", calls)
	}
}

func TestFork_AnotherPrincipalGets404ForCallsAndFork(t *testing.T) {
	_, ts := start(t, []helikon.Agent{lookupAgent(t)}, bearerAuth)
	alice := []string{"Authorization", "Bearer alice"}
	id := runTo(t, ts.URL, "&capture=calls", "find it", alice...)
	unknown := "00000000-0000-0000-0000-000000000000"
	for _, r := range []struct{ method, path, body string }{
		{http.MethodGet, "/calls", ""},
		{http.MethodPost, "/fork", `{"call":0}`},
	} {
		bob := call(t, ts.URL, "bob", "json", r.method, "/agents/finder/runs/"+id+r.path, r.body)
		none := call(t, ts.URL, "bob", "json", r.method, "/agents/finder/runs/"+unknown+r.path, r.body)
		if bob.status != http.StatusNotFound || strings.ReplaceAll(bob.body, id, unknown) != none.body {
			t.Errorf("%s %s as bob: %d %s; an unknown run: %d %s", r.method, r.path, bob.status, bob.body, none.status, none.body)
		}
		if own := call(t, ts.URL, "alice", "json", r.method, "/agents/finder/runs/"+id+r.path, r.body); own.status >= 300 {
			t.Errorf("%s %s as alice: %d %s", r.method, r.path, own.status, own.body)
		}
	}
}

// send makes a request and returns its response with the body read.
func send(t *testing.T, method, url, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	resp := do(t, method, url, body, header...)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}
