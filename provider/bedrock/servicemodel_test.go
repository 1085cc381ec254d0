package bedrock_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// serviceModel is a part of the Bedrock Runtime service model, in
// botocore's shape notation: the shapes of ConverseStreamRequest
// (testdata/bedrock_runtime_converse_stream_shapes.json) or of the
// response's metadata event
// (testdata/bedrock_runtime_metadata_event_shapes.json); each file's
// _source member says where it was taken from.
type serviceModel struct {
	Operation struct {
		Input string `json:"input"`
	} `json:"operation"`
	Shapes map[string]*shape `json:"shapes"`
}

type shape struct {
	Type     string             `json:"type"`
	Members  map[string]*member `json:"members"`
	Required []string           `json:"required"`
	Union    bool               `json:"union"`
	Document bool               `json:"document"`
	Member   *member            `json:"member"`
	Key      *member            `json:"key"`
	Value    *member            `json:"value"`
	Enum     []string           `json:"enum"`
	Min      *float64           `json:"min"`
	Max      *float64           `json:"max"`
	Pattern  string             `json:"pattern"`
}

type member struct {
	Shape    string `json:"shape"`
	Location string `json:"location"`
}

var loadServiceModel = sync.OnceValues(func() (*serviceModel, error) {
	return readServiceModel("testdata/bedrock_runtime_converse_stream_shapes.json")
})

// readServiceModel reads shapes extracted from the service model, rooted
// at the shape their operation.input names.
func readServiceModel(path string) (*serviceModel, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m serviceModel
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkBody reports every way a ConverseStream request body departs from
// the service model: members it does not describe (or that travel outside
// the body, like the modelId of the URI), required members missing, unions
// with other than exactly one member, values of the wrong type, enum
// values, lengths and ranges outside the model's bounds, and strings not
// matching a pattern (unanchored, as Smithy patterns are).
func (m *serviceModel) checkBody(body []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{"body is not JSON: " + err.Error()}
	}
	var errs []string
	m.check("$", v, m.Operation.Input, &errs)
	sort.Strings(errs)
	return errs
}

func (m *serviceModel) check(path string, v any, name string, errs *[]string) {
	s, ok := m.Shapes[name]
	if !ok {
		*errs = append(*errs, fmt.Sprintf("%s: shape %s missing from the model", path, name))
		return
	}
	fail := func(format string, args ...any) {
		*errs = append(*errs, path+": "+fmt.Sprintf(format, args...))
	}
	if s.Document {
		return // any JSON value
	}
	switch s.Type {
	case "structure":
		obj, ok := v.(map[string]any)
		if !ok {
			fail("%T where the model says structure %s", v, name)
			return
		}
		for k, x := range obj {
			mem := s.Members[k]
			switch {
			case mem == nil:
				fail("member %q is not one %s has", k, name)
			case mem.Location != "":
				fail("member %q travels in the %s, not the body", k, mem.Location)
			default:
				m.check(path+"."+k, x, mem.Shape, errs)
			}
		}
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok && s.Members[r].Location == "" {
				fail("required member %q of %s missing", r, name)
			}
		}
		if s.Union && len(obj) != 1 {
			fail("union %s has %d members set, want exactly one", name, len(obj))
		}
	case "list":
		arr, ok := v.([]any)
		if !ok {
			fail("%T where the model says list %s", v, name)
			return
		}
		m.bounds(path, float64(len(arr)), s, "length", errs)
		for i, x := range arr {
			m.check(fmt.Sprintf("%s[%d]", path, i), x, s.Member.Shape, errs)
		}
	case "map":
		obj, ok := v.(map[string]any)
		if !ok {
			fail("%T where the model says map %s", v, name)
			return
		}
		m.bounds(path, float64(len(obj)), s, "size", errs)
		for k, x := range obj {
			m.check(path+".<key>", k, s.Key.Shape, errs)
			m.check(path+"."+k, x, s.Value.Shape, errs)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			fail("%T where the model says string %s", v, name)
			return
		}
		if len(s.Enum) > 0 && !contains(s.Enum, str) {
			fail("%q is not one of %v", str, s.Enum)
		}
		m.bounds(path, float64(utf8.RuneCountInString(str)), s, "length", errs)
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(str) {
				fail("%q does not match %s", str, s.Pattern)
			}
		}
	case "blob":
		str, ok := v.(string)
		if !ok {
			fail("%T where the model says blob (base64 text)", v)
			return
		}
		raw, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			fail("blob is not base64: %v", err)
			return
		}
		m.bounds(path, float64(len(raw)), s, "size", errs)
	case "integer", "long":
		n, ok := v.(json.Number)
		f, err := n.Float64()
		if !ok || err != nil || f != math.Trunc(f) || strings.ContainsAny(string(n), ".eE") {
			fail("%v where the model says %s", v, s.Type)
			return
		}
		m.bounds(path, f, s, "value", errs)
	case "float", "double":
		n, ok := v.(json.Number)
		f, err := n.Float64()
		if !ok || err != nil {
			fail("%v where the model says %s", v, s.Type)
			return
		}
		m.bounds(path, f, s, "value", errs)
	case "boolean":
		if _, ok := v.(bool); !ok {
			fail("%T where the model says boolean", v)
		}
	default:
		fail("shape %s of type %q is not one the checker knows", name, s.Type)
	}
}

