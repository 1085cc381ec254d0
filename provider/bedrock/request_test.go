package bedrock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
)

func TestDetectFamily_StripsCrossRegionPrefixes(t *testing.T) {
	for id, want := range map[string]bedrock.Family{
		"anthropic.claude-3-5-sonnet-20241022-v2:0":        bedrock.FamilyAnthropic,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":     bedrock.FamilyAnthropic,
		"eu.amazon.nova-pro-v1:0":                          bedrock.FamilyNova,
		"ap.amazon.nova-lite-v1:0":                         bedrock.FamilyNova,
		"apac.mistral.pixtral-large-2502-v1:0":             bedrock.FamilyMistral,
		"global.anthropic.claude-sonnet-4-5-20250929-v1:0": bedrock.FamilyAnthropic,
		"amazon.titan-text-premier-v1:0":                   bedrock.FamilyTitan,
		"us.meta.llama3-3-70b-instruct-v1:0":               bedrock.FamilyLlama,
		"cohere.command-r-plus-v1:0":                       bedrock.FamilyCohere,
		"arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-3-7-sonnet-20250219-v1:0": bedrock.FamilyAnthropic,
		"deepseek.r1-v1:0": bedrock.FamilyUnknown,
	} {
		if got := bedrock.DetectFamily(id); got != want {
			t.Errorf("DetectFamily(%q) = %s, want %s", id, got, want)
		}
	}
}

func structuredReq() *helikon.ModelRequest {
	return &helikon.ModelRequest{Messages: helikon.UserText("weather as JSON"), Settings: helikon.ModelSettings{
		ResponseFormat: &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Name: "weather", Schema: providertest.OutputSchema}}}
}

func TestStructuredOutput_ForcedHiddenToolForAnthropicNovaMistral(t *testing.T) {
	// Claude 3.5 Sonnet predates Bedrock's native structured output.
	for _, id := range []string{"anthropic.claude-3-5-sonnet-20241022-v2:0", "us.amazon.nova-pro-v1:0", "mistral.mistral-large-2407-v1:0"} {
		// The recorded tool call stands in for the hidden tool's answer:
		// its tool is renamed to the hidden tool's name.
		fr := loadFrames(t, "testdata/tool_call.jsonl")
		for i := range fr {
			fr[i].payload = bytes.ReplaceAll(fr[i].payload, []byte(`"test-tool"`), []byte(`"structured_output"`))
		}
		f := newFake(t, response{body: encode(t, fr)})
		m := newModel(t, f.URL, id)
		if !m.Capabilities().StructuredOutput {
			t.Errorf("%s: StructuredOutput capability is false", id)
		}
		res := providertest.Collect(m.Invoke(t.Context(), structuredReq()))
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		text, _, _ := collectText(res.Events)
		for _, ev := range res.Events {
			if _, ok := ev.(helikon.ToolCallDelta); ok {
				t.Errorf("%s: the hidden tool surfaced as a call: %+v", id, ev)
			}
		}
		if fin, _ := lastOf[helikon.Finish](res.Events); text != `{"value":"Sparkle Day"}` || fin.Reason != helikon.FinishStop {
			t.Errorf("%s: text %q finish %+v, want the tool input as the answer and stop", id, text, fin)
		}
		tc, _ := json.Marshal(f.lastBody(t)["toolConfig"])
		if !strings.Contains(string(tc), `"toolChoice":{"tool":{"name":"structured_output"}}`) || !strings.Contains(string(tc), `"name":"structured_output"`) {
			t.Errorf("%s: toolConfig = %s", id, tc)
		}
	}
}

