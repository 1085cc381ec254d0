package gemini_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/providertest"
)

// capture serves a recording and keeps what each request sent.
type capture struct {
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	urls    []string
}

func serve(t *testing.T, fixture string) (*httptest.Server, *capture) {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	c := &capture{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.bodies = append(c.bodies, body)
		c.headers = append(c.headers, r.Header.Clone())
		c.urls = append(c.urls, r.URL.String())
		c.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, c
}

func (c *capture) last(t *testing.T) map[string]any {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) == 0 {
		t.Fatal("no request reached the server")
	}
	if strings.Contains(c.urls[len(c.urls)-1], "/v1beta/") {
		checkRequest(t, c.bodies[len(c.bodies)-1])
	} else {
		checkVertexRequest(t, c.bodies[len(c.bodies)-1])
	}
	var v map[string]any
	if err := json.Unmarshal(c.bodies[len(c.bodies)-1], &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestRequest_StructuredOutputWithToolsFailsBeforeSending(t *testing.T) {
	srv, c := serve(t, "testdata/text.sse")
	m := newModel(t, srv.URL)
	rf := &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Schema: providertest.OutputSchema}
	for name, req := range map[string]*helikon.ModelRequest{
		"tools": {Messages: helikon.UserText("hi"), Tools: []helikon.ToolDef{providertest.WeatherTool},
			Settings: helikon.ModelSettings{ResponseFormat: rf}},
		"tool choice": {Messages: helikon.UserText("hi"),
			Settings: helikon.ModelSettings{ResponseFormat: &helikon.ResponseFormat{Type: helikon.FormatJSONObject}, ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceRequired}}},
	} {
		res := providertest.Collect(m.Invoke(t.Context(), req))
		var me *helikon.ModelError
		if !errors.Is(res.Err, gemini.ErrStructuredOutputWithTools) || !errors.As(res.Err, &me) || me.Transient() {
			t.Errorf("%s: err = %v, want a final ModelError wrapping ErrStructuredOutputWithTools", name, res.Err)
		}
	}
	if len(c.bodies) != 0 {
		t.Errorf("%d requests were sent", len(c.bodies))
	}
}

func TestRequest_StructuredOutputIsNative(t *testing.T) {
	srv, c := serve(t, "testdata/text.sse")
	rf := &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Name: "weather", Schema: providertest.OutputSchema}
	req := &helikon.ModelRequest{Messages: helikon.UserText("hi"), Settings: helikon.ModelSettings{ResponseFormat: rf}}

	providertest.Collect(newModel(t, srv.URL).Invoke(t.Context(), req))
	gc := c.last(t)["generationConfig"].(map[string]any)
	if gc["responseMimeType"] != "application/json" || gc["responseJsonSchema"] == nil || gc["responseSchema"] != nil {
		t.Errorf("gemini-3 model: generationConfig = %s, want responseJsonSchema", jsonOf(gc))
	}

	old, err := gemini.New("gemini-2.0-flash", gemini.WithBaseURL(srv.URL), gemini.WithAPIKey("k"))
	if err != nil {
		t.Fatal(err)
	}
	providertest.Collect(old.Invoke(t.Context(), req))
	gc = c.last(t)["generationConfig"].(map[string]any)
	want := `{"properties":{"city":{"type":"STRING"},"temperature":{"type":"NUMBER"},"units":{"enum":["c","f"],"type":"STRING"}},"required":["city"],"type":"OBJECT"}`
	if gc["responseJsonSchema"] != nil || jsonOf(gc["responseSchema"]) != want {
		t.Errorf("gemini-2.0 model: generationConfig = %s, want responseSchema %s", jsonOf(gc), want)
	}
}