func (m *serviceModel) bounds(path string, n float64, s *shape, what string, errs *[]string) {
	if s.Min != nil && n < *s.Min {
		*errs = append(*errs, fmt.Sprintf("%s: %s %v below the minimum %v", path, what, n, *s.Min))
	}
	if s.Max != nil && n > *s.Max {
		*errs = append(*errs, fmt.Sprintf("%s: %s %v above the maximum %v", path, what, n, *s.Max))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkRequest is the conformance suite's CheckRequest.
func checkRequest(t *testing.T, body []byte) {
	t.Helper()
	m, err := loadServiceModel()
	if err != nil {
		t.Fatal(err)
	}
	if errs := m.checkBody(body); len(errs) > 0 {
		t.Errorf("request body does not match the service model:\n%s\n%s", strings.Join(errs, "\n"), body)
	}
}

func TestServiceModelCheck_CatchesWhatTheModelForbids(t *testing.T) {
	m, err := loadServiceModel()
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`
	if errs := m.checkBody([]byte(ok)); len(errs) > 0 {
		t.Fatalf("a minimal valid body fails: %v", errs)
	}
	for name, tt := range map[string]struct{ body, want string }{
		"unknown member":        {`{"messages":[],"temprature":1}`, `member "temprature"`},
		"uri member in body":    {`{"modelId":"m","messages":[]}`, "travels in the uri"},
		"required missing":      {`{"messages":[{"content":[{"text":"hi"}]}]}`, `required member "role"`},
		"union with two":        {`{"messages":[{"role":"user","content":[{"text":"a","image":{"format":"png","source":{"bytes":"AA=="}}}]}]}`, "exactly one"},
		"union with none":       {`{"messages":[{"role":"user","content":[{}]}]}`, "exactly one"},
		"enum":                  {`{"messages":[{"role":"tool","content":[{"text":"hi"}]}]}`, `"tool" is not one of`},
		"type":                  {`{"messages":[],"inferenceConfig":{"maxTokens":"10"}}`, "says integer"},
		"fraction as integer":   {`{"messages":[],"inferenceConfig":{"maxTokens":1.5}}`, "says integer"},
		"blob not base64":       {`{"messages":[{"role":"user","content":[{"image":{"format":"png","source":{"bytes":"!!"}}}]}]}`, "not base64"},
		"string below min":      {`{"messages":[],"system":[{"text":""}]}`, "below the minimum"},
		"tool name over max":    {`{"messages":[],"toolConfig":{"tools":[{"toolSpec":{"name":"` + strings.Repeat("a", 65) + `","inputSchema":{"json":{}}}}]}}`, "above the maximum"},
		"pattern":               {`{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"!!","name":"t","input":{}}}]}]}`, "does not match"},
		"list where structure":  {`{"messages":[],"inferenceConfig":[]}`, "says structure"},
		"document is any value": {`{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"t","input":[1,{"x":null}]}}]}]}`, ""},
	} {
		errs := strings.Join(m.checkBody([]byte(tt.body)), "\n")
		if (tt.want == "") != (errs == "") || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: errors %q, want %q", name, errs, tt.want)
		}
	}
}

func TestRequest_BodiesMatchTheServiceModel(t *testing.T) {
	temp, topP := 0.2, 0.9
	tools := []helikon.ToolDef{providertest.WeatherTool, providertest.StockTool}
	png := []byte("\x89PNG\r\n\x1a\n")
	history := []helikon.Item{
		helikon.SystemItem("You are terse."),
		{Role: helikon.RoleUser, Content: []helikon.ContentPart{helikon.TextPart{Text: "Compare these."},
			helikon.ImagePart{Data: png, MediaType: "image/png"}, helikon.ImagePart{URL: "s3://bucket/key/photo.jpeg"}}},
		{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			helikon.ReasoningPart{Text: "Two tools.", Signature: "EqQBCkYIBxgCKkA"},
			// Redacted reasoning as the adapter streams it (its own prefix
			// on the base64 of the recorded bytes).
			helikon.ReasoningPart{Data: "bedrock-redacted:cmVkYWN0ZWQ="},
			helikon.TextPart{Text: "Checking."},
			helikon.ToolUsePart{CallID: "tooluse_1", Name: "get_weather", Args: json.RawMessage(`{"city":"Edinburgh"}`)},
			helikon.ToolUsePart{CallID: "tooluse_2", Name: "get_stock_price", Args: json.RawMessage(`{}`)}}},
		{Role: helikon.RoleTool, Content: []helikon.ContentPart{
			helikon.ToolResultPart{CallID: "tooluse_1", Content: []helikon.ContentPart{helikon.TextPart{Text: "12C"}, helikon.ImagePart{Data: png, MediaType: "image/png"}}},
			helikon.ToolResultPart{CallID: "tooluse_2", IsError: true, Content: []helikon.ContentPart{helikon.TextPart{Text: "market closed"}}}}},
	}
	for name, tt := range map[string]struct {
		id   string
		opts []bedrock.Option
		req  *helikon.ModelRequest
		// want are parts of the body that show the feature was sent, so
		// the check does not pass on a body that dropped it.
		want []string
	}{
		"text and system prompts": {claude, nil, &helikon.ModelRequest{Messages: append([]helikon.Item{helikon.SystemItem("a"), helikon.SystemItem("b")}, helikon.UserText("hi")...),
			Settings: helikon.ModelSettings{Temperature: &temp, TopP: &topP, MaxOutputTokens: 100}},
			[]string{`"system":[{"text":"a"},{"text":"b"}]`, `"inferenceConfig":{"maxTokens":100,"temperature":0.2,"topP":0.9}`}},
		"tools, images, reasoning and tool results": {claude, []bedrock.Option{bedrock.WithThinking(1024)}, &helikon.ModelRequest{Messages: history, Tools: tools},
			[]string{`"bytes":"iVBORw0KGgo="`, `"s3Location"`, `"signature":"EqQBCkYIBxgCKkA"`, `"redactedContent":"cmVkYWN0ZWQ="`, `"status":"error"`, `"toolSpec"`, `"budget_tokens":1024`}},
		"tool choice required": {claude, nil, &helikon.ModelRequest{Messages: helikon.UserText("hi"), Tools: tools, Settings: helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceRequired}}},
			[]string{`"toolChoice":{"any":{}}`}},
		"tool choice named": {claude, nil, &helikon.ModelRequest{Messages: helikon.UserText("hi"), Tools: tools, Settings: helikon.ModelSettings{ToolChoice: helikon.ToolChoice{Mode: helikon.ToolChoiceTool, Name: "get_weather"}}},
			[]string{`"toolChoice":{"tool":{"name":"get_weather"}}`}},
		"structured output by forced tool": {"us.amazon.nova-pro-v1:0", nil, structuredReq(), []string{`"toolChoice":{"tool":{"name":"structured_output"}}`}},
		"structured output by forced tool with tools": {"mistral.mistral-large-2407-v1:0", nil, &helikon.ModelRequest{Messages: history[1:2], Tools: tools,
			Settings: structuredReq().Settings}, []string{`"name":"structured_output"`, `"name":"get_stock_price"`}},
		"structured output native": {claude, nil, structuredReq(), []string{`"outputConfig":{"textFormat":{"structure":{"jsonSchema":{"name":"weather"`}},
		// A stored conversation (a session log is input too) may hold a
		// redacted block with no bytes; sent, it was a reasoningContent
		// union with no member, refused on every later turn.
		"empty redacted reasoning": {claude, nil, &helikon.ModelRequest{Messages: []helikon.Item{helikon.UserText("hi")[0],
			{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{helikon.ReasoningPart{Data: "bedrock-redacted:"}, helikon.TextPart{Text: "Hello."}}},
			helikon.UserText("again")[0]}}, []string{`"text":"Hello."`}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, stream(t, "testdata/text.jsonl"))
			m := newModel(t, f.URL, tt.id, tt.opts...)
			if res := providertest.Collect(m.Invoke(t.Context(), tt.req)); res.Err != nil {
				t.Fatal(res.Err)
			}
			body, _ := json.Marshal(f.lastBody(t)) // checks it against the service model
			for _, want := range tt.want {
				if !strings.Contains(string(body), want) {
					t.Errorf("body lacks %s:\n%s", want, body)
				}
			}
		})
	}
}
