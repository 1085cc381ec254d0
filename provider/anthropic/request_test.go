package anthropic_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/providertest"
)

// capture serves a recording and keeps the request.
type capture struct {
	header http.Header
	body   map[string]any
}

func serve(t *testing.T, fixture string, got *capture) string {
	t.Helper()
	rec, err := providertest.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		got.header = r.Header.Clone()
		got.body = nil
		if err := json.Unmarshal(data, &got.body); err != nil {
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

// recordedRequest reads a request body the official Go SDK sent, from the
// go-vcr cassette the fixture was cut from.
func recordedRequest(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Body map[string]any `json:"body"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Body
}

var weather = helikon.ToolDef{Name: "get_weather", Description: "Get weather", Parameters: &jsonschema.Schema{
	Type: "object", Required: []string{"city"},
	Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}, "units": {Type: "string", Enum: []any{"celsius", "fahrenheit"}}},
}}

// The official SDK's requests, recorded against the live API, are the
// reference for the wire shape: the adapter must send the same body for
// the same conversation, with the same pinned version header.
func TestMessages_RequestsMatchTheOfficialSDKRecording(t *testing.T) {
	ask := helikon.UserText("Weather in SF in fahrenheit?")
	turn := helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
		helikon.TextPart{Text: "I'll get the current weather in San Francisco for you in Fahrenheit."},
		helikon.ToolUsePart{CallID: "toolu_01RaX2WYWRWCbaeFHssmGJXG", Name: "get_weather", Args: json.RawMessage(`{"city": "San Francisco", "units": "fahrenheit"}`)},
	}}
	result := helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{
		CallID: "toolu_01RaX2WYWRWCbaeFHssmGJXG", Name: "get_weather",
		Content: []helikon.ContentPart{helikon.TextPart{Text: "The weather in San Francisco is 68 degrees fahrenheit."}},
	}}}
	tests := []struct {
		name, fixture, request string
		messages               []helikon.Item
	}{
		{"first turn", "testdata/tool_call.sse", "testdata/tool_call.request.json", ask},
		{"tool result turn", "testdata/tool_round_trip_answer.sse", "testdata/tool_round_trip_answer.request.json", append(append(ask, turn), result)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got capture
			url := serve(t, tt.fixture, &got)
			m, err := anthropic.Messages("claude-3-7-sonnet-latest", anthropic.WithBaseURL(url), anthropic.WithAPIKey("fake-api-key-for-testing-only"))
			if err != nil {
				t.Fatal(err)
			}
			invoke(t, m, &helikon.ModelRequest{Messages: tt.messages, Tools: []helikon.ToolDef{weather},
				Settings: helikon.ModelSettings{MaxOutputTokens: 512}})
			want := recordedRequest(t, tt.request)
			if !reflect.DeepEqual(got.body, want) {
				g, _ := json.Marshal(got.body)
				w, _ := json.Marshal(want)
				t.Errorf("request body differs from the SDK's:\n got %s\nwant %s", g, w)
			}
			for k, v := range map[string]string{"Anthropic-Version": "2023-06-01", "X-Api-Key": "fake-api-key-for-testing-only", "Content-Type": "application/json"} {
				if got.header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, got.header.Get(k), v)
				}
			}
		})
	}
}

func TestMessages_ThinkingBlocksAndSignaturesGoBackUnchanged(t *testing.T) {
	var got capture
	url := serve(t, "testdata/thinking.sse", &got)
	m := newModel(t, url, anthropic.WithExtendedThinking(2048), anthropic.WithMaxTokens(1024))
	res := invoke(t, m, &helikon.ModelRequest{Messages: helikon.UserText("Divide the previous result by 5.")})

	if th, _ := got.body["thinking"].(map[string]any); th["type"] != "enabled" || th["budget_tokens"] != float64(2048) {
		t.Errorf("thinking = %v, want enabled with budget 2048", got.body["thinking"])
	}
	if mt := got.body["max_tokens"].(float64); mt <= 2048 {
		t.Errorf("max_tokens = %v leaves no room beyond the thinking budget", mt)
	}
	var thinking, signature, text string
	for _, ev := range res.Events {
		switch e := ev.(type) {
		case helikon.ReasoningDelta:
			thinking += e.Text
			signature += e.Signature
		case helikon.TokenDelta:
			text += e.Text
		}
	}
	if thinking != "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185" || !strings.HasPrefix(signature, "EvQBCkYICxgCKkAxhD4") || text != "925 ÷ 5 = 185" {
		t.Fatalf("thinking %q signature %q text %q", thinking, signature, text)
	}

	next := append(helikon.UserText("Divide the previous result by 5."), helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
		helikon.ReasoningPart{Text: thinking, Signature: signature}, helikon.TextPart{Text: text}}},
		helikon.UserText("Thanks")[0])
	invoke(t, m, &helikon.ModelRequest{Messages: next})
	msgs := got.body["messages"].([]any)
	first := msgs[1].(map[string]any)["content"].([]any)[0].(map[string]any)
	want := map[string]any{"type": "thinking", "thinking": thinking, "signature": signature}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("assistant turn starts with %v, want the thinking block %v", first, want)
	}
}

func TestMessages_CacheBreakpointsOnSystemToolsAndTail(t *testing.T) {
	var got capture
	url := serve(t, "testdata/text.sse", &got)
	m := newModel(t, url, anthropic.WithCacheStrategy(anthropic.CacheAll))
	invoke(t, m, &helikon.ModelRequest{
		Messages: []helikon.Item{helikon.SystemItem("Be brief."), helikon.UserText("one")[0],
			{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.TextPart{Text: "two"}}},
			{Role: helikon.RoleUser, Content: []helikon.ContentPart{helikon.TextPart{Text: "three"}, helikon.TextPart{Text: "four"}}}},
		Tools: []helikon.ToolDef{weather, {Name: "other", Description: "x"}},
	})
	eph := map[string]any{"type": "ephemeral"}
	marked := func(v any) bool { return reflect.DeepEqual(v.(map[string]any)["cache_control"], eph) }
	sys := got.body["system"].([]any)
	tools := got.body["tools"].([]any)
	msgs := got.body["messages"].([]any)
	tail := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
	if !marked(sys[len(sys)-1]) || !marked(tools[1]) || !marked(tail[1]) {
		t.Errorf("breakpoints missing: system %v tools %v tail %v", sys, tools, tail)
	}
	if marked(tools[0]) || marked(tail[0]) || marked(msgs[0].(map[string]any)["content"].([]any)[0]) {
		t.Error("breakpoint placed where the strategy did not ask for one")
	}
}

func TestMessages_SystemHoistedAndToolResultsShareOneUserTurn(t *testing.T) {
	var got capture
	url := serve(t, "testdata/text.sse", &got)
	m := newModel(t, url)
	invoke(t, m, &helikon.ModelRequest{Messages: []helikon.Item{
		helikon.SystemItem("First rule."),
		helikon.UserText("go")[0],
		{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			helikon.ToolUsePart{CallID: "a", Name: "t", Args: json.RawMessage(`{}`)},
			helikon.ToolUsePart{CallID: "b", Name: "t"}}},
		helikon.SystemItem("Injected mid-run."),
		{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{CallID: "a", Content: []helikon.ContentPart{helikon.TextPart{Text: "1"}}}}},
		{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{CallID: "b", IsError: true, Content: []helikon.ContentPart{helikon.TextPart{Text: "boom"}}}}},
	}})
	wantSystem := []any{map[string]any{"type": "text", "text": "First rule."}, map[string]any{"type": "text", "text": "Injected mid-run."}}
	if !reflect.DeepEqual(got.body["system"], wantSystem) {
		t.Errorf("system = %v", got.body["system"])
	}
	msgs := got.body["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("got %d messages, want user, assistant, user: %v", len(msgs), msgs)
	}
	results := msgs[2].(map[string]any)["content"].([]any)
	if len(results) != 2 || results[1].(map[string]any)["is_error"] != true || results[0].(map[string]any)["tool_use_id"] != "a" {
		t.Errorf("tool results = %v", results)
	}
	if in := msgs[1].(map[string]any)["content"].([]any)[1].(map[string]any)["input"]; !reflect.DeepEqual(in, map[string]any{}) {
		t.Errorf("tool use without args sent input %v, want {}", in)
	}
}

func TestMessages_StructuredOutputRequest(t *testing.T) {
	rf := &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Name: "weather", Schema: providertest.OutputSchema, Strict: true}
	t.Run("native output_config with a strict schema", func(t *testing.T) {
		var got capture
		url := serve(t, "testdata/structured_output.sse", &got)
		invoke(t, newModel(t, url), &helikon.ModelRequest{Messages: helikon.UserText("x"), Settings: helikon.ModelSettings{ResponseFormat: rf}})
		format := got.body["output_config"].(map[string]any)["format"].(map[string]any)
		sch := format["schema"].(map[string]any)
		if format["type"] != "json_schema" || sch["additionalProperties"] != false || len(sch["required"].([]any)) != 3 {
			t.Errorf("output_config.format = %v", format)
		}
		if _, ok := got.body["tools"]; ok {
			t.Error("native structured output must not add a tool")
		}
	})
	t.Run("forced tool for older models", func(t *testing.T) {
		var got capture
		url := serve(t, "testdata/text.sse", &got)
		invoke(t, newModel(t, url, anthropic.WithToolStructuredOutput()), &helikon.ModelRequest{Messages: helikon.UserText("x"), Settings: helikon.ModelSettings{ResponseFormat: rf}})
		tools := got.body["tools"].([]any)
		if tools[0].(map[string]any)["name"] != "structured_output" ||
			!reflect.DeepEqual(got.body["tool_choice"], map[string]any{"type": "tool", "name": "structured_output"}) {
			t.Errorf("tools %v tool_choice %v", tools, got.body["tool_choice"])
		}
	})
}

func TestMessages_ToolChoiceAndParallelism(t *testing.T) {
	no := false
	tests := []struct {
		name     string
		settings helikon.ModelSettings
		want     any
	}{
		{"required is any", helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceRequired}}, map[string]any{"type": "any"}},
		{"forced tool", helikon.ModelSettings{ToolChoice: helikon.ForceTool("get_weather")}, map[string]any{"type": "tool", "name": "get_weather"}},
		{"no parallel calls", helikon.ModelSettings{ParallelToolCalls: &no}, map[string]any{"type": "auto", "disable_parallel_tool_use": true}},
		{"default leaves it to the API", helikon.ModelSettings{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got capture
			url := serve(t, "testdata/text.sse", &got)
			invoke(t, newModel(t, url), &helikon.ModelRequest{Messages: helikon.UserText("x"), Tools: []helikon.ToolDef{weather}, Settings: tt.settings})
			if !reflect.DeepEqual(got.body["tool_choice"], tt.want) {
				t.Errorf("tool_choice = %v, want %v", got.body["tool_choice"], tt.want)
			}
		})
	}
}

func TestMessages_ImagesAsURLAndBase64(t *testing.T) {
	var got capture
	url := serve(t, "testdata/text.sse", &got)
	invoke(t, newModel(t, url), &helikon.ModelRequest{Messages: []helikon.Item{{Role: helikon.RoleUser, Content: []helikon.ContentPart{
		helikon.TextPart{Text: "compare"},
		helikon.ImagePart{URL: "https://example.com/a.png"},
		helikon.ImagePart{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
	}}}})
	blocks := got.body["messages"].([]any)[0].(map[string]any)["content"].([]any)
	want := []any{
		map[string]any{"type": "text", "text": "compare"},
		map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw=="}},
	}
	if !reflect.DeepEqual(blocks, want) {
		t.Errorf("blocks = %v", blocks)
	}
}

func TestMessages_APIKeyFromOptionOrEnvironmentOnly(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	if _, err := anthropic.Messages("claude-sonnet-4-5"); !errors.Is(err, anthropic.ErrNoAPIKey) {
		t.Errorf("no key: err = %v, want ErrNoAPIKey", err)
	}
	if !strings.Contains(anthropic.ErrNoAPIKey.Error(), "ANTHROPIC_API_KEY") {
		t.Error("the error must name the variable to set")
	}
	t.Setenv("ANTHROPIC_API_KEY", "from-env")
	var got capture
	url := serve(t, "testdata/text.sse", &got)
	m, err := anthropic.Messages("claude-sonnet-4-5", anthropic.WithBaseURL(url))
	if err != nil {
		t.Fatal(err)
	}
	invoke(t, m, &helikon.ModelRequest{Messages: helikon.UserText("x")})
	if got.header.Get("X-Api-Key") != "from-env" {
		t.Errorf("x-api-key = %q, want the environment's", got.header.Get("X-Api-Key"))
	}
	for _, bad := range []anthropic.Option{anthropic.WithExtendedThinking(100), anthropic.WithMaxTokens(0)} {
		if _, err := anthropic.Messages("claude-sonnet-4-5", anthropic.WithAPIKey("k"), bad); err == nil {
			t.Error("invalid option accepted")
		}
	}
}

func TestMessages_UnsupportedResponseFormatFailsBeforeSending(t *testing.T) {
	var got capture
	url := serve(t, "testdata/text.sse", &got)
	res := providertest.Collect(newModel(t, url).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("x"),
		Settings: helikon.ModelSettings{ResponseFormat: &helikon.ResponseFormat{Type: helikon.FormatJSONObject}}}))
	if !errors.Is(res.Err, helikon.ErrModelOther) || !strings.Contains(res.Err.Error(), "json_schema") {
		t.Errorf("err = %v", res.Err)
	}
	if got.body != nil {
		t.Error("the request was sent anyway")
	}
}
