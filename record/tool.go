package record

import (
	"encoding/json"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// Tool returns t wrapped so that each of its calls is recorded, redacted,
// for the plain run.
func (r *Recorder) Tool(t helikon.Tool) helikon.Tool { return r.CaseTool("", t) }

// CaseTool returns t wrapped so that each of its calls is recorded for
// caseID.
func (r *Recorder) CaseTool(caseID string, t helikon.Tool) helikon.Tool {
	return keepKind(t, &recordingTool{Tool: t, rec: r, caseID: caseID})
}

type recordingTool struct {
	helikon.Tool
	rec    *Recorder
	caseID string
}

// Effect passes the wrapped tool's effect on, so permissions see it.
func (t *recordingTool) Effect() helikon.ToolEffect { return helikon.EffectOf(t.Tool) }

// Call runs the tool and records what it returned.
func (t *recordingTool) Call(tc *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	out, err := t.Tool.Call(tc, args)
	rec := mock.ToolRecord{CallID: tc.CallID, Tool: t.Name(), Args: rawOrNil(args)}
	kept := out
	if r := t.rec.redactor; r != nil {
		rec.Args = redactJSON(r, rec.Args)
		kept = r.RedactOutput(out)
	}
	rec.Output, rec.Parts = rawOrNil(kept.Content), kept.Parts
	if err != nil {
		rec.Output, rec.Parts = nil, nil
		rec.Error = err.Error()
		if r := t.rec.redactor; r != nil {
			rec.Error = r.RedactText(rec.Error)
		}
	}
	t.rec.mu.Lock()
	t.rec.tools[t.caseID] = append(t.rec.tools[t.caseID], rec)
	t.rec.mu.Unlock()
	return out, err
}
