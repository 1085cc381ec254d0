package mock

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/paigasus/helikon"
)

// Text returns a script that answers text in one delta.
func Text(text string) Script {
	return Script{Events: []helikon.ModelEvent{
		helikon.TokenDelta{Text: text},
		helikon.Usage{InputTokens: 10, OutputTokens: 5},
		helikon.Finish{Reason: helikon.FinishStop},
	}}
}

// Deltas returns a script that streams each part as its own delta.
func Deltas(parts ...string) Script {
	evs := make([]helikon.ModelEvent, 0, len(parts)+2)
	for _, p := range parts {
		evs = append(evs, helikon.TokenDelta{Text: p})
	}
	evs = append(evs, helikon.Usage{InputTokens: 10, OutputTokens: int64(len(parts))}, helikon.Finish{Reason: helikon.FinishStop})
	return Script{Events: evs}
}

// Call is one scripted tool call.
type Call struct {
	ID, Name, Args string
}

// ToolCalls returns a script that requests calls, each streamed as one delta.
func ToolCalls(calls ...Call) Script {
	evs := make([]helikon.ModelEvent, 0, len(calls)+2)
	for _, c := range calls {
		evs = append(evs, helikon.ToolCallDelta{CallID: c.ID, Name: c.Name, ArgsDelta: c.Args})
	}
	evs = append(evs, helikon.Usage{InputTokens: 10, OutputTokens: 5}, helikon.Finish{Reason: helikon.FinishToolCalls})
	return Script{Events: evs}
}

// Events returns a script of raw events.
func Events(evs ...helikon.ModelEvent) Script { return Script{Events: evs} }

// Fail returns a script that fails with err before streaming anything.
func Fail(err error) Script { return Script{Err: err} }

// ScriptFile is a JSON file of scripts: a "default" list plus an optional
// "cases" map keyed by case id, so one file drives a whole eval dataset.
//
//	{
//	  "default": [
//	    [{"type": "tool_call_delta", "call_id": "c1", "name": "add", "args_delta": "{\"a\":1,\"b\":2}"},
//	     {"type": "finish", "reason": "tool_calls"}],
//	    [{"type": "token_delta", "text": "3"}, {"type": "finish", "reason": "stop"}]
//	  ],
//	  "cases": {"case-2": [[{"type": "error", "kind": "rate_limited", "message": "slow down", "retry_after_ms": 20}]]}
//	}
//
// Events use the JSON form of [helikon.ModelEvent]; an element of type
// "error" ends its script with a [helikon.ModelError]. An optional
// "delta_delay_ms" (0 to [MaxDeltaDelay], off by default) waits that long
// before each delta, so a streamed answer can be watched arriving:
//
//	{"delta_delay_ms": 150, "default": [[{"type": "token_delta", "text": "Hel"}, …]]}
type ScriptFile struct {
	Default []Script
	Cases   map[string][]Script
	// DeltaDelay is waited before each delta event ([WithDeltaDelay]) by
	// the models the file makes.
	DeltaDelay time.Duration
}

// MaxDeltaDelay bounds a script file's delta_delay_ms.
const MaxDeltaDelay = time.Minute

// LoadScriptFile reads and parses a script file.
func LoadScriptFile(path string) (*ScriptFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	f, err := ParseScriptFile(data)
	if err != nil {
		return nil, fmt.Errorf("mock: %s: %w", path, err)
	}
	return f, nil
}

// FromFile returns a Model playing the default scripts of the file at path.
func FromFile(path string, opts ...Option) (*Model, error) {
	f, err := LoadScriptFile(path)
	if err != nil {
		return nil, err
	}
	return New(f.Default, opts...), nil
}

// Model returns a fresh Model for a case: the case's scripts when the file
// has them, the default ones otherwise.
func (f *ScriptFile) Model(caseID string, opts ...Option) *Model {
	return New(f.scripts(caseID), f.options(opts)...)
}

// scripts returns the case's scripts when the file has them, the default
// ones otherwise.
func (f *ScriptFile) scripts(caseID string) []Script {
	if s, ok := f.Cases[caseID]; ok {
		return s
	}
	return f.Default
}

// options puts the file's own settings before opts, which may override them.
func (f *ScriptFile) options(opts []Option) []Option {
	if f.DeltaDelay == 0 {
		return opts
	}
	return append([]Option{WithDeltaDelay(f.DeltaDelay)}, opts...)
}

// ParseScriptFile parses the JSON form of a ScriptFile.
func ParseScriptFile(data []byte) (*ScriptFile, error) {
	var raw struct {
		Default      [][]json.RawMessage            `json:"default"`
		Cases        map[string][][]json.RawMessage `json:"cases"`
		DeltaDelayMS *float64                       `json:"delta_delay_ms"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse script file: %w", err)
	}
	f := &ScriptFile{}
	if d := raw.DeltaDelayMS; d != nil {
		if !(*d >= 0 && *d <= float64(MaxDeltaDelay/time.Millisecond)) {
			return nil, fmt.Errorf("delta_delay_ms is %v; want 0 to %d", *d, MaxDeltaDelay/time.Millisecond)
		}
		f.DeltaDelay = time.Duration(*d * float64(time.Millisecond))
	}
	var err error
	if f.Default, err = parseScripts(raw.Default); err != nil {
		return nil, fmt.Errorf("default: %w", err)
	}
	if len(raw.Cases) > 0 {
		f.Cases = make(map[string][]Script, len(raw.Cases))
		for id, c := range raw.Cases {
			if f.Cases[id], err = parseScripts(c); err != nil {
				return nil, fmt.Errorf("case %q: %w", id, err)
			}
		}
	}
	return f, nil
}

func parseScripts(raw [][]json.RawMessage) ([]Script, error) {
	out := make([]Script, 0, len(raw))
	for i, evs := range raw {
		var s Script
		for j, r := range evs {
			if s.Err != nil {
				return nil, fmt.Errorf("script %d: event %d follows an error", i, j)
			}
			var head struct {
				Type         string `json:"type"`
				Kind         string `json:"kind"`
				Message      string `json:"message"`
				RetryAfterMS int64  `json:"retry_after_ms"`
			}
			if err := json.Unmarshal(r, &head); err != nil {
				return nil, fmt.Errorf("script %d event %d: %w", i, j, err)
			}
			if head.Type == "error" {
				kind := helikon.ModelErrorKind(head.Kind)
				if kind == "" {
					kind = helikon.ModelOther
				}
				s.Err = &helikon.ModelError{Kind: kind, Provider: "mock", Message: head.Message,
					RetryAfter: time.Duration(head.RetryAfterMS) * time.Millisecond}
				continue
			}
			ev, err := helikon.UnmarshalModelEvent(r)
			if err != nil {
				return nil, fmt.Errorf("script %d event %d: %w", i, j, err)
			}
			s.Events = append(s.Events, ev)
		}
		out = append(out, s)
	}
	return out, nil
}
