package starlarktool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/starlarktool"
)

var objectParams = map[string]any{"type": "object"}

func call(t *testing.T, ctx context.Context, src, args string, lim starlarktool.Limits) (string, error) {
	t.Helper()
	tool, err := starlarktool.New("t", "test tool", objectParams, "t.star", src, starlarktool.WithLimits(lim))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	out, err := tool.Call(&helikon.ToolContext{Context: ctx}, json.RawMessage(args))
	return string(out.Content), err
}

// scriptErr unwraps a call's error down to the ScriptError.
func scriptErr(t *testing.T, err error) *starlarktool.ScriptError {
	t.Helper()
	var te *helikon.ToolError
	if !errors.As(err, &te) || te.Tool != "t" {
		t.Fatalf("error %v (%T) is not a ToolError naming the tool", err, err)
	}
	var se *starlarktool.ScriptError
	if !errors.As(err, &se) {
		t.Fatalf("error %v carries no ScriptError", err)
	}
	return se
}

// TestTool_ConvertsJSONBothWays pins args as Starlark values and the
// result back as JSON.
func TestTool_ConvertsJSONBothWays(t *testing.T) {
	src := `
def run(args):
    return {"n": args["n"] * 2, "tags": [t.upper() for t in args["tags"]], "nested": args["o"], "none": None, "ok": True}
`
	got, err := call(t, context.Background(), src, `{"n": 21, "tags": ["a","b"], "o": {"x": 1.5}}`, starlarktool.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// json.encode writes object keys in sorted order, so the output is stable.
	want := `{"n":42,"nested":{"x":1.5},"none":null,"ok":true,"tags":["A","B"]}`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestTool_Sandbox pins every cap and every refused capability.
func TestTool_Sandbox(t *testing.T) {
	tests := []struct {
		name, src, args string
		lim             starlarktool.Limits
		want            string
		line            int
	}{
		{"endless loop hits the step cap", "def run(args):\n    while True:\n        pass\n", `{}`,
			starlarktool.Limits{MaxSteps: 10_000}, "too many steps", 1},
		{"slow loop hits the time cap", "def run(args):\n    while True:\n        pass\n", `{}`,
			// No line: on a loaded machine the host may kill the worker
			// before the interpreter sees the cap.
			starlarktool.Limits{MaxSteps: 1 << 62, Timeout: 30 * time.Millisecond}, "time cap of 30ms exceeded", 0},
		{"huge output is refused", "def run(args):\n    return \"x\" * 100000\n", `{}`,
			starlarktool.Limits{MaxOutputBytes: 1024}, "over the 1024-byte output cap", 1},
		{"fail() reports the script line", "def run(args):\n    x = 1\n    fail(\"boom\")\n", `{}`,
			starlarktool.Limits{}, "boom", 3},
		{"a runtime error reports the line", "def run(args):\n    return args[\"missing\"]\n", `{}`,
			starlarktool.Limits{}, "missing", 2},
		{"a result with no JSON form", "def run(args):\n    return run\n", `{}`,
			starlarktool.Limits{}, "no JSON form", 1},
		{"oversized arguments", "def run(args):\n    return 1\n", `{"s": "` + strings.Repeat("a", 200) + `"}`,
			starlarktool.Limits{MaxArgsBytes: 100}, "over the 100-byte limit", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, context.Background(), tt.src, tt.args, tt.lim)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if tt.line == 0 {
				return
			}
			se := scriptErr(t, err)
			if se.File != "t.star" || se.Line != tt.line {
				t.Fatalf("located at %s:%d, want t.star:%d (%v)", se.File, se.Line, tt.line, err)
			}
		})
	}
}

// TestCompile_RefusesCapabilities pins that load(), files, environment and
// modules beyond json are out of reach at compile time.
func TestCompile_RefusesCapabilities(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"load of a file", "load(\"secrets.star\", \"key\")\ndef run(args):\n    return key\n", "load is not allowed"},
		{"environment", "def run(args):\n    return os.environ[\"HOME\"]\n", "undefined: os"},
		{"file access", "def run(args):\n    return open(\"/etc/passwd\").read()\n", "undefined: open"},
		{"no run", "def helper(args):\n    return 1\n", "does not define run(args)"},
		{"run with two parameters", "def run(a, b):\n    return 1\n", "exactly one"},
		{"top level that runs away", "x = [i for i in range(1 << 40)]\ndef run(args):\n    return 1\n", "too many steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := starlarktool.Compile("t.star", tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "t.star") {
				t.Fatalf("err %q does not start with the file name", err)
			}
		})
	}
}

// TestTool_CancelledContextStopsTheScript pins that a cancelled run stops
// a script mid-loop.
func TestTool_CancelledContextStopsTheScript(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := call(t, ctx, "def run(args):\n    while True:\n        pass\n", `{}`,
		starlarktool.Limits{MaxSteps: 1 << 62, Timeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("err = %v", err)
	}
}

// TestNew_RejectsBadParams refuses a params table that is not a schema.
func TestNew_RejectsBadParams(t *testing.T) {
	_, err := starlarktool.New("t", "", map[string]any{"type": 12}, "t.star", "def run(args):\n    return 1\n")
	if err == nil {
		t.Fatal("accepted params with type = 12")
	}
}
