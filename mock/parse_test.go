package mock_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsondepth"
	"github.com/paigasus/helikon/mock"
)

const recording = `{
  "version": 2,
  "default": [
    {
      "request": {"instructions": ["Be brief."], "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
      "events": [
        {"type": "token_delta", "text": "hello"},
        {"type": "finish", "reason": "stop"}
      ],
      "gaps_ms": [1.5, 0.25]
    },
    [{"type": "token_delta", "text": "hand-written"}, {"type": "finish", "reason": "stop"}]
  ],
  "tools": [{"call_id": "c1", "tool": "add", "args": {"a": 1}, "output": "{\"sum\":3}"}]
}
`

// TestParseScriptFile_ReadsRecordingsBesideHandWrittenScripts: a version 2
// file mixes recorded scripts (request, events, gaps) with plain lists,
// and MarshalScriptFile writes back what it read.
func TestParseScriptFile_ReadsRecordingsBesideHandWrittenScripts(t *testing.T) {
	f, err := mock.ParseScriptFile([]byte(recording))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Default[0]
	if f.Version != 2 || s.Request.Instructions[0] != "Be brief." || s.Request.Messages[0].Text() != "hi" ||
		s.Gaps[0].Microseconds() != 1500 || s.Events[0].(helikon.TokenDelta).Text != "hello" {
		t.Fatalf("recorded script: %+v", s)
	}
	if f.Default[1].Request != nil || f.Default[1].Events[0].(helikon.TokenDelta).Text != "hand-written" {
		t.Fatalf("hand-written script: %+v", f.Default[1])
	}
	if out, err := f.Tools[0].ToolOutput(); err != nil || string(out.Content) != `{"sum":3}` {
		t.Fatalf("tool record: %+v %v", out, err)
	}
	data, err := mock.MarshalScriptFile(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := mock.ParseScriptFile(data)
	if err != nil || g.Default[0].Gaps[1] != s.Gaps[1] || string(g.Tools[0].Output) != `{"sum":3}` || g.Default[0].Request.Instructions[0] != "Be brief." {
		t.Fatalf("round trip: %v\n%s", err, data)
	}
}

// TestParseScriptFile_RefusesABrokenFileNamingItsLine: truncated, corrupt
// and unreadable recordings each fail with the line at fault.
func TestParseScriptFile_RefusesABrokenFileNamingItsLine(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		line       int
		says       string
	}{
		{"truncated", recording[:strings.Index(recording, `"gaps_ms"`)], 10, "ends early"},
		{"corrupt byte", strings.Replace(recording, `"text": "hello"}`, `"text": "hello"]`, 1), 7, "invalid character"},
		{"unknown event", strings.Replace(recording, `"token_delta", "text": "hand`, `"warp", "text": "hand`, 1), 12, "unknown model event"},
		{"event after an error", `{"default": [[
  {"type": "error", "message": "x"},
  {"type": "finish", "reason": "stop"}]]}`, 3, "follows an error"},
		{"wrong type", strings.Replace(recording, `"gaps_ms": [1.5, 0.25]`, `"gaps_ms": [1.5, "soon"]`, 1), 10, "cannot unmarshal"},
		{"negative gap", strings.Replace(recording, `[1.5, 0.25]`, `[1.5, -1]`, 1), 10, "gap 1"},
		{"newer version", strings.Replace(recording, `"version": 2`, `"version": 3`, 1), 2, "version 3"},
		{"bad message", strings.Replace(recording, `"type": "text", "text": "hi"`, `"type": "hologram"`, 1), 5, "hologram"},
		{"trailing data", recording + "{}", 16, "after the file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mock.ParseScriptFile([]byte(tc.file))
			var pe *mock.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a ParseError", err)
			}
			if pe.Line != tc.line || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q (line %d), want line %d saying %q", err, pe.Line, tc.line, tc.says)
			}
		})
	}
}

// TestParseScriptFile_BoundsAHostileFile: a file over the size bound or
// nested past the depth bound is refused before it is decoded.
func TestParseScriptFile_BoundsAHostileFile(t *testing.T) {
	deep := `{"default": [[{"type": "token_delta", "text": "x", "more": ` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}]]}`
	if _, err := mock.ParseScriptFile([]byte(deep)); !errors.Is(err, jsondepth.ErrTooDeep) {
		t.Errorf("deep file: %v", err)
	}
	big := make([]byte, mock.MaxScriptFileBytes+1)
	if _, err := mock.ParseScriptFile(big); !errors.Is(err, mock.ErrScriptFileTooLarge) {
		t.Errorf("big file: %v", err)
	}
}
