package mock

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/paigasus/helikon"
)

// MarshalScriptFile encodes f in the JSON form [ParseScriptFile] reads, as
// a version [FormatVersion] file. A script with a recorded request or gaps
// is written as an object, any other as a plain list of events; model
// errors are kept as "error" elements with their kind, message and retry
// delay. Case ids come out sorted, so that a recording diffs cleanly.
func MarshalScriptFile(f *ScriptFile) ([]byte, error) {
	doc := struct {
		Version      int                     `json:"version"`
		DeltaDelayMS float64                 `json:"delta_delay_ms,omitempty"`
		Default      []any                   `json:"default"`
		Cases        map[string][]any        `json:"cases,omitempty"`
		Tools        []ToolRecord            `json:"tools,omitempty"`
		CaseTools    map[string][]ToolRecord `json:"case_tools,omitempty"`
	}{Version: FormatVersion, DeltaDelayMS: ms(f.DeltaDelay.Nanoseconds()), Default: encodeScripts(f.Default),
		Tools: f.Tools, CaseTools: f.CaseTools}
	if len(f.Cases) > 0 {
		doc.Cases = make(map[string][]any, len(f.Cases))
		for id, scripts := range f.Cases {
			doc.Cases[id] = encodeScripts(scripts)
		}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("mock: encode scripts: %w", err)
	}
	return append(data, '\n'), nil
}

// ms returns ns in milliseconds, to the microsecond.
func ms(ns int64) float64 { return math.Round(float64(ns)/1e3) / 1e3 }

func encodeScripts(scripts []Script) []any {
	out := make([]any, len(scripts))
	for i, s := range scripts {
		evs := make([]any, 0, len(s.Events)+1)
		for _, ev := range s.Events {
			evs = append(evs, ev)
		}
		if s.Err != nil {
			evs = append(evs, scriptError(s.Err))
		}
		if s.Request == nil && s.Gaps == nil {
			out[i] = evs
			continue
		}
		gaps := make([]float64, len(s.Gaps))
		for j, g := range s.Gaps {
			gaps[j] = ms(g.Nanoseconds())
		}
		out[i] = struct {
			Request *Request  `json:"request,omitempty"`
			Events  []any     `json:"events"`
			GapsMS  []float64 `json:"gaps_ms,omitempty"`
		}{s.Request, evs, gaps}
	}
	return out
}

// scriptError is the script file's form of a model error.
func scriptError(err error) map[string]any {
	out := map[string]any{"type": "error", "kind": string(helikon.ModelOther), "message": err.Error()}
	var me *helikon.ModelError
	if errors.As(err, &me) {
		out["kind"] = string(me.Kind)
		out["message"] = me.Message
		if me.Message == "" && me.Err != nil {
			out["message"] = me.Err.Error()
		}
		if me.RetryAfter > 0 {
			out["retry_after_ms"] = me.RetryAfter.Milliseconds()
		}
	}
	return out
}

// ToolRecords returns the recorded tool calls of a case when the file has
// them, the default ones otherwise.
func (f *ScriptFile) ToolRecords(caseID string) []ToolRecord {
	if t, ok := f.CaseTools[caseID]; ok {
		return t
	}
	return f.Tools
}

// ScriptsFor returns the case's scripts when the file has them, the
// default ones otherwise.
func (f *ScriptFile) ScriptsFor(caseID string) []Script { return f.scripts(caseID) }
