package anthropic_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/providertest"
)

// A tool_use stream cut off at max_tokens leaves truncated arguments. The
// run must answer the call with an invalid-arguments result and send the
// next turn, so the model can repair the call; the adapter once failed to
// encode that turn ("json: error calling MarshalJSON") and the run died.
//
// The first answer is testdata/tool_call.sse with its last two
// input_json_delta events removed and stop_reason max_tokens, as the API
// ends a turn out of tokens; the second is the recorded final answer.
func TestMessages_RunRepairsArgumentsCutOffAtMaxTokens(t *testing.T) {
	call, err := providertest.Load("testdata/tool_call.sse")
	if err != nil {
		t.Fatal(err)
	}
	var cut []byte
	for ev := range bytes.SplitAfterSeq(call.Body, []byte("\n\n")) {
		if bytes.Contains(ev, []byte(`"partial_json":": \"fahr"`)) || bytes.Contains(ev, []byte(`"partial_json":"enhei"`)) ||
			bytes.Contains(ev, []byte(`"partial_json":"t\"}"`)) {
			continue
		}
		cut = append(cut, ev...)
	}
	cut = bytes.Replace(cut, []byte(`"stop_reason":"tool_use"`), []byte(`"stop_reason":"max_tokens"`), 1)
	answer, err := providertest.Load("testdata/tool_round_trip_answer.sse")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 0 {
			_, _ = w.Write(cut)
			return
		}
		_, _ = w.Write(answer.Body)
	}))
	defer srv.Close()

	type weatherArgs struct {
		City  string `json:"city"`
		Units string `json:"units,omitempty"`
	}
	ran := false
	weather := helikon.MustTool("get_weather", "Get the current weather for a city.", func(tc *helikon.ToolContext, in weatherArgs) (string, error) {
		ran = true
		return `{"temperature_f":68}`, nil
	})
	agent, err := helikon.NewAgent("weather", newModel(t, srv.URL), helikon.WithTools(weather))
	if err != nil {
		t.Fatal(err)
	}
	res, err := helikon.Collect(agent.Run(t.Context(), helikon.Ephemeral(), helikon.UserText("What's the weather in San Francisco, in fahrenheit?")))
	if err != nil {
		t.Fatalf("the run died instead of repairing the call: %v", err)
	}
	if ran {
		t.Error("the tool ran with truncated arguments")
	}
	if res.FinalOutput != "The current weather in San Francisco is 68 degrees Fahrenheit." {
		t.Errorf("final output = %q", res.FinalOutput)
	}
	if len(bodies) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(bodies))
	}
	var req struct {
		Messages []struct {
			Content []struct {
				Type    string          `json:"type"`
				Input   json.RawMessage `json:"input"`
				IsError bool            `json:"is_error"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[1], &req); err != nil {
		t.Fatal(err)
	}
	var input json.RawMessage
	var result string
	for _, m := range req.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case "tool_use":
				input = b.Input
			case "tool_result":
				if !b.IsError || len(b.Content) == 0 {
					t.Errorf("tool result is not an error with text: %+v", b)
				} else {
					result = b.Content[0].Text
				}
			}
		}
	}
	var in map[string]string
	if err := json.Unmarshal(input, &in); err != nil || in["invalid_arguments"] != `{"city": "San Francisco", "units"` {
		t.Errorf("tool_use input = %s, want an object keeping the truncated arguments", input)
	}
	if !strings.Contains(result, "invalid arguments") {
		t.Errorf("tool result %q does not tell the model its arguments were invalid", result)
	}
}
