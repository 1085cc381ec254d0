package anthropic_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/providertest"
)

// structuredAnswer is the JSON text testdata/structured_output.sse streams.
const structuredAnswer = `{"characters":[{"name":"Theron Ironheart","class":"warrior","description":"A battle-scarred veteran with steel-gray hair and a prominent scar across his left eye. Wielding a massive two-handed sword passed down through his family for generations, Theron fights with disciplined precision honed through decades of combat. Despite his gruff exterior, he harbors a deep sense of honor and protects the weak without hesitation."},{"name":"Lyra Starweaver","class":"mage","description":"A young prodigy in the arcane arts with flowing silver robes adorned with celestial patterns. Her eyes glow faintly blue when channeling powerful spells. Lyra specializes in elemental magic and astral divination, having studied at the Grand Academy since childhood. She is curious and idealistic, often getting into trouble while pursuing forbidden knowledge."},{"name":"Rook Shadowstep","class":"thief","description":"A nimble and cunning rogue who moves through shadows like a whisper in the night. With jet-black hair, leather armor, and an array of lockpicks and daggers hidden on his person, Rook makes his living liberating treasures from those he deems unworthy of them. Behind his cocky smile lies a troubled past and a strict personal code about who deserves to be robbed."}]}`

func usage(in, out, cacheRead, cacheWrite int64) *helikon.Usage {
	return &helikon.Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: cacheRead, CacheWriteTokens: cacheWrite}
}

func newModel(t testing.TB, baseURL string, opts ...anthropic.Option) *anthropic.MessagesModel {
	t.Helper()
	m, err := anthropic.Messages("claude-sonnet-4-5", append([]anthropic.Option{anthropic.WithBaseURL(baseURL), anthropic.WithAPIKey("sk-ant-test")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// toolUseInput returns the input of the tool_use block callID in a request.
func toolUseInput(body []byte, callID string) (json.RawMessage, error) {
	var req struct {
		Messages []struct {
			Content []struct {
				Type  string          `json:"type"`
				ID    string          `json:"id"`
				Input json.RawMessage `json:"input"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			if b.Type == "tool_use" && b.ID == callID {
				return b.Input, nil
			}
		}
	}
	return nil, fmt.Errorf("no tool_use block %s in %s", callID, body)
}

func TestMessages_Conformance(t *testing.T) {
	providertest.Run(t, providertest.Suite{
		Path:          "/v1/messages",
		CallArguments: toolUseInput,
		NewLimited: func(t testing.TB, baseURL string, n int) helikon.Model {
			return newModel(t, baseURL, anthropic.WithMaxEventSize(n))
		},
		NotEventStream: map[string]providertest.Case{
			"ErrorBodyIsTheAPIError": {Fixture: "testdata/context_length_in_200.http",
				Want: providertest.Want{Err: helikon.ModelContextLengthExceeded, StatusCode: 200}},
			"WholeJSONMessage": {Fixture: "testdata/non_streaming_message.http",
				Want: providertest.Want{Err: helikon.ModelOther, StatusCode: 200}},
		},
		New: func(t testing.TB, baseURL string) helikon.Model { return newModel(t, baseURL) },
		Malformed: map[string]string{
			"ContentBlockNull":             "testdata/content_block_null.sse",
			"InputJSONForABlockNotStarted": "testdata/input_json_without_block_start.sse",
		},
		Text: providertest.Case{Fixture: "testdata/text.sse", Want: providertest.Want{
			Text:       "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
			Usage:      usage(12, 30, 0, 0),
			ResponseID: "msg_01QC4g3HwBThD4BaNtBckFDJ",
			Finish:     helikon.FinishStop,
		}},
		ToolCall: providertest.Case{Fixture: "testdata/tool_call.sse", Want: providertest.Want{
			Text:   "I'll get the current weather in San Francisco for you in Fahrenheit.",
			Calls:  []helikon.ToolUsePart{{CallID: "toolu_01RaX2WYWRWCbaeFHssmGJXG", Name: "get_weather", Args: json.RawMessage(`{"city": "San Francisco", "units": "fahrenheit"}`)}},
			Usage:  usage(397, 89, 0, 0),
			Finish: helikon.FinishToolCalls,
		}},
		RoundTrip: providertest.Case{Fixture: "testdata/tool_round_trip_answer.sse", Want: providertest.Want{
			Text:   "The current weather in San Francisco is 68 degrees Fahrenheit.",
			Usage:  usage(509, 19, 0, 0),
			Finish: helikon.FinishStop,
		}},
		StructuredOutput: providertest.Case{Fixture: "testdata/structured_output.sse", Want: providertest.Want{
			Text: structuredAnswer, Usage: usage(313, 305, 0, 0), Finish: helikon.FinishStop,
		}},
		Usage: providertest.Case{Fixture: "testdata/usage_cache.sse", Want: providertest.Want{
			// input_tokens 6 on the wire plus the 6289 read from and the
			// 3337 written to the cache: helikon counts every input token.
			UsageOnly: true, Usage: usage(6+6289+3337, 198, 6289, 3337), Finish: helikon.FinishStop,
		}},
		Refusal: providertest.Case{Fixture: "testdata/refusal.sse", Want: providertest.Want{Err: helikon.ModelRefused}},
		Errors: map[string]providertest.Case{
			"RateLimitedWithRetryAfterSeconds": {Fixture: "testdata/rate_limited.http",
				Want: providertest.Want{Err: helikon.ModelRateLimited, StatusCode: 429, RetryAfter: 7 * time.Second}},
			"Overloaded529IsUnavailable": {Fixture: "testdata/overloaded.http",
				Want: providertest.Want{Err: helikon.ModelUnavailable, StatusCode: 529}},
			"OverloadedInsideA200StreamIsUnavailable": {Fixture: "testdata/overloaded_in_stream.sse",
				Want: providertest.Want{Err: helikon.ModelUnavailable}},
			"PromptTooLongIsContextLengthExceeded": {Fixture: "testdata/context_length.http",
				Want: providertest.Want{Err: helikon.ModelContextLengthExceeded, StatusCode: 400}},
			"APIErrorIsUnavailable": {Fixture: "testdata/api_error.http",
				Want: providertest.Want{Err: helikon.ModelUnavailable, StatusCode: 500}},
		},
	})
}
