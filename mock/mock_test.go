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
