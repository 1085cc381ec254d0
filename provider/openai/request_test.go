package openai_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/openai"
	"github.com/paigasus/helikon/provider/providertest"
	"github.com/paigasus/helikon/schema"
)

type capture struct {
	header http.Header
	raw    []byte
	body   map[string]any
}

func serve(t *testing.T, fixture string, got *capture) string {
	t.Helper()
	rec, err := providertest.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.raw, _ = io.ReadAll(r.Body)
		got.header = r.Header.Clone()
		got.body = nil
		if err := json.Unmarshal(got.raw, &got.body); err != nil {
			t.Errorf("request body is not JSON: %v", err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(rec.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func invoke(t *testing.T, m helikon.Model, req *helikon.ModelRequest) providertest.Result {
	t.Helper()
	res := providertest.Collect(m.Invoke(t.Context(), req))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res
}

func ptr[T any](v T) *T { return &v }

// everything exercises every request feature at once.
var everything = &helikon.ModelRequest{
	Messages: []helikon.Item{
		helikon.SystemItem("Be brief."),
		{Role: helikon.RoleUser, Content: []helikon.ContentPart{
			helikon.TextPart{Text: "What is in these?"},
			helikon.ImagePart{URL: "https://example.com/a.png"},
			helikon.ImagePart{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
		}},
		{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			helikon.ReasoningPart{Text: "thinking", ID: "rs_1", Data: "gAAAA-encrypted"},
			helikon.TextPart{Text: "Let me look."},
			helikon.ToolUsePart{CallID: "call_1", Name: "get_weather", Args: json.RawMessage(`{"city":"Paris"}`)},
		}},
		helikon.SystemItem("Injected mid-run."),
		{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{CallID: "call_1", Name: "get_weather",
			Content: []helikon.ContentPart{helikon.TextPart{Text: `{"c":21}`}}}}},
	},
	Tools: []helikon.ToolDef{providertest.WeatherTool, {Name: "no_args", Description: "takes nothing"}},
	Settings: helikon.ModelSettings{
		Temperature: ptr(0.2), TopP: ptr(0.9), MaxOutputTokens: 300,
		ToolChoice:        helikon.ForceTool("get_weather"),
		ParallelToolCalls: ptr(false),
		ReasoningEffort:   "low",
		ResponseFormat:    &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Name: "weather", Schema: providertest.OutputSchema, Strict: true},
	},
}

func TestChat_RequestCarriesEverySettingInTheReferenceShape(t *testing.T) {
	api := loadAPISchema(t, "CreateChatCompletionRequest.schema.json", "CreateChatCompletionRequest")
	var got capture
	url := serve(t, "testdata/chat/text.sse", &got)
	m, _ := openai.Chat("gpt-4o", openai.WithBaseURL(url), openai.WithAPIKey("sk-test"), openai.WithHeader("OpenAI-Organization", "org-1"))
	invoke(t, m, everything)
	api.check(t, got.raw)

	b := got.body
	if got.header.Get("Authorization") != "Bearer sk-test" || got.header.Get("OpenAI-Organization") != "org-1" {
		t.Errorf("headers = %v", got.header)
	}
	checks := map[string][2]any{
		"stream":                {b["stream"], true},
		"stream_options":        {b["stream_options"], map[string]any{"include_usage": true}},
		"temperature":           {b["temperature"], 0.2},
		"max_completion_tokens": {b["max_completion_tokens"], float64(300)},
		"parallel_tool_calls":   {b["parallel_tool_calls"], false},
		"reasoning_effort":      {b["reasoning_effort"], "low"},
		"tool_choice":           {b["tool_choice"], map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}},
	}
	for k, v := range checks {
		if !reflect.DeepEqual(v[0], v[1]) {
			t.Errorf("%s = %v, want %v", k, v[0], v[1])
		}
	}
	msgs := b["messages"].([]any)
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "system,system,user,assistant,tool" {
		t.Errorf("roles = %v: system messages must be hoisted to the top", roles)
	}
	images := msgs[2].(map[string]any)["content"].([]any)
	if images[1].(map[string]any)["image_url"].(map[string]any)["url"] != "https://example.com/a.png" ||
		images[2].(map[string]any)["image_url"].(map[string]any)["url"] != "data:image/png;base64,iVBORw==" {
		t.Errorf("images = %v", images)
	}
	rf := b["response_format"].(map[string]any)["json_schema"].(map[string]any)
	if rf["strict"] != true || rf["name"] != "weather" || rf["schema"].(map[string]any)["additionalProperties"] != false {
		t.Errorf("response_format = %v", rf)
	}
	noArgs := b["tools"].([]any)[1].(map[string]any)["function"].(map[string]any)["parameters"]
	if !reflect.DeepEqual(noArgs, map[string]any{"type": "object", "properties": map[string]any{}}) {
		t.Errorf("a tool without parameters sent %v", noArgs)
	}
}

func TestResponses_RequestCarriesEverySettingInTheReferenceShape(t *testing.T) {
	api := loadAPISchema(t, "CreateResponse.schema.json", "CreateResponse")
	var got capture
	url := serve(t, "testdata/responses/text.sse", &got)
	m, _ := openai.Responses("gpt-5", openai.WithBaseURL(url), openai.WithAPIKey("sk-test"))
	invoke(t, m, everything)
	api.check(t, got.raw)

	b := got.body
	if !reflect.DeepEqual(b["text"], map[string]any{"format": map[string]any{"type": "json_schema", "name": "weather", "strict": true,
		"schema": b["text"].(map[string]any)["format"].(map[string]any)["schema"]}}) {
		t.Errorf("text = %v", b["text"])
	}
	if !reflect.DeepEqual(b["reasoning"], map[string]any{"effort": "low", "summary": "auto"}) {
		t.Errorf("reasoning = %v", b["reasoning"])
	}
	if !reflect.DeepEqual(b["tool_choice"], map[string]any{"type": "function", "name": "get_weather"}) {
		t.Errorf("tool_choice = %v", b["tool_choice"])
	}
	var types []string
	for _, it := range b["input"].([]any) {
		types = append(types, it.(map[string]any)["type"].(string))
	}
	if strings.Join(types, ",") != "message,message,message,reasoning,message,function_call,function_call_output" {
		t.Errorf("input item types = %v", types)
	}
	rs := b["input"].([]any)[3].(map[string]any)
	if rs["id"] != "rs_1" || rs["encrypted_content"] != "gAAAA-encrypted" {
		t.Errorf("reasoning item = %v: its id and encrypted content must go back unchanged", rs)
	}
}

func TestResponses_PreviousResponseIDSendsOnlyTheNewItems(t *testing.T) {
	var got capture
	url := serve(t, "testdata/responses/text.sse", &got)
	m, _ := openai.Responses("gpt-5", openai.WithBaseURL(url), openai.WithAPIKey("sk-test"))
	req := *everything
	req.Settings = helikon.ModelSettings{PreviousResponseID: "resp_prev"}
	res := invoke(t, m, &req)
	if got.body["previous_response_id"] != "resp_prev" {
		t.Errorf("previous_response_id = %v", got.body["previous_response_id"])
	}
	var types []string
	for _, it := range got.body["input"].([]any) {
		types = append(types, it.(map[string]any)["type"].(string))
	}
	// The instructions (system items) are not part of the stored state and
	// go again; the rest is only what followed the last answer.
	if strings.Join(types, ",") != "message,message,function_call_output" {
		t.Errorf("input item types = %v", types)
	}
	if ri, ok := res.Events[0].(helikon.ResponseInfo); !ok || ri.ID == "" {
		t.Errorf("first event = %#v, want the ResponseInfo that threads the next turn", res.Events[0])
	}
}

func TestResponses_EncryptedReasoningCompletesTheReasoningBlock(t *testing.T) {
	var got capture
	url := serve(t, "testdata/responses/calculator.1.sse", &got)
	m, _ := openai.Responses("gpt-5", openai.WithBaseURL(url), openai.WithAPIKey("sk-test"))
	res := invoke(t, m, &helikon.ModelRequest{Messages: helikon.UserText("12+7")})
	var data, id string
	for _, ev := range res.Events {
		if r, ok := ev.(helikon.ReasoningDelta); ok {
			if r.ID != "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9" {
				t.Fatalf("reasoning delta without its item id: %+v", r)
			}
			data, id = data+r.Data, r.ID
		}
	}
	if !strings.HasPrefix(data, "gAAAAABpPDIVOKrsHNZ0") || id == "" {
		t.Errorf("encrypted content = %.20q", data)
	}
}

func TestChat_InterleavedToolCallDeltasKeepTheirCallIDs(t *testing.T) {
	// The recording streams its two calls one after the other; replaying
	// its chunks interleaved (as a server may send them) must still give
	// every delta the right call id, though only the first names it.
	rec, err := providertest.Load("testdata/chat/parallel_tool_calls.sse")
	if err != nil {
		t.Fatal(err)
	}
	var head, first, second, tail []string
	for ev := range strings.SplitSeq(string(rec.Body), "\n\n") {
		switch {
		case strings.Contains(ev, `"tool_calls":[{"index":0`):
			first = append(first, ev)
		case strings.Contains(ev, `"tool_calls":[{"index":1`):
			second = append(second, ev)
		case len(first) == 0:
			head = append(head, ev)
		default:
			tail = append(tail, ev)
		}
	}
	mixed := head
	for i := 0; i < max(len(first), len(second)); i++ {
		if i < len(first) {
			mixed = append(mixed, first[i])
		}
		if i < len(second) {
			mixed = append(mixed, second[i])
		}
	}
	mixed = append(mixed, tail...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Join(mixed, "\n\n"))
	}))
	defer srv.Close()
	m, _ := openai.Chat("gpt-4o", openai.WithBaseURL(srv.URL), openai.WithAPIKey("k"))
	args := map[string]string{}
	for ev, err := range m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("x")}) {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := ev.(helikon.ToolCallDelta); ok {
			args[d.CallID] += d.ArgsDelta
		}
	}
	want := map[string]string{
		"call_JMW1whyEaYG438VE1OIflxA2": `{"city": "Edinburgh", "country": "GB", "units": "c"}`,
		"call_DNYTawLBoN8fj3KN6qU9N1Ou": `{"ticker": "AAPL", "exchange": "NASDAQ"}`,
	}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("assembled args = %v", args)
	}
}

