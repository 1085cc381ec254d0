// Command record_replay replays a recorded run with no key and no
// network, and shows how the recording was made.
//
// weather.json was recorded from the Anthropic Messages API's own wire
// stream (the anthropic-sdk-go's cassette of a weather question, in
// provider/anthropic/testdata), served by a local test server to the
// Anthropic adapter:
//
//	go run ./examples/record_replay -record   # re-record weather.json from the wire fixture
//	go run ./examples/record_replay           # replay it, strictly
//
// The replay checks each request against the recorded one: change the
// instructions below and it fails naming them.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/providertest"
	"github.com/paigasus/helikon/record"
)

const (
	question     = "Weather in SF in fahrenheit?"
	instructions = "Answer weather questions with the get_weather tool."
)

type weatherIn struct {
	City  string `json:"city"`
	Units string `json:"units,omitempty" jsonschema:"celsius or fahrenheit"`
}

// getWeather answers as the recorded conversation's tool did.
var getWeather = helikon.MustTool("get_weather", "Get weather",
	func(tc *helikon.ToolContext, in weatherIn) (string, error) {
		return fmt.Sprintf("The weather in %s is 68 degrees %s.", in.City, in.Units), nil
	})

func main() {
	rec := flag.Bool("record", false, "re-record weather.json from the Anthropic wire fixture")
	flag.Parse()
	// Run from the module's root or from this directory.
	dir := "."
	if _, err := os.Stat(filepath.Join("examples", "record_replay")); err == nil {
		dir = filepath.Join("examples", "record_replay")
	}
	var err error
	if *rec {
		err = recordRun(context.Background(), os.Stdout, filepath.Join(dir, "..", "..", "provider", "anthropic", "testdata"), filepath.Join(dir, "weather.json"))
	} else {
		err = replayRun(context.Background(), os.Stdout, dir)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// recordRun runs the weather agent on the Anthropic adapter against the
// recorded wire in the fixtures directory and writes what it did to path.
func recordRun(ctx context.Context, out io.Writer, fixtures, path string) error {
	srv, err := wireServer(fixtures)
	if err != nil {
		return err
	}
	defer srv.Close()
	live, err := anthropic.Messages("claude-3-7-sonnet-latest", anthropic.WithAPIKey("sk-ant-example-not-a-key"),
		anthropic.WithBaseURL(srv.URL), anthropic.WithMaxTokens(512))
	if err != nil {
		return err
	}
	rec := record.New()
	agent, err := helikon.NewAgent("weather", rec.Model(live), helikon.WithInstructions(instructions),
		helikon.WithTools(rec.Tool(getWeather)))
	if err != nil {
		return err
	}
	if err := show(ctx, out, agent); err != nil {
		return err
	}
	return rec.WriteFile(path)
}

// replayRun plays dir/weather.json back strictly and checks every
// recorded call was made.
func replayRun(ctx context.Context, out io.Writer, dir string) error {
	f, err := mock.LoadScriptFile(filepath.Join(dir, "weather.json"))
	if err != nil {
		return err
	}
	rp, err := record.NewReplay(f)
	if err != nil {
		return err
	}
	agent, err := helikon.NewAgent("weather", rp.Model(), helikon.WithInstructions(instructions),
		helikon.WithTools(rp.Tool(getWeather)))
	if err != nil {
		return err
	}
	if err := show(ctx, out, agent); err != nil {
		return err
	}
	if err := rp.Check(); err != nil {
		return err
	}
	fmt.Fprintf(out, "replay matched the recording: %d model calls\n", rp.Calls())
	return nil
}

// show runs the agent on the question and prints what happened.
func show(ctx context.Context, out io.Writer, agent helikon.Agent) error {
	var usage helikon.Usage
	for ev := range agent.Run(ctx, helikon.Ephemeral(), helikon.UserText(question)) {
		switch e := ev.(type) {
		case helikon.ToolCallItem:
			for _, u := range e.Item.ToolUses() {
				fmt.Fprintf(out, "call  %s %s\n", u.Name, u.Args)
			}
		case helikon.ToolOutputItem:
			for _, p := range e.Item.Content {
				if r, ok := p.(helikon.ToolResultPart); ok {
					fmt.Fprintf(out, "tool  %s\n", helikon.Item{Content: r.Content}.Text())
				}
			}
		case helikon.MessageOutput:
			fmt.Fprintf(out, "say   %s\n", e.Item.Text())
		case helikon.RunCompleted:
			usage = e.Usage
		case helikon.RunFailed:
			return e.Err
		}
	}
	fmt.Fprintf(out, "usage %d in, %d out\n", usage.InputTokens, usage.OutputTokens)
	return nil
}

// wireServer serves the two recorded Anthropic streams in turn.
func wireServer(testdata string) (*httptest.Server, error) {
	var recs []providertest.Recording
	for _, name := range []string{"tool_call.sse", "tool_round_trip_answer.sse"} {
		r, err := providertest.Load(filepath.Join(testdata, name))
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	var mu sync.Mutex
	n := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		rec := recs[n%len(recs)]
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(rec.Status)
		w.Write(rec.Body)
	})), nil
}
