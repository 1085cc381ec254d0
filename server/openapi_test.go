//go:build openapi

// The OpenAPI conformance tests check every route's requests and responses
// against the served document with pb33f/libopenapi-validator, whose
// packages take about 300 CPU-seconds to compile on a cold build cache
// (half of the README's test command's compile work): they run with
// -tags openapi, which .ci/run passes to its -race pass.

package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pb33f/jsonschema/v6"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// openAPIValidator fetches the server's document, checks it against the
// OpenAPI 3.1 specification, and returns a validator for traffic and a
// compiled schema for one event.
func openAPIValidator(t *testing.T, base string) (validator.Validator, *jsonschema.Schema) {
	t.Helper()
	resp := get(t, base+"/openapi.json")
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %v", resp.StatusCode, err)
	}
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	if v := doc.GetVersion(); v != "3.1.0" {
		t.Fatalf("version %q", v)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %s: %s", e.Message, e.Reason)
		}
		t.FailNow()
	}
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("openapi.json", parsed); err != nil {
		t.Fatal(err)
	}
	event, err := c.Compile("openapi.json#/components/schemas/Event")
	if err != nil {
		t.Fatal(err)
	}
	return v, event
}

// exchange sends a request and checks its response, and the request
// itself unless it is meant to be malformed, against the document; it
// returns the response with its body read into memory.
func exchange(t *testing.T, v validator.Validator, method, url, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	resp := do(t, method, url, body, header...)
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	ok, errs := v.ValidateHttpResponse(req, resp)
	if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusRequestEntityTooLarge {
		req, _ = http.NewRequest(method, url, strings.NewReader(body))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		okReq, reqErrs := v.ValidateHttpRequest(req)
		ok, errs = ok && okReq, append(errs, reqErrs...)
	}
	if !ok {
		for _, e := range errs {
			t.Errorf("%s %s → %d: %s: %s %v", method, url, resp.StatusCode, e.Message, e.Reason, e.SchemaValidationErrors)
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, data
}

func jsonDecode(data []byte, v any) error { return json.Unmarshal(data, v) }

// checkFrames validates every SSE frame's data against the Event schema.
func checkFrames(t *testing.T, event *jsonschema.Schema, body []byte) int {
	t.Helper()
	n := 0
	for f := range frames(bytes.NewReader(body)) {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(f.data))
		if err != nil {
			t.Fatal(err)
		}
		if err := event.Validate(v); err != nil {
			t.Errorf("%s frame %s: %v", f.event, f.data, err)
		}
		n++
	}
	return n
}

func TestOpenAPI_DocumentIsValid31AndDescribesEveryRouteAndResponse(t *testing.T) {
	auth := server.AuthFunc(func(r *http.Request) (server.Principal, context.Context, error) {
		if r.Header.Get("Authorization") == "Bearer nope" {
			return server.Principal{}, nil, server.Unauthorized("bad token")
		}
		return server.Principal{ID: "caller"}, r.Context(), nil
	})
	var sends atomic.Int32
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0), newAgent(t, "stuck", time.Hour), mailAgent(t, &sends)},
		server.WithAuth(auth), server.WithLimits(server.Limits{MaxBodyBytes: 512, MaxRunsPerSession: 1}), askingContext)
	v, event := openAPIValidator(t, ts.URL)
	u := ts.URL
	ctJSON := []string{"Content-Type", "application/json"}

	exchange(t, v, "GET", u+"/agents", "")
	exchange(t, v, "GET", u+"/openapi.json", "")
	resp, _ := exchange(t, v, "POST", u+"/agents/greeter/runs", `{"input":"hi"}`, ctJSON...)
	id := resp.Header.Get("X-Run-Id")
	exchange(t, v, "POST", u+"/agents/greeter/runs", `{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`, ctJSON...)
	resp, body := exchange(t, v, "POST", u+"/agents/greeter/runs?stream=sse", `{"input":"hi"}`, ctJSON...)
	if resp.Header.Get("Content-Type") != "text/event-stream" || checkFrames(t, event, body) != 8 {
		t.Fatalf("SSE run: %s", body)
	}
	resp, _ = exchange(t, v, "POST", u+"/agents/stuck/runs?mode=async", `{"input":"hi"}`, append(ctJSON, "X-Session-Id", "s")...)
	stuck := resp.Header.Get("X-Run-Id")
	exchange(t, v, "GET", u+"/agents/greeter/runs/"+id, "")
	exchange(t, v, "GET", u+"/runs", "")
	exchange(t, v, "GET", u+"/runs?agent=greeter&session=s&limit=5", "")
	exchange(t, v, "GET", u+"/runs?limit=0", "") // 400
	exchange(t, v, "GET", u+"/sessions", "")
	exchange(t, v, "GET", u+"/agents/greeter/graph", "")
	exchange(t, v, "GET", u+"/eval/dataset", "")                     // 501: no case sink
	exchange(t, v, "POST", u+"/agents/greeter/runs/"+id+"/case", "") // 501
	exchange(t, v, "GET", u+"/agents/stuck/runs/"+stuck, "")
	_, body = exchange(t, v, "GET", u+"/agents/greeter/runs/"+id+"/events", "", "Accept", "text/event-stream")
	checkFrames(t, event, body)
	_, body = exchange(t, v, "GET", u+"/agents/greeter/runs/"+id+"/events?after=2", "", "Last-Event-ID", "3")
	checkFrames(t, event, body)

	// A paused run's approvals, and the decision that continues it.
	resp, body = exchange(t, v, "POST", u+"/agents/mailer/runs", `{"input":"mail bob"}`, ctJSON...)
	var paused server.RunInfo
	if err := jsonDecode(body, &paused); err != nil || paused.Status != server.StatusPaused {
		t.Fatalf("paused run: %s", body)
	}
	exchange(t, v, "GET", u+"/agents/mailer/runs/"+paused.ID+"/approvals", "")
	exchange(t, v, "POST", u+"/agents/mailer/runs/"+paused.ID+"/approvals",
		`{"decisions":[{"id":"`+paused.Pending[0].ID+`","kind":"approve"}]}`, ctJSON...)
	waitStatus(t, u, paused.ID, server.StatusCompleted)
	_, body = exchange(t, v, "GET", u+"/agents/mailer/runs/"+paused.ID+"/events", "")
	if checkFrames(t, event, body) != len(pausedThenContinued) {
		t.Fatalf("paused and continued run's events: %s", body)
	}
	exchange(t, v, "GET", u+"/agents/mailer/runs/"+paused.ID+"/approvals", "") // 409

	// Every error the routes answer.
	exchange(t, v, "GET", u+"/agents", "", "Authorization", "Bearer nope")                                              // 401
	exchange(t, v, "POST", u+"/agents/greeter/runs", `{"input":`, ctJSON...)                                            // 400
	exchange(t, v, "POST", u+"/agents/greeter/runs", `{"input":"`+strings.Repeat("x", 600)+`"}`, ctJSON...)             // 413
	exchange(t, v, "POST", u+"/agents/stuck/runs?mode=async", `{"input":"hi"}`, append(ctJSON, "X-Session-Id", "s")...) // 429
	exchange(t, v, "GET", u+"/agents/greeter/runs/nope", "")                                                            // 404
	exchange(t, v, "GET", u+"/agents/greeter/runs/"+id+"/events", "", "Accept", "application/json")                     // 406
	exchange(t, v, "POST", u+"/agents/stuck/runs/"+stuck+"/cancel", "")                                                 // 200
	exchange(t, v, "POST", u+"/agents/greeter/runs/nope/cancel", "")                                                    // 404

	// The WebSocket upgrade, and each message against the Event schema.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(u, "http")+"/agents/greeter/runs/"+id+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	req, _ := http.NewRequest("GET", u+"/agents/greeter/runs/"+id+"/events", nil)
	resp.Body = io.NopCloser(strings.NewReader(""))
	if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
		t.Errorf("101: %v", errs[0].Message)
	}
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			break
		}
		val, _ := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err := event.Validate(val); err != nil {
			t.Errorf("websocket message %s: %v", data, err)
		}
	}
}