func TestStructuredOutput_OtherFamiliesDegradeLoudly(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	f := newFake(t, stream(t, "testdata/text.jsonl"), stream(t, "testdata/text.jsonl"))
	m := newModel(t, f.URL, "us.meta.llama3-3-70b-instruct-v1:0", bedrock.WithLogger(logger))
	if m.Capabilities().StructuredOutput {
		t.Error("Llama reports StructuredOutput")
	}
	for range 2 {
		if res := providertest.Collect(m.Invoke(t.Context(), structuredReq())); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if n := strings.Count(logs.String(), "degrades to plain text"); n != 1 {
		t.Errorf("%d warnings, want one per model:\n%s", n, logs.String())
	}
	if body := f.lastBody(t); body["toolConfig"] != nil || body["outputConfig"] != nil {
		t.Errorf("degraded request carries %v", body)
	}
}

func TestStructuredOutput_NativeForDocumentedModelsAndWhenAsked(t *testing.T) {
	rec, err := recording("testdata/native_structured_output.eventstream.b64")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		opts []bedrock.Option
	}{
		{"us.anthropic.claude-sonnet-4-6", nil}, // the recording's model
		{"global.anthropic.claude-opus-4-5-20251101-v1:0", nil},
		{"qwen.qwen3-32b-v1:0", []bedrock.Option{bedrock.WithNativeStructuredOutput()}},
	} {
		f := newFake(t, response{body: rec.Body})
		m := newModel(t, f.URL, tt.id, tt.opts...)
		if !m.Capabilities().StructuredOutput {
			t.Errorf("%s: StructuredOutput capability is false", tt.id)
		}
		res := providertest.Collect(m.Invoke(t.Context(), structuredReq()))
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		text, _, _ := collectText(res.Events)
		fin, _ := lastOf[helikon.Finish](res.Events)
		u, _ := lastOf[helikon.Usage](res.Events)
		if text != `{"city":"Paris","country":"France"}` || fin.Reason != helikon.FinishStop || u.InputTokens != 180 || u.OutputTokens != 12 {
			t.Errorf("%s: text %q finish %+v usage %+v", tt.id, text, fin, u)
		}
		// The recorded request's outputConfig, whose answer this is:
		// {"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":"<JSON text>","name":"CityLocation"}}}}.
		body := f.lastBody(t)
		var oc struct {
			TextFormat struct {
				Type      string
				Structure struct {
					JSONSchema struct{ Schema, Name string } `json:"jsonSchema"`
				}
			}
		}
		raw, _ := json.Marshal(body["outputConfig"])
		if err := json.Unmarshal(raw, &oc); err != nil || oc.TextFormat.Type != "json_schema" || oc.TextFormat.Structure.JSONSchema.Name != "weather" ||
			!json.Valid([]byte(oc.TextFormat.Structure.JSONSchema.Schema)) || body["toolConfig"] != nil {
			t.Errorf("%s: outputConfig = %s, toolConfig = %v", tt.id, raw, body["toolConfig"])
		}
	}
}

func TestRequest_EveryToolSpecIsRewrittenAndHistoryIsValid(t *testing.T) {
	f := newFake(t, stream(t, "testdata/text.jsonl"))
	m := newModel(t, f.URL, claude)
	tool := helikon.ToolDef{Name: "t", Parameters: &jsonschema.Schema{Schema: "https://json-schema.org/draft/2020-12/schema", Type: "object",
		Properties: map[string]*jsonschema.Schema{"u": {Type: "string", Format: "uri"}}}}
	msgs := append(helikon.UserText("hi"),
		helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.ToolUsePart{CallID: "c1", Name: "t", Args: json.RawMessage(`{"u":`)}}},
		helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{CallID: "c1", IsError: true, Content: []helikon.ContentPart{helikon.TextPart{Text: "invalid arguments"}}}}})
	if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs, Tools: []helikon.ToolDef{tool}})); res.Err != nil {
		t.Fatal(res.Err)
	}
	body := f.lastBody(t)
	tc, _ := json.Marshal(body["toolConfig"])
	if strings.Contains(string(tc), "$schema") || strings.Contains(string(tc), "format") {
		t.Errorf("tool spec not rewritten: %s", tc)
	}
	ms, _ := json.Marshal(body["messages"])
	if !strings.Contains(string(ms), `"input":{"invalid_arguments":"{\"u\":"}`) || !strings.Contains(string(ms), `"status":"error"`) {
		t.Errorf("messages = %s", ms)
	}
}

