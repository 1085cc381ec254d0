package main

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/paigasus/helikon/mock"
)

// TestRecordReplayExample_ReplaysTheCommittedRecording plays weather.json
// back strictly, with no key and no network.
func TestRecordReplayExample_ReplaysTheCommittedRecording(t *testing.T) {
	var out strings.Builder
	if err := replayRun(context.Background(), &out, "."); err != nil {
		t.Fatal(err)
	}
	want := `say   I'll get the current weather in San Francisco for you in Fahrenheit.
call  get_weather {"city": "San Francisco", "units": "fahrenheit"}
tool  "The weather in San Francisco is 68 degrees fahrenheit."
say   The current weather in San Francisco is 68 degrees Fahrenheit.
usage 906 in, 108 out
replay matched the recording: 2 model calls
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestRecordReplayExample_RecordingIsWhatTheWireFixtureMakes records the
// run again from the Anthropic wire fixture: the same output, and a file
// equal to the committed one but for the timings.
func TestRecordReplayExample_RecordingIsWhatTheWireFixtureMakes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "weather.json")
	var out strings.Builder
	if err := recordRun(context.Background(), &out, "../../provider/anthropic/testdata", path); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "usage 906 in, 108 out\n") {
		t.Errorf("output:\n%s", out.String())
	}
	load := func(p string) *mock.ScriptFile {
		f, err := mock.LoadScriptFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Default {
			f.Default[i].Gaps = nil
		}
		return f
	}
	if got, committed := load(path), load("weather.json"); !reflect.DeepEqual(got, committed) {
		t.Errorf("a new recording differs from weather.json beyond its timings: re-record with go run . -record")
	}
}
