package gemini_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/providertest"
)

func usage(in, out, cached, reasoning int64) *helikon.Usage {
	return &helikon.Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: cached, ReasoningTokens: reasoning}
}

func newModel(t testing.TB, baseURL string, opts ...gemini.Option) *gemini.Model {
	t.Helper()
	m, err := gemini.New("gemini-3.1-pro-preview", append([]gemini.Option{gemini.WithBaseURL(baseURL), gemini.WithAPIKey("test-key")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// functionCallArgs returns the args of the functionCall callID in a request.
func functionCallArgs(body []byte, callID string) (json.RawMessage, error) {
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionCall *struct {
					ID   string          `json:"id"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil && p.FunctionCall.ID == callID {
				return p.FunctionCall.Args, nil
			}
		}
	}
	return nil, fmt.Errorf("no functionCall %s in %s", callID, body)
}

func TestModel_Conformance(t *testing.T) {
	providertest.Run(t, providertest.Suite{
		Path:          "/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent",
		CheckRequest:  checkRequest,
		CallArguments: functionCallArgs,
		New:           func(t testing.TB, baseURL string) helikon.Model { return newModel(t, baseURL) },
		NewLimited: func(t testing.TB, baseURL string, n int) helikon.Model {
			return newModel(t, baseURL, gemini.WithMaxEventSize(n))
		},
		NotEventStream: map[string]providertest.Case{
			"ErrorBodyIsTheAPIError": {Fixture: "testdata/rate_limited_in_200.http",
				Want: providertest.Want{Err: helikon.ModelRateLimited, StatusCode: 200, RetryAfter: 34400 * time.Millisecond}},
		},
		Text: providertest.Case{Fixture: "testdata/text.sse", Want: providertest.Want{
			Text: "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y",
			// 23 answer tokens plus 185 thought tokens.
			Usage:      usage(9, 23+185, 0, 185),
			ResponseID: "bH6LaZW8Fp_3nsEPqtaSwQ4",
			Finish:     helikon.FinishStop,
		}},
		ToolCall: providertest.Case{Fixture: "testdata/tool_call.sse", Want: providertest.Want{
			Text:   "Let me check.",
			Calls:  []helikon.ToolUsePart{{CallID: "g1bmv6il", Name: "get_weather", Args: json.RawMessage(`{"city":"San Francisco"}`)}},
			Usage:  usage(83, 21+178, 0, 178),
			Finish: helikon.FinishToolCalls,
		}},
		RoundTrip: providertest.Case{Fixture: "testdata/tool_round_trip_answer.sse", Want: providertest.Want{
			Text:   "The weather in San Francisco is currently sunny with a temperature of 72°F.",
			Usage:  usage(338, 18+94, 0, 94),
			Finish: helikon.FinishStop,
		}},
		ParallelToolCalls: providertest.Case{Fixture: "testdata/parallel_tool_calls.sse", Want: providertest.Want{
			Calls: []helikon.ToolUsePart{
				{CallID: "call_OBm0au2xONiUotQP-NP1sAM_0", Name: "get_weather", Args: json.RawMessage(`{"city": "Paris"}`)},
				{CallID: "call_OBm0au2xONiUotQP-NP1sAM_1", Name: "get_weather", Args: json.RawMessage(`{"city": "Tokyo"}`)},
			},
			Usage:  usage(27, 10, 0, 0),
			Finish: helikon.FinishToolCalls,
		}},
		StructuredOutput: providertest.Case{Fixture: "testdata/structured_output.sse", Want: providertest.Want{
			Text:       `{"city":"Mexico City","country":"Mexico"}`,
			Usage:      usage(9, 10+261, 0, 261),
			ResponseID: "HrGQaZONJZjHvdIPrvyJuAk",
			Finish:     helikon.FinishStop,
		}},
		Usage: providertest.Case{Fixture: "testdata/usage_tool_prompt.sse", Want: providertest.Want{
			// toolUsePromptTokenCount (308) is input the model read.
			UsageOnly: true, Usage: usage(17+308, 37+333, 0, 333), Finish: helikon.FinishStop,
		}},
		Refusal: providertest.Case{Fixture: "testdata/prompt_blocked.sse", Want: providertest.Want{Err: helikon.ModelRefused}},
		Errors: map[string]providertest.Case{
			"ResourceExhaustedWithRetryInfo": {Fixture: "testdata/rate_limited.http",
				Want: providertest.Want{Err: helikon.ModelRateLimited, StatusCode: 429, RetryAfter: 34400 * time.Millisecond}},
			"VertexStatusInsideAnArray": {Fixture: "testdata/vertex_rate_limited_array.http",
				Want: providertest.Want{Err: helikon.ModelRateLimited, StatusCode: 429}},
			"InvalidArgumentIsOther": {Fixture: "testdata/invalid_argument.http",
				Want: providertest.Want{Err: helikon.ModelOther, StatusCode: 400}},
			"InvalidAPIKeyIsOther": {Fixture: "testdata/api_key_invalid.http",
				Want: providertest.Want{Err: helikon.ModelOther, StatusCode: 400}},
		},
		Malformed: map[string]string{
			"NamelessCallWithNoCallStreaming": "testdata/nameless_function_call.sse",
			"PartialArgsForNoCall":            "testdata/partial_args_without_call.sse",
		},
		Behaviours: map[string]providertest.Case{
			// Two calls, not eight: the pieces merge into the call they continue.
			"StreamedCallArgumentsMergeIntoTheirCall": {Fixture: "testdata/streamed_call_arguments.sse", Want: providertest.Want{
				Calls: []helikon.ToolUsePart{
					{CallID: "call_OBm0au2xONiUotQP-NP1sAM_0", Name: "get_weather", Args: json.RawMessage(`{"city":"Paris"}`)},
					{CallID: "call_OBm0au2xONiUotQP-NP1sAM_1", Name: "get_weather", Args: json.RawMessage(`{"city":"Tokyo"}`)},
				},
				Usage:  usage(27, 10, 0, 0),
				Finish: helikon.FinishToolCalls,
			}},
			"ParallelCallsOnlyTheFirstSigned": {Fixture: "testdata/parallel_tool_calls_signed.sse", Want: providertest.Want{
				Calls: []helikon.ToolUsePart{
					{CallID: "call_wOd8abGuO5rgz7IP5tLEGA_0", Name: "generate_topic", Args: json.RawMessage(`{}`)},
					{CallID: "call_wOd8abGuO5rgz7IP5tLEGA_1", Name: "generate_topic", Args: json.RawMessage(`{}`)},
					{CallID: "call_wOd8abGuO5rgz7IP5tLEGA_2", Name: "generate_topic", Args: json.RawMessage(`{}`)},
				},
				Usage:  usage(83, 30+190, 0, 190),
				Finish: helikon.FinishToolCalls,
			}},
			"CallWithoutIDGetsStableSyntheticID": {Fixture: "testdata/tool_call_no_id.sse", Want: providertest.Want{
				Calls:  []helikon.ToolUsePart{{CallID: "call_b36LacjwM668nsEP2tbsgQQ_0", Name: "weather", Args: json.RawMessage(`{"location":"San Francisco"}`)}},
				Usage:  usage(29, 15+45, 0, 45),
				Finish: helikon.FinishToolCalls,
			}},
		},
	})
}