// TestRequest_ForeignToolUseIDsFitConverse: a session begun on another
// provider holds call ids Converse's toolUseId refuses ([a-zA-Z0-9_.:-]+,
// 1 to 64 characters: an empty id, a 100-character one, one with '/' or a
// space); each goes out as an id that fits, the same for a call and its
// result, different for different calls, while ids that fit (Bedrock's
// own, an OpenAI-compatible "functions.get_weather:0") go out unchanged. The fake checks the body
// against the service model's pattern and length, which refused the
// foreign ids before.
func TestRequest_ForeignToolUseIDsFitConverse(t *testing.T) {
	ids := []string{"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "functions.get_weather:0", "", strings.Repeat("call", 25), "call_1/2", "call 3"}
	const fits = 2 // the first two fit the pattern
	var calls, results []helikon.ContentPart
	for _, id := range ids {
		calls = append(calls, helikon.ToolUsePart{CallID: id, Name: "get_weather", Args: json.RawMessage(`{}`)})
		results = append(results, helikon.ToolResultPart{CallID: id, Content: []helikon.ContentPart{helikon.TextPart{Text: "sunny"}}})
	}
	msgs := append(helikon.UserText("weather?"),
		helikon.Item{Role: helikon.RoleAssistant, Content: calls},
		helikon.Item{Role: helikon.RoleTool, Content: results})
	for turn := range 2 { // the same history twice: the mapping holds across turns
		f := newFake(t, stream(t, "testdata/text.jsonl"))
		m := newModel(t, f.URL, claude)
		if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs})); res.Err != nil {
			t.Fatal(res.Err)
		}
		var body struct {
			Messages []struct {
				Content []struct {
					ToolUse    *struct{ ToolUseID string } `json:"toolUse"`
					ToolResult *struct{ ToolUseID string } `json:"toolResult"`
				} `json:"content"`
			} `json:"messages"`
		}
		raw, _ := json.Marshal(f.lastBody(t)) // lastBody checks it against the service model
		if err := json.Unmarshal(raw, &body); err != nil || len(body.Messages) != 3 {
			t.Fatalf("body %s: %v", raw, err)
		}
		var sent, answered []string
		for _, c := range body.Messages[1].Content {
			sent = append(sent, c.ToolUse.ToolUseID)
		}
		for _, c := range body.Messages[2].Content {
			answered = append(answered, c.ToolResult.ToolUseID)
		}
		if !slices.Equal(sent, answered) || len(sent) != len(ids) {
			t.Fatalf("turn %d: tool uses %q, results %q: want the same ids", turn, sent, answered)
		}
		for i := range fits {
			if sent[i] != ids[i] {
				t.Errorf("id %q, which fits, went out as %q", ids[i], sent[i])
			}
		}
		seen := map[string]bool{}
		for i, id := range sent {
			if seen[id] {
				t.Errorf("id %q sent for two calls", id)
			}
			seen[id] = true
			if i >= fits && id == ids[i] {
				t.Errorf("foreign id %q went out unchanged", id)
			}
		}
	}
}

// TestRequest_CachePointsWhereTheStrategyAndFamilyPlaceThem: with
// WithCacheStrategy a request carries Converse cachePoint blocks after the
// system prompt, the tools and the conversation on Claude, after the
// system prompt and the conversation on Nova (which caches no tools), and
// none on a family without prompt caching or without the option; the fake
// checks each body against the service model.
func TestRequest_CachePointsWhereTheStrategyAndFamilyPlaceThem(t *testing.T) {
	msgs := append([]helikon.Item{helikon.SystemItem("You are terse.")}, helikon.UserText("weather?")...)
	tools := []helikon.ToolDef{providertest.WeatherTool}
	for _, tt := range []struct {
		name, id            string
		cs                  bedrock.CacheStrategy
		system, tools, tail bool
	}{
		{"Claude, all", claude, bedrock.CacheAll, true, true, true},
		{"Claude, tail only", claude, bedrock.CacheStrategy{Tail: true}, false, false, true},
		{"Claude, none asked", claude, bedrock.CacheStrategy{}, false, false, false},
		{"Nova caches no tools", "us.amazon.nova-pro-v1:0", bedrock.CacheAll, true, false, true},
		{"Llama caches nothing", "us.meta.llama3-3-70b-instruct-v1:0", bedrock.CacheAll, false, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, stream(t, "testdata/text.jsonl"))
			m := newModel(t, f.URL, tt.id, bedrock.WithCacheStrategy(tt.cs))
			if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs, Tools: tools})); res.Err != nil {
				t.Fatal(res.Err)
			}
			var body struct {
				System     []map[string]any `json:"system"`
				ToolConfig struct {
					Tools []map[string]any `json:"tools"`
				} `json:"toolConfig"`
				Messages []struct {
					Content []map[string]any `json:"content"`
				} `json:"messages"`
			}
			raw, _ := json.Marshal(f.lastBody(t))
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatal(err)
			}
			endsInCachePoint := func(blocks []map[string]any) bool {
				return len(blocks) > 1 && fmt.Sprint(blocks[len(blocks)-1]["cachePoint"]) == "map[type:default]"
			}
			last := body.Messages[len(body.Messages)-1].Content
			if got := endsInCachePoint(body.System); got != tt.system {
				t.Errorf("system ends in a cache point: %v, want %v (%s)", got, tt.system, raw)
			}
			if got := endsInCachePoint(body.ToolConfig.Tools); got != tt.tools {
				t.Errorf("tools end in a cache point: %v, want %v (%s)", got, tt.tools, raw)
			}
			if got := endsInCachePoint(last); got != tt.tail {
				t.Errorf("conversation ends in a cache point: %v, want %v (%s)", got, tt.tail, raw)
			}
			if n := strings.Count(string(raw), `"cachePoint"`); n > 4 {
				t.Errorf("%d cache points, Converse takes at most 4", n)
			}
		})
	}
}
