package record_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/providertest"
)

// fakeKey is the API key the tests give the provider; no recording may
// hold it.
const fakeKey = "sk-ant-fake-9d41e7c2b8a04f55"

// wireServer serves the Anthropic SDK's recorded weather round trip: the
// tool call, then the answer, each as recorded on the wire, and checks
// the key arrives in its header.
func wireServer(t testing.TB) *httptest.Server {
	t.Helper()
	var recs []providertest.Recording
	for _, f := range []string{"tool_call.sse", "tool_round_trip_answer.sse"} {
		r, err := providertest.Load("../provider/anthropic/testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != fakeKey {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		rec := recs[n%len(recs)]
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(rec.Status)
		w.Write(rec.Body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// liveModel is the Anthropic adapter against the wire server.
func liveModel(t testing.TB, srv *httptest.Server) helikon.Model {
	t.Helper()
	m, err := anthropic.Messages("claude-3-7-sonnet-latest", anthropic.WithAPIKey(fakeKey), anthropic.WithBaseURL(srv.URL), anthropic.WithMaxTokens(512))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type weatherIn struct {
	City  string `json:"city"`
	Units string `json:"units,omitempty" jsonschema:"celsius or fahrenheit"`
}

// weatherTool answers as the recorded conversation's tool did, and counts
// its calls; its output carries a secret-named member.
func weatherTool(calls *int) helikon.Tool {
	var mu sync.Mutex
	return helikon.MustTool("get_weather", "Get weather", func(tc *helikon.ToolContext, in weatherIn) (map[string]string, error) {
		mu.Lock()
		*calls++
		mu.Unlock()
		return map[string]string{"report": "The weather in " + in.City + " is 68 degrees " + in.Units + ".", "api_key": fakeKey}, nil
	})
}

// events collects a run's model-facing events: deltas, tool calls and
// outputs, and the final output.
func runEvents(t testing.TB, a helikon.Agent, input string) ([]string, *helikon.RunResult, error) {
	t.Helper()
	var out []string
	var res *helikon.RunResult
	var err error
	stream := a.Run(t.Context(), helikon.Ephemeral(), helikon.UserText(input))
	var evs []helikon.Event
	for ev := range stream {
		evs = append(evs, ev)
		switch e := ev.(type) {
		case helikon.TokenDelta:
			out = append(out, "text "+e.Text)
		case helikon.ToolCallItem:
			out = append(out, "call "+string(e.Item.ToolUses()[0].Args))
		case helikon.ToolOutputItem:
			out = append(out, "output "+e.Item.Content[0].(helikon.ToolResultPart).Content[0].(helikon.TextPart).Text)
		}
	}
	res, err = helikon.Collect(func(yield func(helikon.Event) bool) {
		for _, ev := range evs {
			if !yield(ev) {
				return
			}
		}
	})
	return out, res, err
}
