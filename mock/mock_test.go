package mock_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

func drain(m helikon.Model, ctx context.Context) ([]helikon.ModelEvent, error) {
	var evs []helikon.ModelEvent
	for ev, err := range m.Invoke(ctx, &helikon.ModelRequest{}) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func TestModel_PopsScriptsInOrderThenFails(t *testing.T) {
	m := mock.Scripted(mock.Text("one"), mock.Text("two"))
	for _, want := range []string{"one", "two"} {
		evs, err := drain(m, context.Background())
		if err != nil || evs[0].(helikon.TokenDelta).Text != want {
			t.Fatalf("got %v %v, want %q", evs, err, want)
		}
	}
	_, err := drain(m, context.Background())
	if !errors.Is(err, helikon.ErrModelOther) {
		t.Fatalf("exhausted script: err = %v", err)
	}
	if len(m.Requests()) != 3 {
		t.Errorf("recorded %d requests", len(m.Requests()))
	}
}

func TestModel_CancelEndsTheStreamPromptly(t *testing.T) {
	m := mock.New([]mock.Script{mock.Deltas("a", "b", "c")}, mock.WithDelay(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := drain(m, ctx)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, helikon.ErrTransport) {
		t.Fatalf("err = %v", err)
	}
}

func TestScriptFile_DefaultAndCases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "script.json")
	data := `{
	  "default": [
	    [{"type":"tool_call_delta","call_id":"c1","name":"add","args_delta":"{\"a\":1,\"b\":2}"},{"type":"finish","reason":"tool_calls"}],
	    [{"type":"token_delta","text":"3"},{"type":"usage","input_tokens":4,"output_tokens":1},{"type":"finish","reason":"stop"}]
	  ],
	  "cases": {"slow": [[{"type":"error","kind":"rate_limited","message":"slow down","retry_after_ms":20}]]}
	}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := mock.LoadScriptFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := drain(f.Model("unknown-case"), context.Background())
	if err != nil || evs[0].(helikon.ToolCallDelta).Name != "add" {
		t.Fatalf("default script: %v %v", evs, err)
	}
	_, err = drain(f.Model("slow"), context.Background())
	var me *helikon.ModelError
	if !errors.As(err, &me) || me.Kind != helikon.ModelRateLimited || me.RetryAfter != 20*time.Millisecond {
		t.Fatalf("case script: %v", err)
	}
}

func TestScriptFile_RejectsMalformedScripts(t *testing.T) {
	for _, in := range []string{
		`{`,
		`{"default":[[{"type":"warp"}]]}`,
		`{"default":[[{"type":"error"},{"type":"finish","reason":"stop"}]]}`,
		`{"cases":{"x":[[{"text":"no type"}]]}}`,
	} {
		if _, err := mock.ParseScriptFile([]byte(in)); err == nil {
			t.Errorf("%s parsed without error", in)
		}
	}
	if _, err := mock.LoadScriptFile("/does/not/exist.json"); err == nil {
		t.Error("missing file loaded")
	}
}

// TestScriptFile_DeltaDelayPacesOnlyTheDeltas pins delta_delay_ms: off by
// default, bounded, and when set a wait before each delta alone, which a
// cancelled context cuts short.
func TestScriptFile_DeltaDelayPacesOnlyTheDeltas(t *testing.T) {
	script := `[[{"type":"token_delta","text":"a"},{"type":"token_delta","text":"b"},{"type":"finish","reason":"stop"}]]`
	f, err := mock.ParseScriptFile([]byte(`{"default": ` + script + `}`))
	if err != nil || f.DeltaDelay != 0 {
		t.Fatalf("no delay set: %v, %v", f.DeltaDelay, err)
	}
	for _, bad := range []string{`-1`, `60001`, `"fast"`} {
		if _, err := mock.ParseScriptFile([]byte(`{"delta_delay_ms": ` + bad + `, "default": ` + script + `}`)); err == nil {
			t.Errorf("delta_delay_ms %s parsed", bad)
		}
	}
	f, err = mock.ParseScriptFile([]byte(`{"delta_delay_ms": 60000, "default": ` + script + `}`))
	if err != nil || f.DeltaDelay != time.Minute {
		t.Fatalf("delta_delay_ms 60000: %v, %v", f.DeltaDelay, err)
	}
	// A minute before each delta: the first event a stream yields waits
	// for it, so a cancel while it waits ends the stream with nothing.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	evs, err := drain(f.Model(""), ctx)
	if len(evs) != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting for the first delta: %v, %v", evs, err)
	}
	// Only deltas wait: a script of a finish alone streams at once under
	// an hour's delta delay.
	m := mock.New([]mock.Script{mock.Events(helikon.Finish{Reason: helikon.FinishStop})}, mock.WithDeltaDelay(time.Hour))
	if evs, err := drain(m, context.Background()); err != nil || len(evs) != 1 {
		t.Fatalf("finish only: %v, %v", evs, err)
	}
	for _, c := range []helikon.Model{f.Model(""), f.Conversational("", "a")} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		evs, err := drain(c, ctx)
		cancel()
		if len(evs) != 0 || err == nil {
			t.Errorf("%T streamed %v before its delay", c, evs)
		}
	}
}
