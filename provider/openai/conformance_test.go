package openai_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/openai"
	"github.com/paigasus/helikon/provider/providertest"
)

// apiSchema is one request schema from OpenAI's published OpenAPI spec
// (testdata/openapi), resolved for validation.
type apiSchema struct {
	resolved *jsonschema.Resolved
	fields   []string // the top-level properties the request may carry
}

func loadAPISchema(t *testing.T, file, component string) *apiSchema {
	t.Helper()
	data, err := os.ReadFile("testdata/openapi/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &apiSchema{resolved: r}
	var collect func(*jsonschema.Schema)
	collect = func(x *jsonschema.Schema) {
		if x == nil {
			return
		}
		if strings.HasPrefix(x.Ref, "#/$defs/") {
			collect(s.Defs[strings.TrimPrefix(x.Ref, "#/$defs/")])
		}
		for name := range x.Properties {
			a.fields = append(a.fields, name)
		}
		for _, sub := range x.AllOf {
			collect(sub)
		}
	}
	collect(s.Defs[component])
	return a
}

// check validates a request body against the schema and rejects top-level
// fields the API does not define (the schema alone allows unknown ones).
func (a *apiSchema) check(t *testing.T, body []byte) {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request is not a JSON object: %v", err)
	}
	if err := a.resolved.Validate(v); err != nil {
		t.Errorf("request does not match the OpenAPI schema: %v\n%s", err, body)
	}
	for k := range v {
		if !slices.Contains(a.fields, k) {
			t.Errorf("request field %q is not in the API reference", k)
		}
	}
}

func usage(in, out, cached, reasoning int64) *helikon.Usage {
	return &helikon.Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: cached, ReasoningTokens: reasoning}
}

func call(id, name, args string) helikon.ToolUsePart {
	return helikon.ToolUsePart{CallID: id, Name: name, Args: json.RawMessage(args)}
}

// httpErrors are the error recordings both endpoints share: OpenAI returns
// the same error object from every endpoint.
var httpErrors = map[string]providertest.Case{
	"RateLimitedWithRetryAfterMs": {Fixture: "testdata/errors/rate_limited.http",
		Want: providertest.Want{Err: helikon.ModelRateLimited, StatusCode: 429, RetryAfter: 1500 * time.Millisecond}},
	"InsufficientQuotaIsNotRetryable": {Fixture: "testdata/errors/insufficient_quota.http",
		Want: providertest.Want{Err: helikon.ModelOther, StatusCode: 429}},
	"ContextLengthExceeded": {Fixture: "testdata/errors/context_length.http",
		Want: providertest.Want{Err: helikon.ModelContextLengthExceeded, StatusCode: 400}},
	"ServerErrorIsUnavailable": {Fixture: "testdata/errors/server_error.http",
		Want: providertest.Want{Err: helikon.ModelUnavailable, StatusCode: 500}},
}

// chatCallArguments returns the arguments of tool call callID in a Chat
// Completions request, decoded from the string the API carries them in.
func chatCallArguments(body []byte, callID string) (json.RawMessage, error) {
	var req struct {
		Messages []struct {
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			if c.ID == callID {
				return json.RawMessage(c.Function.Arguments), nil
			}
		}
	}
	return nil, fmt.Errorf("no tool call %s in %s", callID, body)
}