func TestChat_StrictSchemaItCannotExpressFailsBeforeSending(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { calls.Add(1) }))
	defer srv.Close()
	m, _ := openai.Chat("gpt-4o", openai.WithBaseURL(srv.URL), openai.WithAPIKey("k"))
	mapSchema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"scores": {Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "integer"}}}}
	res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("x"),
		Settings: helikon.ModelSettings{ResponseFormat: &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Schema: mapSchema, Strict: true}}}))
	if !errors.Is(res.Err, helikon.ErrModelOther) || !errors.Is(res.Err, schema.ErrUnsupported) {
		t.Errorf("err = %v, want an Other ModelError wrapping schema.ErrUnsupported", res.Err)
	}
	if calls.Load() != 0 {
		t.Error("the request was sent anyway")
	}
}

func TestConfig_EnvironmentIsReadOnlyAsDocumentedDefaults(t *testing.T) {
	t.Run("no key for OpenAI's own API is an error naming the variable", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "")
		t.Setenv("OPENAI_BASE_URL", "")
		_, err := openai.Chat("gpt-4o")
		if !errors.Is(err, openai.ErrNoAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("an explicitly empty key for OpenAI's own API is an error too", func(t *testing.T) {
		t.Setenv("OPENAI_BASE_URL", "")
		if _, err := openai.Chat("gpt-4o", openai.WithAPIKey("")); !errors.Is(err, openai.ErrNoAPIKey) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("key and base URL from the environment", func(t *testing.T) {
		var got capture
		url := serve(t, "testdata/chat/text.sse", &got)
		t.Setenv("OPENAI_API_KEY", "sk-env")
		t.Setenv("OPENAI_BASE_URL", url+"/")
		m, err := openai.Chat("gpt-4o")
		if err != nil {
			t.Fatal(err)
		}
		invoke(t, m, &helikon.ModelRequest{Messages: helikon.UserText("x")})
		if got.header.Get("Authorization") != "Bearer sk-env" {
			t.Errorf("authorization = %q", got.header.Get("Authorization"))
		}
	})
	t.Run("a compatible server needs no key", func(t *testing.T) {
		var got capture
		url := serve(t, "testdata/chat/text.sse", &got)
		t.Setenv("OPENAI_API_KEY", "sk-env-must-not-leak")
		m, err := openai.Chat("llama3", openai.WithBaseURL(url), openai.WithAPIKey(""))
		if err != nil {
			t.Fatal(err)
		}
		invoke(t, m, &helikon.ModelRequest{Messages: helikon.UserText("x")})
		if a := got.header.Get("Authorization"); a != "" {
			t.Errorf("authorization = %q, want none", a)
		}
	})
	if _, err := openai.Responses(" ", openai.WithAPIKey("k")); err == nil {
		t.Error("empty model id accepted")
	}
}

func TestChat_CallsWithoutIDsGetStableOnes(t *testing.T) {
	// Some OpenAI-compatible servers omit tool-call ids. The recorded tool
	// call with its id removed must still give every delta one call id.
	rec, err := providertest.Load("testdata/chat/tool_call.sse")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.ReplaceAll(string(rec.Body), `"id":"call_CTf1nWJLqSeRgDqaCG27xZ74",`, "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, body) }))
	defer srv.Close()
	m, _ := openai.Chat("local", openai.WithBaseURL(srv.URL), openai.WithAPIKey(""))
	ids := map[string]int{}
	for ev, err := range m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("x")}) {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := ev.(helikon.ToolCallDelta); ok {
			ids[d.CallID]++
		}
	}
	if len(ids) != 1 || ids["call_0"] == 0 {
		t.Errorf("call ids = %v, want every delta on call_0", ids)
	}
}

// No public Responses recording streams two function calls in one turn, so
// this test derives one: the function_call items of the first two recorded
// calculator turns (distinct item and call ids) are merged into one stream
// with their argument deltas interleaved. Every event keeps the recorded
// shape; the adapter must route each delta to its item's call.
func TestResponses_InterleavedFunctionCallsKeepTheirCallIDs(t *testing.T) {
	var head, tail []string
	var calls [2][]string
	for i, f := range []string{"testdata/responses/calculator.1.sse", "testdata/responses/calculator.2.sse"} {
		rec, err := providertest.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for ev := range strings.SplitSeq(strings.TrimSpace(string(rec.Body)), "\n\n") {
			switch {
			case strings.HasPrefix(ev, ":"):
			case strings.Contains(ev, `"fc_`) && !strings.Contains(ev, "response.completed"):
				calls[i] = append(calls[i], ev)
			case i == 0 && strings.Contains(ev, "response.created"):
				head = append(head, ev)
			case i == 0 && strings.Contains(ev, "response.completed"):
				tail = append(tail, ev)
			}
		}
	}
	stream := head
	for j := 0; j < max(len(calls[0]), len(calls[1])); j++ {
		for i := range calls {
			if j < len(calls[i]) {
				stream = append(stream, calls[i][j])
			}
		}
	}
	stream = append(stream, tail...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Join(stream, "\n\n")+"\n\n")
	}))
	defer srv.Close()
	m, _ := openai.Responses("gpt-5", openai.WithBaseURL(srv.URL), openai.WithAPIKey("k"))
	args := map[string]string{}
	var finish helikon.FinishReason
	for ev, err := range m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("x")}) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case helikon.ToolCallDelta:
			args[e.CallID] += e.ArgsDelta
		case helikon.Finish:
			finish = e.Reason
		}
	}
	want := map[string]string{
		"call_AB6AaRZ1FYZB2RwS6A5vbdqn": `{"a":12,"b":7,"op":"add"}`,
		"call_Q6pW65MUgW9vF59BmItYGos3": `{"a":19,"b":3,"op":"multiply"}`,
	}
	if !reflect.DeepEqual(args, want) || finish != helikon.FinishToolCalls {
		t.Errorf("args = %v finish = %s", args, finish)
	}
}