func TestSanitizeSchema_RewritesIntoTheOpenAPISubset(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nullable type array", `{"type":["string","null"]}`, `{"nullable":true,"type":"STRING"}`},
		{"const becomes an enum", `{"type":"string","const":"circle"}`, `{"enum":["circle"],"type":"STRING"}`},
		{"oneOf becomes anyOf", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}`},
		{"unsupported keywords stripped", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{"a":{"type":"string","default":"x","examples":["y"]}}}`,
			`{"properties":{"a":{"type":"STRING"}},"type":"OBJECT"}`},
		{"unknown format dropped, known kept", `{"type":"object","properties":{"u":{"type":"string","format":"uri"},"t":{"type":"string","format":"date-time"},"n":{"type":"integer","format":"int64"}}}`,
			`{"properties":{"n":{"format":"int64","type":"INTEGER"},"t":{"format":"date-time","type":"STRING"},"u":{"type":"STRING"}},"type":"OBJECT"}`},
		{"$ref inlined", `{"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}}}},"type":"object","properties":{"p":{"$ref":"#/$defs/P"}}}`,
			`{"properties":{"p":{"properties":{"x":{"type":"NUMBER"}},"type":"OBJECT"}},"type":"OBJECT"}`},
		{"recursion cut to an object", `{"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}},"$ref":"#/$defs/N"}`,
			`{"properties":{"next":{"type":"OBJECT"}},"type":"OBJECT"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(tt.in), &s); err != nil {
				t.Fatal(err)
			}
			got, err := gemini.SanitizeSchema(&s)
			if err != nil {
				t.Fatal(err)
			}
			if jsonOf(got) != tt.want {
				t.Errorf("got  %s\nwant %s", jsonOf(got), tt.want)
			}
		})
	}
	if _, err := gemini.SanitizeSchema(&jsonschema.Schema{Ref: "https://example.com/remote.json"}); err == nil {
		t.Error("a remote $ref was accepted")
	}
}

func TestRequest_ThoughtSignaturesGoBackOnTheirParts(t *testing.T) {
	// Replay the recorded call, feed its events to an assistant item the
	// way the run loop builds it, and check the next request.
	srv, c := serve(t, "testdata/tool_call.sse")
	m := newModel(t, srv.URL)
	first := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("weather?"), Tools: []helikon.ToolDef{providertest.WeatherTool}}))
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	var sig string
	assistant := helikon.Item{Role: helikon.RoleAssistant}
	for _, ev := range first.Events {
		if r, ok := ev.(helikon.ReasoningDelta); ok {
			sig = r.Signature
			assistant.Content = append(assistant.Content, helikon.ReasoningPart{Signature: r.Signature, ID: r.ID})
		}
	}
	if !strings.HasPrefix(sig, "EqsGCqgG") {
		t.Fatalf("no thought signature streamed: %+v", first.Events)
	}
	assistant.Content = append(assistant.Content, helikon.TextPart{Text: "Let me check."},
		helikon.ToolUsePart{CallID: "g1bmv6il", Name: "get_weather", Args: json.RawMessage(`{"city":"San Francisco"}`)},
		// Another provider's signature must not reach Gemini.
		helikon.ReasoningPart{Text: "thinking", Signature: "anthropic-sig"})
	msgs := append(helikon.UserText("weather?"), assistant, helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{
		helikon.ToolResultPart{CallID: "g1bmv6il", Content: []helikon.ContentPart{helikon.TextPart{Text: "sunny"},
			helikon.ImagePart{URL: "https://example.com/map.png"}}}}})
	providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs, Tools: []helikon.ToolDef{providertest.WeatherTool}}))
	body := c.last(t)
	model := body["contents"].([]any)[1].(map[string]any)
	want := `{"parts":[{"text":"Let me check."},{"functionCall":{"args":{"city":"San Francisco"},"id":"g1bmv6il","name":"get_weather"},"thoughtSignature":"` + sig + `"}],"role":"model"}`
	if jsonOf(model) != want {
		t.Errorf("model turn = %s\nwant %s", jsonOf(model), want)
	}
	result := jsonOf(body["contents"].([]any)[2])
	if !strings.Contains(result, `"name":"get_weather"`) || !strings.Contains(result, `"fileData":{"fileUri":"https://example.com/map.png","mimeType":"image/png"}`) {
		t.Errorf("function response = %s, want the call's name and the image as a part", result)
	}
}

func TestRequest_ImagesInlineAndByURI(t *testing.T) {
	srv, c := serve(t, "testdata/text.sse")
	m := newModel(t, srv.URL)
	msgs := []helikon.Item{{Role: helikon.RoleUser, Content: []helikon.ContentPart{
		helikon.TextPart{Text: "what is this?"},
		helikon.ImagePart{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
		helikon.ImagePart{URL: "gs://bucket/cat.jpeg"},
	}}}
	if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs})); res.Err != nil {
		t.Fatal(res.Err)
	}
	got := jsonOf(c.last(t)["contents"])
	want := `[{"parts":[{"text":"what is this?"},{"inlineData":{"data":"iVBORw==","mimeType":"image/png"}},{"fileData":{"fileUri":"gs://bucket/cat.jpeg","mimeType":"image/jpeg"}}],"role":"user"}]`
	if got != want {
		t.Errorf("contents = %s\nwant %s", got, want)
	}
	msgs[0].Content = []helikon.ContentPart{helikon.ImagePart{URL: "https://example.com/picture"}}
	if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs})); res.Err == nil || !strings.Contains(res.Err.Error(), "media type") {
		t.Errorf("an image URL of unknown type: err = %v, want one asking for the media type", res.Err)
	}
}

func TestRequest_ToolChoiceAndSettings(t *testing.T) {
	srv, c := serve(t, "testdata/text.sse")
	m := newModel(t, srv.URL, gemini.WithThinking(1024))
	temp := 0.2
	for mode, want := range map[helikon.ToolChoice]string{
		{Mode: helikon.ToolChoiceAuto}:                      `{"functionCallingConfig":{"mode":"AUTO"}}`,
		{Mode: helikon.ToolChoiceNone}:                      `{"functionCallingConfig":{"mode":"NONE"}}`,
		{Mode: helikon.ToolChoiceRequired}:                  `{"functionCallingConfig":{"mode":"ANY"}}`,
		{Mode: helikon.ToolChoiceTool, Name: "get_weather"}: `{"functionCallingConfig":{"allowedFunctionNames":["get_weather"],"mode":"ANY"}}`,
	} {
		req := &helikon.ModelRequest{Messages: helikon.UserText("hi"), Tools: []helikon.ToolDef{providertest.WeatherTool},
			Settings: helikon.ModelSettings{ToolChoice: mode, Temperature: &temp, MaxOutputTokens: 100}}
		if res := providertest.Collect(m.Invoke(t.Context(), req)); res.Err != nil {
			t.Fatal(res.Err)
		}
		body := c.last(t)
		if got := jsonOf(body["toolConfig"]); got != want {
			t.Errorf("%v: toolConfig = %s, want %s", mode, got, want)
		}
		if got := jsonOf(body["generationConfig"]); got != `{"maxOutputTokens":100,"temperature":0.2,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}` {
			t.Errorf("generationConfig = %s", got)
		}
	}
	if got := c.headers[0].Get("X-Goog-Api-Key"); got != "test-key" {
		t.Errorf("x-goog-api-key = %q", got)
	}
}

func TestNew_KeyFromTheDocumentedVariablesOnly(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	if _, err := gemini.New("gemini-2.5-flash"); !errors.Is(err, gemini.ErrNoAPIKey) {
		t.Errorf("no key: err = %v, want ErrNoAPIKey", err)
	}
	srv, c := serve(t, "testdata/text.sse")
	for _, tt := range []struct{ gemini, google, want string }{{"g1", "g2", "g1"}, {"", "g2", "g2"}} {
		t.Setenv("GEMINI_API_KEY", tt.gemini)
		t.Setenv("GOOGLE_API_KEY", tt.google)
		m, err := gemini.New("gemini-2.5-flash", gemini.WithBaseURL(srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
		if got := c.headers[len(c.headers)-1].Get("X-Goog-Api-Key"); got != tt.want {
			t.Errorf("key = %q, want %q", got, tt.want)
		}
	}
	for _, bad := range []string{"", "gemini/../x", "a?b"} {
		if _, err := gemini.New(bad, gemini.WithAPIKey("k")); err == nil {
			t.Errorf("model id %q accepted", bad)
		}
	}
}

func TestVertex_URLAndBearerToken(t *testing.T) {
	if _, err := gemini.Vertex("gemini-2.5-flash", "p"); !errors.Is(err, gemini.ErrNoCredentials) {
		t.Errorf("no credentials: err = %v", err)
	}
	srv, c := serve(t, "testdata/text.sse")
	for loc, path := range map[string]string{
		"":            "/v1/projects/my-proj/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
		"us-central1": "/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
	} {
		opts := []gemini.Option{gemini.WithBaseURL(srv.URL), gemini.WithBearerToken("ya29.tok")}
		if loc != "" {
			opts = append(opts, gemini.WithLocation(loc))
		}
		m, err := gemini.Vertex("gemini-2.5-flash", "my-proj", opts...)
		if err != nil {
			t.Fatal(err)
		}
		if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")})); res.Err != nil {
			t.Fatal(res.Err)
		}
		n := len(c.urls) - 1
		if c.urls[n] != path || c.headers[n].Get("Authorization") != "Bearer ya29.tok" || c.headers[n].Get("X-Goog-Api-Key") != "" {
			t.Errorf("location %q: %s with %v", loc, c.urls[n], c.headers[n])
		}
	}
}

func TestRequest_ParallelCallsSendTheSignatureBackOnTheFirstCallOnly(t *testing.T) {
	// The recording's next request (the cassette's second interaction,
	// which the API accepted) carries the signature on the first of the
	// three calls and on nothing else: so must ours.
	srv, c := serve(t, "testdata/parallel_tool_calls_signed.sse")
	m := newModel(t, srv.URL)
	req := &helikon.ModelRequest{Messages: helikon.UserText("Tell three jokes."), Tools: []helikon.ToolDef{providertest.WeatherTool}}
	first := providertest.Collect(m.Invoke(t.Context(), req))
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	assistant := helikon.Item{Role: helikon.RoleAssistant}
	result := helikon.Item{Role: helikon.RoleTool}
	for _, ev := range first.Events {
		switch ev := ev.(type) {
		case helikon.ReasoningDelta:
			assistant.Content = append(assistant.Content, helikon.ReasoningPart{Signature: ev.Signature, ID: ev.ID})
		case helikon.ToolCallDelta:
			assistant.Content = append(assistant.Content, helikon.ToolUsePart{CallID: ev.CallID, Name: ev.Name, Args: json.RawMessage(ev.ArgsDelta)})
			result.Content = append(result.Content, helikon.ToolResultPart{CallID: ev.CallID, Content: []helikon.ContentPart{helikon.TextPart{Text: "cars"}}})
		}
	}
	req.Messages = append(req.Messages, assistant, result)
	providertest.Collect(m.Invoke(t.Context(), req))
	parts := c.last(t)["contents"].([]any)[1].(map[string]any)["parts"].([]any)
	if len(parts) != 3 {
		t.Fatalf("model turn parts = %s, want the three calls", jsonOf(parts))
	}
	for i, p := range parts {
		p := p.(map[string]any)
		sig, signed := p["thoughtSignature"].(string)
		if signed != (i == 0) || (i == 0 && !strings.HasPrefix(sig, "Es8FCswFAXLI2nxF")) || p["functionCall"] == nil {
			t.Errorf("part %d = %s, want a functionCall signed only as the first", i, jsonOf(p))
		}
	}
}

func TestRequest_ToolResultImageByURLOnEachTransport(t *testing.T) {
	// Vertex AI takes fileData inside a function response; the Developer
	// API's function-response parts hold inline bytes only, so there the
	// image follows the function response as a part of the turn.
	srv, c := serve(t, "testdata/text.sse")
	vertex, err := gemini.Vertex("gemini-2.5-flash", "my-proj", gemini.WithBaseURL(srv.URL), gemini.WithBearerToken("ya29.tok"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := append(helikon.UserText("map?"),
		helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.ToolUsePart{CallID: "c1", Name: "get_map", Args: json.RawMessage(`{}`)}}},
		helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{CallID: "c1", Content: []helikon.ContentPart{
			helikon.TextPart{Text: "here"}, helikon.ImagePart{URL: "https://example.com/map.png"}, helikon.ImagePart{Data: []byte{1}, MediaType: "image/png"}}}}})
	for name, tt := range map[string]struct {
		m    *gemini.Model
		want string
	}{
		"developer": {newModel(t, srv.URL), `{"parts":[{"functionResponse":{"id":"c1","name":"get_map","parts":[{"inlineData":{"data":"AQ==","mimeType":"image/png"}}],"response":{"output":"here"}}},{"fileData":{"fileUri":"https://example.com/map.png","mimeType":"image/png"}}],"role":"user"}`},
		"vertex":    {vertex, `{"parts":[{"functionResponse":{"id":"c1","name":"get_map","parts":[{"fileData":{"fileUri":"https://example.com/map.png","mimeType":"image/png"}},{"inlineData":{"data":"AQ==","mimeType":"image/png"}}],"response":{"output":"here"}}}],"role":"user"}`},
	} {
		if res := providertest.Collect(tt.m.Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs})); res.Err != nil {
			t.Fatal(res.Err)
		}
		if got := jsonOf(c.last(t)["contents"].([]any)[2]); got != tt.want {
			t.Errorf("%s: tool turn = %s\nwant %s", name, got, tt.want)
		}
	}
}
