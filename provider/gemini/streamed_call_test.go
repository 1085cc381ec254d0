package gemini

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

// sse frames each chunk's parts as one streamGenerateContent event, the
// last with finishReason STOP.
func sse(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		finish := ""
		if i == len(parts)-1 {
			finish = `,"finishReason":"STOP"`
		}
		b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[` + p + `]}` + finish + `}],"responseId":"r"}` + "\n\n")
	}
	return b.String()
}

// calls assembles the tool calls of a replay, in order.
func calls(evs []helikon.ModelEvent) map[string]helikon.ToolUsePart {
	out := map[string]helikon.ToolUsePart{}
	for _, ev := range evs {
		if d, ok := ev.(helikon.ToolCallDelta); ok {
			c := out[d.CallID]
			c.CallID = d.CallID
			if d.Name != "" {
				c.Name = d.Name
			}
			c.Args = append(c.Args, d.ArgsDelta...)
			out[d.CallID] = c
		}
	}
	return out
}

func TestStreamedCall_ArgumentPiecesAssembleIntoTheirCall(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		want  map[string]string // call id → name and arguments, "name args"
		calls int
	}{
		{"strings in pieces, numbers, bools and nulls", sse(
			`{"functionCall":{"name":"f","willContinue":true}}`,
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.s","stringValue":"hel","willContinue":true}],"willContinue":true}}`,
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.s","stringValue":"lo"},{"jsonPath":"$.n","numberValue":1.5},{"jsonPath":"$.b","boolValue":true},{"jsonPath":"$.z","nullValue":"NULL_VALUE"}],"willContinue":true}}`,
			`{"functionCall":{}}`),
			map[string]string{"call_r_0": `f {"b":true,"n":1.5,"s":"hello","z":null}`}, 1},
		{"nested objects, arrays and quoted members", sse(
			`{"functionCall":{"id":"c1","name":"f","args":{"room":"living"},"willContinue":true}}`,
			`{"functionCall":{"id":"c1","partialArgs":[{"jsonPath":"$.a.b[0].c","stringValue":"x"},{"jsonPath":"$.a.b[1]","numberValue":2},{"jsonPath":"$['odd.key']","stringValue":"y"}],"willContinue":true}}`,
			`{"functionCall":{"id":"c1"}}`),
			map[string]string{"c1": `f {"a":{"b":[{"c":"x"},2]},"odd.key":"y","room":"living"}`}, 1},
		{"a piece without willContinue replaces, not appends", sse(
			`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.s","stringValue":"a"}],"willContinue":true}}`,
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.s","stringValue":"b"}]}}`),
			map[string]string{"call_r_0": `f {"s":"b"}`}, 1},
		{"two calls open at once, continued by id", sse(
			`{"functionCall":{"id":"a","name":"one","willContinue":true}},{"functionCall":{"id":"b","name":"two","willContinue":true}}`,
			`{"functionCall":{"id":"b","partialArgs":[{"jsonPath":"$.x","numberValue":2}]}},{"functionCall":{"id":"a","partialArgs":[{"jsonPath":"$.x","numberValue":1}]}}`),
			map[string]string{"a": `one {"x":1}`, "b": `two {"x":2}`}, 2},
		{"continuation naming its call again", sse(
			`{"functionCall":{"name":"f","willContinue":true}}`,
			`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.q","stringValue":"v"}]}}`),
			map[string]string{"call_r_0": `f {"q":"v"}`}, 1},
		{"whole calls stay as they were", sse(
			`{"functionCall":{"name":"f","args":{"a":1}}},{"functionCall":{"name":"f","args":{"a":2}}}`),
			map[string]string{"call_r_0": `f {"a":1}`, "call_r_1": `f {"a":2}`}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, slowOnly := range []bool{false, true} {
				evs, err := replay(t, tt.body, slowOnly)
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				got := calls(evs)
				if len(got) != tt.calls {
					t.Fatalf("%d calls %v, want %d", len(got), got, tt.calls)
				}
				for id, w := range tt.want {
					name, args, _ := strings.Cut(w, " ")
					c := got[id]
					var a, b any
					if c.Name != name || json.Unmarshal(c.Args, &a) != nil || json.Unmarshal([]byte(args), &b) != nil || !jsonEqual(a, b) {
						t.Errorf("call %s = %s %s, want %s %s", id, c.Name, c.Args, name, args)
					}
				}
				if f, ok := evs[len(evs)-1].(helikon.Finish); !ok || f.Reason != helikon.FinishToolCalls {
					t.Errorf("last event %+v, want Finish tool_calls", evs[len(evs)-1])
				}
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestStreamedCall_PiecesThatFitNoCallAreMalformed(t *testing.T) {
	deep := `{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$` + strings.Repeat(".a", maxArgPathDepth+1) + `","stringValue":"x"}]}}`
	tests := []struct {
		name, body, cause string
	}{
		{"empty functionCall with no call streaming", sse(`{"functionCall":{"name":"f","args":{}}},{"functionCall":{}}`), "continues no open call"},
		{"partialArgs with no call streaming", sse(`{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}]}}`), "without a name"},
		{"no id, two calls open", sse(`{"functionCall":{"id":"a","name":"one","willContinue":true}},{"functionCall":{"id":"b","name":"two","willContinue":true}}`,
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.x","stringValue":"y"}]}}`), "continues no open call (2 open)"},
		{"stream ends inside a call", sse(`{"functionCall":{"name":"f","willContinue":true}}`), "still streaming"},
		{"index past the array's end", sse(`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a[3]","numberValue":1}]}}`), "past the array's end"},
		{"huge index", sse(`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a[99999999999999999999]","numberValue":1}]}}`), "bad index"},
		{"object member of an array", sse(`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a[0]","numberValue":1},{"jsonPath":"$.a.b","numberValue":1}]}}`), "member of an array"},
		{"path not from $", sse(`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"a","stringValue":"x"}]}}`), "does not start at $"},
		{"path at the root itself", sse(`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$","stringValue":"x"}]}}`), "does not name a member"},
		{"no value", sse(`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a"}]}}`), "has no value"},
		{"number that is not one", sse(`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","numberValue":"1"}]}}`), "not a number"},
		{"path too deep", sse(deep), "deeper than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := replay(t, tt.body, false)
			var me *helikon.ModelError
			if !errors.As(err, &me) || me.Kind != helikon.ModelTransport || me.Message != "malformed event" || !strings.Contains(err.Error(), tt.cause) {
				t.Fatalf("err = %v, want a malformed event saying %q", err, tt.cause)
			}
			for id, c := range calls(evs) {
				if c.Name == "" {
					t.Errorf("call %s has no name", id)
				}
			}
		})
	}
}

func TestStreamedCall_ArgumentsOverTheBoundAreMalformed(t *testing.T) {
	piece := `{"functionCall":{"partialArgs":[{"jsonPath":"$.s","stringValue":"` + strings.Repeat("x", 1<<20) + `","willContinue":true}],"willContinue":true}}`
	parts := []string{`{"functionCall":{"name":"f","willContinue":true}}`}
	for range maxStreamedArgs>>20 + 1 {
		parts = append(parts, piece)
	}
	_, err := replay(t, sse(parts...), false)
	if !errors.Is(err, errStreamedArgs) || !strings.Contains(err.Error(), "arguments over") {
		t.Fatalf("err = %v, want the arguments bound", err)
	}
}
