package mock

import (
	"fmt"
	"io"
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
//
// Version 2 files, which [MarshalScriptFile] writes for a recording, may
// give a script as an object instead of a list of events: its "events",
// the "request" that produced them ([Request]) and the "gaps_ms" waited
// before each event; "tools" and "case_tools" hold recorded tool calls
// ([ToolRecord]). A file without "version" is version 1.
type ScriptFile struct {
	// Version is the format's version: 1 for hand-written scripts, 2 for
	// recordings.
	Version int
	Default []Script
	Cases   map[string][]Script
	// Tools and CaseTools are the recorded tool calls, of the default run
	// and by case id.
	Tools     []ToolRecord
	CaseTools map[string][]ToolRecord
	// DeltaDelay is waited before each delta event ([WithDeltaDelay]) by
	// the models the file makes.
	DeltaDelay time.Duration
}

// MaxDeltaDelay bounds a script file's delta_delay_ms.
const MaxDeltaDelay = time.Minute

// LoadScriptFile reads and parses a script file.
func LoadScriptFile(path string) (*ScriptFile, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	defer fh.Close()
	// One byte past the bound is enough for ParseScriptFile to refuse it.
	data, err := io.ReadAll(io.LimitReader(fh, MaxScriptFileBytes+1))
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
