package providertest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paigasus/helikon"
)

// badArguments are tool-call arguments a model can leave in a
// conversation: cut off at max_tokens, followed by garbage, not an object,
// nested past encoding/json's depth limit, or not UTF-8.
var badArguments = map[string]string{
	"TruncatedAtMaxTokens": `{"city":"San Francisco","units":`,
	"TrailingGarbage":      `{"city":"Paris"}}`,
	"NotAnObject":          `["Paris"]`,
	"Null":                 `null`,
	"NestedPastDepthLimit": `{"city":` + strings.Repeat("[", 10001),
	"InvalidUTF8":          "{\"city\":\"Par\xffis\"}",
}

// invalidArgsResult is the tool result the loop sends for such a call.
const invalidArgsResult = "tool get_weather: invalid arguments: unexpected end of JSON input"

// invalidArgsHistory sends a conversation whose last assistant turn called
// a tool with invalid arguments, followed by the error result that asked
// the model to repair them. The request must be built and sent (a run
// needs that turn to recover), carry the call and the error, and, where
// the suite knows how to find it ([Suite.CallArguments]), carry the
// arguments as a JSON object, which is what every API accepts.
func (s Suite) invalidArgsHistory(t *testing.T) {
	for name, args := range badArguments {
		t.Run(name, func(t *testing.T) {
			rec, err := s.load(s.RoundTrip.Fixture)
			if err != nil {
				t.Fatal(err)
			}
			srv := newServer(t, rec)
			const callID = "toolu_01RaX2WYWRWCbaeFHssmGJXG"
			msgs := append(userAsk("What's the weather in San Francisco?"),
				helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
					helikon.ToolUsePart{CallID: callID, Name: WeatherTool.Name, Args: json.RawMessage(args)}}},
				helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{helikon.ToolResultPart{
					CallID: callID, Name: WeatherTool.Name, IsError: true,
					Content: []helikon.ContentPart{helikon.TextPart{Text: invalidArgsResult}}}}})
			res := Collect(s.New(t, srv.URL).Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs, Tools: []helikon.ToolDef{WeatherTool}}))
			check(t, res, s.RoundTrip.Want)
			s.checkRequests(t, srv)
			bodies, _ := srv.requests()
			if len(bodies) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(bodies))
			}
			body := bodies[0]
			if !utf8.Valid(body) {
				t.Errorf("request body is not UTF-8, so not JSON text:\n%q", body)
			}
			if !bytes.Contains(body, []byte(callID)) {
				t.Errorf("request does not carry the call:\n%s", body)
			}
			if !bytes.Contains(body, []byte("invalid arguments: unexpected end of JSON input")) {
				t.Errorf("request does not carry the error result:\n%s", body)
			}
			if s.CallArguments == nil {
				return
			}
			got, err := s.CallArguments(body, callID)
			if err != nil {
				t.Fatal(err)
			}
			var obj map[string]any
			if err := json.Unmarshal(got, &obj); err != nil || obj == nil {
				t.Errorf("the call's arguments are sent as %s, not a JSON object: %v", got, err)
			}
		})
	}
}