func TestRequests_ToolSettingsOnlyWithTools(t *testing.T) {
	settings := helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceRequired}, ParallelToolCalls: ptr(true)}
	for _, tc := range []struct{ name, fixture string }{{"chat", "testdata/chat/text.sse"}, {"responses", "testdata/responses/text.sse"}} {
		t.Run(tc.name, func(t *testing.T) {
			var got capture
			url := serve(t, tc.fixture, &got)
			var m helikon.Model
			if tc.name == "chat" {
				m, _ = openai.Chat("gpt-4o", openai.WithBaseURL(url), openai.WithAPIKey("k"))
			} else {
				m, _ = openai.Responses("gpt-5", openai.WithBaseURL(url), openai.WithAPIKey("k"))
			}
			invoke(t, m, &helikon.ModelRequest{Messages: helikon.UserText("x"), Settings: settings})
			for _, k := range []string{"tool_choice", "parallel_tool_calls", "tools"} {
				if _, ok := got.body[k]; ok {
					t.Errorf("%s sent on a request without tools", k)
				}
			}
			res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("x"),
				Tools: []helikon.ToolDef{providertest.WeatherTool}, Settings: helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: "sometimes"}}}))
			if !errors.Is(res.Err, helikon.ErrModelOther) {
				t.Errorf("unknown tool choice: err = %v", res.Err)
			}
		})
	}
}

