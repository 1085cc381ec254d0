package agentcore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/session/sqlite"
)

const sessionID = "0123456789abcdef0123456789abcdef-01" // 35 characters

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

var add = helikon.MustTool("add", "Adds two integers.", func(tc *helikon.ToolContext, in addArgs) (int, error) {
	return in.A + in.B, nil
}, helikon.WithEffect(helikon.ReadOnly))

// calc answers with one tool round on a fresh mock per run.
func calc(t *testing.T, scripts ...mock.Script) helikon.Agent {
	t.Helper()
	a, err := helikon.NewAgent("calc", mock.New(scripts), helikon.WithTools(add))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func start(t *testing.T, agent helikon.Agent, opts ...agentcore.Option) *httptest.Server {
	t.Helper()
	srv, err := agentcore.New(agent, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

func invoke(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/invocations", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func decode[T any](t *testing.T, r io.Reader) T {
	t.Helper()
	var v T
	if err := json.NewDecoder(r).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

type pingBody struct {
	Status           string `json:"status"`
	TimeOfLastUpdate *int64 `json:"time_of_last_update"`
}

func ping(t *testing.T, url string) pingBody {
	t.Helper()
	resp, err := http.Get(url + "/ping")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("ping = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return decode[pingBody](t, resp.Body)
}

func TestInvocation_PromptAnswersBufferedJSON(t *testing.T) {
	ts := start(t, calc(t, mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`}), mock.Text("It is 42.")))
	resp := invoke(t, ts.URL, `{"prompt":"What is 40+2?"}`, agentcore.SessionHeader, sessionID)
	got := decode[agentcore.Response](t, resp.Body)
	if resp.StatusCode != http.StatusOK || got.Status != "completed" || got.Output != "It is 42." ||
		got.Agent != "calc" || got.SessionID != sessionID || got.Usage.OutputTokens == 0 {
		t.Fatalf("%d %+v", resp.StatusCode, got)
	}
}

func TestInvocation_EventStreamWhenTheClientAcceptsIt(t *testing.T) {
	ts := start(t, calc(t, mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`}), mock.Deltas("It ", "is ", "3.")))
	resp := invoke(t, ts.URL, `{"input":"1+2?"}`, "Accept", "text/event-stream")
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var types []string
	var last string
	for frame := range frames(resp.Body) {
		types = append(types, frame.event)
		last = frame.data
		ev, err := helikon.UnmarshalEvent([]byte(frame.data))
		if err != nil {
			t.Fatalf("frame %q does not decode: %v", frame.data, err)
		}
		if _, ok := ev.(helikon.RunCompleted); ok && frame.event != "run_completed" {
			t.Errorf("event line %q for a run_completed", frame.event)
		}
	}
	want := "run_started turn_started tool_call_delta model_responded tool_call_item tool_output_item turn_started token_delta token_delta token_delta model_responded message_output run_completed"
	if strings.Join(types, " ") != want {
		t.Errorf("events = %v", types)
	}
	if !strings.Contains(last, `"agent":"calc"`) {
		t.Errorf("last frame %s", last)
	}
}

type frame struct{ event, data string }

// frames reads Server-Sent Events frames until the body ends.
func frames(r io.Reader) iter.Seq[frame] {
	return func(yield func(frame) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		var f frame
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				f.event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				f.data = strings.TrimPrefix(line, "data: ")
			case line == "":
				if !yield(f) {
					return
				}
				f = frame{}
			}
		}
	}
}

// sqliteSessions is a session provider on one SQLite file.
func sqliteSessions(t *testing.T) agentcore.SessionFunc {
	t.Helper()
	db, err := sqlite.OpenDB(context.Background(), filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return func(ctx context.Context, id string) (helikon.Session, error) {
		if id == "" {
			return helikon.NewMemorySession(), nil
		}
		return sqlite.Open(ctx, db, id)
	}
}

func TestInvocation_SameSessionIDContinuesTheConversation(t *testing.T) {
	sessions := sqliteSessions(t)
	model := mock.Scripted(mock.Text("Hello, Ada."), mock.Text("You are Ada."))
	agent, err := helikon.NewAgent("greeter", model)
	if err != nil {
		t.Fatal(err)
	}
	ts := start(t, agent, agentcore.WithSessions(sessions))
	for _, prompt := range []string{"I am Ada.", "Who am I?"} {
		resp := invoke(t, ts.URL, `{"prompt":"`+prompt+`"}`, agentcore.SessionHeader, sessionID)
		if got := decode[agentcore.Response](t, resp.Body); got.Status != "completed" {
			t.Fatalf("%+v", got)
		}
	}
	reqs := model.Requests()
	second := reqs[len(reqs)-1].Messages
	var texts []string
	for _, m := range second {
		texts = append(texts, m.Text())
	}
	if got := strings.Join(texts, " | "); got != "I am Ada. | Hello, Ada. | Who am I?" {
		t.Errorf("the second invocation saw %q", got)
	}
	// Another session id starts afresh.
	resp := invoke(t, ts.URL, `{"prompt":"Hi"}`, agentcore.SessionHeader, strings.Repeat("z", 40))
	resp.Body.Close()
	if n := len(model.Requests()[len(model.Requests())-1].Messages); n != 1 {
		t.Errorf("a new session id saw %d messages", n)
	}
}

// hangingModel answers the first turn with a tool call, then streams a delta
// and waits for cancellation.
type hangingModel struct{ calls int }

func (m *hangingModel) Capabilities() helikon.ModelCapabilities { return helikon.ModelCapabilities{} }

func (m *hangingModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	m.calls++
	first := m.calls == 1
	return func(yield func(helikon.ModelEvent, error) bool) {
		if first {
			yield(helikon.ToolCallDelta{CallID: "c1", Name: "add", ArgsDelta: `{"a":2,"b":2}`}, nil)
			yield(helikon.Finish{Reason: helikon.FinishToolCalls}, nil)
			return
		}
		if !yield(helikon.TokenDelta{Text: "Thinking about "}, nil) {
			return
		}
		<-ctx.Done()
		yield(nil, ctx.Err())
	}
}

func TestInvocation_ClientWalkingAwayCancelsTheRunAndTheTurnIsRecorded(t *testing.T) {
	sessions := sqliteSessions(t)
	agent, err := helikon.NewAgent("calc", &hangingModel{}, helikon.WithTools(add))
	if err != nil {
		t.Fatal(err)
	}
	ts := start(t, agent, agentcore.WithSessions(sessions))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/invocations", strings.NewReader(`{"prompt":"2+2?"}`))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(agentcore.SessionHeader, sessionID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	for f := range frames(resp.Body) {
		if f.event == "token_delta" {
			break // the run is in its second turn, waiting on the model
		}
	}
	if got := ping(t, ts.URL); got.Status != agentcore.StatusHealthyBusy {
		t.Errorf("ping during the run = %q", got.Status)
	}
	cancel()
	resp.Body.Close()

	// The runner records the cancelled run's settled turn; wait for it (and
	// for the container to become idle) with a liveness bound.
	session, err := sessions(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		items, err := session.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(items) >= 3 && ping(t, ts.URL).Status == agentcore.StatusHealthy {
			if items[0].Text() != "2+2?" || items[1].Content[0].(helikon.ToolUsePart).Name != "add" ||
				items[2].Role != helikon.RoleTool {
				t.Errorf("recorded %+v", items)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the client left, the session holds %d items and ping says %q", len(items), ping(t, ts.URL).Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestInvocation_BadRequestsAreClear4xx(t *testing.T) {
	ts := start(t, calc(t, mock.Text("unreached")), agentcore.WithMaxBodyBytes(1024))
	cases := []struct {
		name, body  string
		header      []string
		status      int
		code        string
		field, text string
	}{
		{"malformed JSON", `{"prompt":`, nil, 400, "invalid_json", "", "malformed JSON"},
		{"a misspelt member is ignored, leaving nothing to run", `{"promt":"hi"}`, nil, 400, "missing_field", "prompt", "needs a non-empty prompt"},
		{"wrong type", `{"prompt":42}`, nil, 400, "invalid_json", "prompt", "malformed JSON"},
		{"empty body", ``, nil, 400, "invalid_json", "", "malformed JSON"},
		{"nothing to run", `{}`, nil, 400, "missing_field", "prompt", "needs a non-empty prompt"},
		{"two inputs", `{"prompt":"a","input":"b"}`, nil, 400, "bad_request", "prompt", "one of"},
		{"two values", `{"prompt":"a"}{"prompt":"b"}`, nil, 400, "invalid_json", "", "more than one"},
		{"stray bracket after the value", `{"prompt":"a"}]`, nil, 400, "invalid_json", "", "after the value"},
		{"system message", `{"messages":[{"role":"system","content":[{"type":"text","text":"obey"}]}]}`, nil, 400, "bad_request", "messages[0].role", "not accepted"},
		{"empty message", `{"messages":[{"role":"user","content":[]}]}`, nil, 400, "missing_field", "messages[0].content", "needs content"},
		{"too deep", strings.Repeat("[", 600), nil, 400, "invalid_json", "", "malformed JSON"},
		{"nested past MaxJSONDepth", `{"prompt":"hi","x":` + strings.Repeat(`[`, 65) + strings.Repeat(`]`, 65) + `}`, nil, 400, "invalid_json", "", "nested too deeply"},
		{"too large", `{"prompt":"` + strings.Repeat("x", 2000) + `"}`, nil, 413, "body_too_large", "", "exceeds 1024 bytes"},
		{"a form, as curl -d sends it", `prompt=hi`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported_media_type", "Content-Type", "add -H 'Content-Type: application/json'"},
		{"text", `{"prompt":"hi"}`, []string{"Content-Type", "text/plain"}, 415, "unsupported_media_type", "Content-Type", "application/json"},
		{"a JSON look-alike", `{"prompt":"hi"}`, []string{"Content-Type", "application/jsonx"}, 415, "unsupported_media_type", "Content-Type", "application/json"},
		{"a Content-Type that does not parse", `{"prompt":"hi"}`, []string{"Content-Type", "application/json; charset"}, 415, "unsupported_media_type", "Content-Type", "application/json"},
		{"an unknown member nested past MaxJSONDepth", `{"prompt":"hi","meta":` + strings.Repeat(`{"a":`, 65) + `1` + strings.Repeat(`}`, 65) + `}`, nil, 400, "invalid_json", "", "nested too deeply"},
		{"short session id", `{"prompt":"hi"}`, []string{agentcore.SessionHeader, "abc"}, 400, "bad_request", agentcore.SessionHeader, "33 to 256"},
		{"invalid UTF-8", "{\"prompt\":\"\xff\"}", nil, 400, "invalid_json", "", "UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := invoke(t, ts.URL, c.body, c.header...)
			got := decode[agentcore.ErrorBody](t, resp.Body)
			if resp.StatusCode != c.status || got.Error.Code != c.code || got.Error.Field != c.field || !strings.Contains(got.Error.Message, c.text) {
				t.Errorf("%d %+v; want %d, code %s, field %q, message with %q", resp.StatusCode, got.Error, c.status, c.code, c.field, c.text)
			}
		})
	}
}

func TestInvocation_FailedRunIs500WithTheKind(t *testing.T) {
	ts := start(t, calc(t, mock.Fail(&helikon.ModelError{Kind: helikon.ModelRateLimited, Message: "slow down"})))
	resp := invoke(t, ts.URL, `{"prompt":"hi"}`)
	got := decode[agentcore.Response](t, resp.Body)
	if resp.StatusCode != http.StatusInternalServerError || got.Status != "failed" || got.Error == nil || got.Error.Kind != helikon.KindModel {
		t.Fatalf("%d %+v", resp.StatusCode, got)
	}
}

func TestPing_AlwaysCarriesTheTimeOfTheLastStatusChange(t *testing.T) {
	srv, err := agentcore.New(calc(t, mock.Text("x")))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	idle := ping(t, ts.URL)
	if idle.Status != agentcore.StatusHealthy || idle.TimeOfLastUpdate == nil || *idle.TimeOfLastUpdate <= 0 {
		t.Fatalf("idle ping = %+v", idle)
	}
	release := srv.Busy()
	if busy := ping(t, ts.URL); busy.Status != agentcore.StatusHealthyBusy || *busy.TimeOfLastUpdate < *idle.TimeOfLastUpdate {
		t.Errorf("busy ping = %+v", busy)
	}
	release()
	release() // a second release does nothing
	if again := ping(t, ts.URL); again.Status != agentcore.StatusHealthy {
		t.Errorf("after release ping = %+v", again)
	}
}
