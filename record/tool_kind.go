package record

import (
	"encoding/json"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	// A replayed shell tool's command lines are read as the recorded
	// program's were, with the parser tools/bash links.
	_ "github.com/paigasus/helikon/governance/shellsyntax"
)

// keepKind returns w, which wraps t, declaring the same tool kind as t: a
// wrapper that hid a shell or file tool's kind would take it out from
// under the shell and path rules.
func keepKind(t, w helikon.Tool) helikon.Tool {
	switch k := t.(type) {
	case governance.ShellTool:
		return shellTool{w, k}
	case governance.FileTool:
		return fileTool{w, k}
	}
	return w
}

type shellTool struct {
	helikon.Tool
	kind governance.ShellTool
}

func (t shellTool) Effect() helikon.ToolEffect { return helikon.EffectOf(t.kind) }

func (t shellTool) ShellCommand(args json.RawMessage) (string, error) {
	return t.kind.ShellCommand(args)
}

type fileTool struct {
	helikon.Tool
	kind governance.FileTool
}

func (t fileTool) Effect() helikon.ToolEffect { return helikon.EffectOf(t.kind) }

func (t fileTool) FileAccess(args json.RawMessage) ([]governance.FileAccess, error) {
	return t.kind.FileAccess(args)
}