// responsesCallArguments is [chatCallArguments] for a Responses request.
func responsesCallArguments(body []byte, callID string) (json.RawMessage, error) {
	var req struct {
		Input []struct {
			Type      string `json:"type"`
			CallID    string `json:"call_id"`
			Arguments string `json:"arguments"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	for _, it := range req.Input {
		if it.Type == "function_call" && it.CallID == callID {
			return json.RawMessage(it.Arguments), nil
		}
	}
	return nil, fmt.Errorf("no function_call %s in %s", callID, body)
}

// build constructs a model of either endpoint talking to baseURL.
func build[M helikon.Model](t testing.TB, ctor func(string, ...openai.Option) (M, error), model, baseURL string, opts ...openai.Option) helikon.Model {
	m, err := ctor(model, append([]openai.Option{openai.WithBaseURL(baseURL), openai.WithAPIKey("sk-test")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// golden reads the text, reasoning, calls and response id a Chat
// recording must yield, worked out from the recording independently of the
// adapter (testdata/chat/*.want.json, written with Python's json module).
func golden(t *testing.T, name string, u *helikon.Usage, finish helikon.FinishReason) providertest.Case {
	t.Helper()
	data, err := os.ReadFile("testdata/chat/" + name + ".want.json")
	if err != nil {
		t.Fatal(err)
	}
	var w providertest.Want
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	w.Usage, w.Finish = u, finish
	return providertest.Case{Fixture: "testdata/chat/" + name + ".sse", Want: w}
}

// errorIn200 is an error body behind a 200, shared by both endpoints.
var errorIn200 = providertest.Case{Fixture: "testdata/errors/context_length_in_200.http",
	Want: providertest.Want{Err: helikon.ModelContextLengthExceeded, StatusCode: 200}}

func TestChat_Conformance(t *testing.T) {
	schema := loadAPISchema(t, "CreateChatCompletionRequest.schema.json", "CreateChatCompletionRequest")
	text := providertest.Want{
		Text:       "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.",
		Usage:      usage(14, 30, 0, 0),
		ResponseID: "chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL",
		Finish:     helikon.FinishStop,
	}
	providertest.Run(t, providertest.Suite{
		Path:          "/chat/completions",
		CallArguments: chatCallArguments,
		NewLimited: func(t testing.TB, baseURL string, n int) helikon.Model {
			return build(t, openai.Chat, "gpt-4o-2024-08-06", baseURL, openai.WithMaxEventSize(n))
		},
		NotEventStream: map[string]providertest.Case{
			"ErrorBodyIsTheAPIError": errorIn200,
			"WholeJSONCompletion": {Fixture: "testdata/chat/non_streaming_completion.http",
				Want: providertest.Want{Err: helikon.ModelOther, StatusCode: 200}},
		},
		New: func(t testing.TB, baseURL string) helikon.Model {
			return build(t, openai.Chat, "gpt-4o-2024-08-06", baseURL)
		},
		Text: providertest.Case{Fixture: "testdata/chat/text.sse", Want: text},
		ToolCall: providertest.Case{Fixture: "testdata/chat/tool_call.sse", Want: providertest.Want{
			Calls:  []helikon.ToolUsePart{call("call_CTf1nWJLqSeRgDqaCG27xZ74", "get_weather", `{"city":"San Francisco","state":"CA"}`)},
			Usage:  usage(48, 19, 0, 0),
			Finish: helikon.FinishToolCalls,
		}},
		RoundTrip: providertest.Case{Fixture: "testdata/chat/text.sse", Want: text},
		ParallelToolCalls: providertest.Case{Fixture: "testdata/chat/parallel_tool_calls.sse", Want: providertest.Want{
			Calls: []helikon.ToolUsePart{
				call("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", `{"city": "Edinburgh", "country": "GB", "units": "c"}`),
				call("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", `{"ticker": "AAPL", "exchange": "NASDAQ"}`),
			},
			Usage:  usage(149, 60, 0, 0),
			Finish: helikon.FinishToolCalls,
		}},
		StructuredOutput: providertest.Case{Fixture: "testdata/chat/structured_output.sse", Want: providertest.Want{
			Text:   `{"city":"San Francisco","temperature":61,"units":"f"}`,
			Usage:  usage(79, 14, 0, 0),
			Finish: helikon.FinishStop,
		}},
		Usage: providertest.Case{Fixture: "testdata/chat/text_then_tool_call.sse", Want: providertest.Want{
			UsageOnly: true, Usage: usage(0, 50, 10, 3), Finish: helikon.FinishToolCalls,
			ResponseID: "chatcmpl-A3Tguz3LSXTHBTY2NAPBCSyfBltxF",
		}},
		Refusal: providertest.Case{Fixture: "testdata/chat/refusal.sse", Want: providertest.Want{Err: helikon.ModelRefused}},
		Behaviours: map[string]providertest.Case{
			// The response id and model come from the second chunk.
			"AzureFirstChunkHasOnlyPromptFilterResults": golden(t, "azure_prompt_filter_first", usage(15, 78, 0, 64), helikon.FinishStop),
			"DeepSeekReasoningContent":                  golden(t, "deepseek_reasoning", usage(18, 219, 0, 205), helikon.FinishStop),
			"DeepSeekReasoningThenToolCall":             golden(t, "deepseek_reasoning_tool_call", usage(339, 83, 320, 39), helikon.FinishToolCalls),
			// xAI counts 290 reasoning tokens beside completion_tokens 1.
			"XAIReasoningTokensOutsideCompletion": golden(t, "xai_reasoning_outside_completion", usage(12, 1+290, 11, 290), helikon.FinishStop),
			"GroqReasoningField":                  golden(t, "groq_reasoning", usage(17, 1107, 0, 963), helikon.FinishStop),
		},
		Errors:       httpErrors,
		CheckRequest: schema.check,
	})
}

func TestResponses_Conformance(t *testing.T) {
	schema := loadAPISchema(t, "CreateResponse.schema.json", "CreateResponse")
	errs := map[string]providertest.Case{
		"InsufficientQuotaInStreamIsNotRetryable": {Fixture: "testdata/responses/error_insufficient_quota.sse",
			Want: providertest.Want{Err: helikon.ModelOther}},
	}
	for k, v := range httpErrors {
		errs[k] = v
	}
	providertest.Run(t, providertest.Suite{
		Path:          "/responses",
		CallArguments: responsesCallArguments,
		NewLimited: func(t testing.TB, baseURL string, n int) helikon.Model {
			return build(t, openai.Responses, "gpt-5.1-codex-max", baseURL, openai.WithMaxEventSize(n))
		},
		NotEventStream: map[string]providertest.Case{
			"ErrorBodyIsTheAPIError": errorIn200,
			"WholeJSONResponse": {Fixture: "testdata/responses/non_streaming_response.http",
				Want: providertest.Want{Err: helikon.ModelOther, StatusCode: 200}},
		},
		New: func(t testing.TB, baseURL string) helikon.Model {
			return build(t, openai.Responses, "gpt-5.1-codex-max", baseURL)
		},
		Malformed: map[string]string{
			"ArgumentsForAnItemNothingOpened": "testdata/responses/arguments_for_unknown_item.sse",
		},
		// The API reference's example elides the middle deltas ("...").
		Text: providertest.Case{Fixture: "testdata/responses/text.sse", Want: providertest.Want{
			Text: "Hi", Usage: usage(37, 11, 0, 0), Finish: helikon.FinishStop,
			ResponseID: "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654",
		}},
		ToolCall: providertest.Case{Fixture: "testdata/responses/calculator.1.sse", Want: providertest.Want{
			Reasoning: "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.",
			Calls:     []helikon.ToolUsePart{call("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "calculator", `{"a":12,"b":7,"op":"add"}`)},
			Usage:     usage(134, 28, 0, 0),
			Finish:    helikon.FinishToolCalls,
		}},
		RoundTrip: providertest.Case{Fixture: "testdata/responses/calculator.4.sse", Want: providertest.Want{
			Text: "The final result is **570**.", Usage: usage(299, 12, 0, 0), Finish: helikon.FinishStop,
		}},
		Usage: providertest.Case{Fixture: "testdata/responses/usage_cached.sse", Want: providertest.Want{
			UsageOnly: true, Usage: usage(7112, 463, 3072, 64), Finish: helikon.FinishStop,
		}},
		Errors: errs,
		Behaviours: map[string]providertest.Case{
			"LMStudioArgumentsOnlyInDoneEvents": {Fixture: "testdata/responses/lmstudio_arguments_only_in_done.sse", Want: providertest.Want{
				Reasoning:  `The user is asking for the weather in San Francisco. I have a weather function available that takes a location parameter. The user has provided "San Francisco" as the location, so I have all the required information to make the function call.`,
				Text:       "I'll get the current weather information for San Francisco for you.",
				Calls:      []helikon.ToolUsePart{call("call_2025306790300011", "weather", `{"location":"San Francisco"}`)},
				Usage:      usage(182, 61, 2, 48),
				ResponseID: "resp_cc7bfe18e2f2eca93006515c0fd19cfed16e46a93a60444a",
				Finish:     helikon.FinishToolCalls,
			}},
		},
		CheckRequest: schema.check,
	})
}