func TestOpenAPI_SchemasComeFromTheGoTypes(t *testing.T) {
	// A member of the Go type appears in the document without anyone
	// writing it there: RunInfo's json tags, the core's Usage.
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)})
	resp := get(t, ts.URL+"/openapi.json")
	doc := decode[map[string]any](t, resp)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	props := func(name string) map[string]any {
		return schemas[name].(map[string]any)["properties"].(map[string]any)
	}
	for _, p := range []string{"id", "agent", "status", "session_id", "created_at", "finished_at", "result", "error"} {
		if props("RunInfo")[p] == nil {
			t.Errorf("RunInfo lacks %q", p)
		}
	}
	for _, p := range []string{"input_tokens", "output_tokens", "cached_input_tokens", "cost"} {
		if props("Usage")[p] == nil {
			t.Errorf("Usage lacks %q", p)
		}
	}
}

func TestOpenAPI_SubRunEventsMatchTheSchemaAndReplayFromTheLog(t *testing.T) {
	sub, err := helikon.AgentAsTool(newAgent(t, "greeter", 0))
	if err != nil {
		t.Fatal(err)
	}
	writer, err := helikon.NewAgent("writer", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "greeter", Args: `{"input":"hi"}`}), mock.Text("done")),
		helikon.WithTools(sub))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := start(t, []helikon.Agent{writer})
	_, event := openAPIValidator(t, ts.URL)
	resp := do(t, "POST", ts.URL+"/agents/writer/runs?stream=sse", `{"input":"go"}`, "Content-Type", "application/json")
	live, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n := checkFrames(t, event, live); n != 16 || !strings.Contains(string(live), "event: sub_run_event\ndata: {\"type\":\"sub_run_event\",\"call_id\":\"c1\",\"tool\":\"greeter\",\"agent\":\"greeter\",\"event\":{\"type\":\"model_responded\"") {
		t.Fatalf("%d frames:\n%s", n, live)
	}
	// The stored log replays the same frames, and each decodes.
	resp = get(t, ts.URL+"/agents/writer/runs/"+resp.Header.Get("X-Run-Id")+"/events", "Accept", "text/event-stream")
	replayed, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(replayed) != string(live) {
		t.Fatalf("replay differs (%v):\n%s\nlive:\n%s", err, replayed, live)
	}
	for f := range frames(bytes.NewReader(replayed)) {
		if _, err := helikon.UnmarshalEvent([]byte(f.data)); err != nil {
			t.Errorf("%s: %v", f.data, err)
		}
	}
}

func TestOpenAPI_EveryOperationDeclaresThe431TheConnectionAnswers(t *testing.T) {
	// ServeListener answers oversized headers 431 before any route runs
	// (TestServeListener_NetHTTPRejectionsAreTheJSONErrorShape), so every
	// operation can get it.
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)})
	doc := decode[map[string]any](t, get(t, ts.URL+"/openapi.json"))
	n := 0
	for path, ops := range doc["paths"].(map[string]any) {
		for method, op := range ops.(map[string]any) {
			n++
			if op.(map[string]any)["responses"].(map[string]any)["431"] == nil {
				t.Errorf("%s %s declares no 431", method, path)
			}
		}
	}
	if n < 8 {
		t.Fatalf("%d operations", n)
	}
}