// A reasoning item may carry several summary parts (paragraphs). This test
// derives a second part from calculator.1.sse by replaying its recorded
// part.added and first delta events with summary_index 1; the paragraphs
// must stay apart in the reasoning text.
func TestResponses_ReasoningSummaryPartsStaySeparateParagraphs(t *testing.T) {
	rec, err := providertest.Load("testdata/responses/calculator.1.sse")
	if err != nil {
		t.Fatal(err)
	}
	var stream, extra []string
	for ev := range strings.SplitSeq(strings.TrimSpace(string(rec.Body)), "\n\n") {
		if strings.Contains(ev, `"summary_index":0`) && (strings.Contains(ev, "summary_part.added") || len(extra) == 1 && strings.Contains(ev, "summary_text.delta")) {
			extra = append(extra, strings.ReplaceAll(ev, `"summary_index":0`, `"summary_index":1`))
		}
		stream = append(stream, ev)
		if strings.Contains(ev, "event: response.reasoning_summary_part.done") {
			stream = append(stream, extra...)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Join(stream, "\n\n")+"\n\n")
	}))
	defer srv.Close()
	m, _ := openai.Responses("gpt-5", openai.WithBaseURL(srv.URL), openai.WithAPIKey("k"))
	var text string
	for ev, err := range m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("x")}) {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := ev.(helikon.ReasoningDelta); ok {
			text += d.Text
		}
	}
	const first = "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product."
	if text != first+"\n\n**Calcul" {
		t.Errorf("reasoning = %q", text)
	}
}
