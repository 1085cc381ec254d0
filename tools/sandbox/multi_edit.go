package sandbox

import (
	"github.com/paigasus/helikon"
)

// MultiEditArgs are the arguments of the MultiEdit tool.
type MultiEditArgs struct {
	FilePath string        `json:"file_path" jsonschema:"path of the file, relative to the sandbox root"`
	Edits    []Replacement `json:"edits" jsonschema:"replacements applied in order, each to the result of the one before"`
}

// MultiEdit is the MultiEdit tool: several [Edit] replacements on one file,
// applied in order and written together, or not at all when one fails.
type MultiEdit struct {
	base
	maxBytes int
}

// NewMultiEdit returns the MultiEdit tool on sb.
func NewMultiEdit(sb *Sandbox, opts ...WriteOption) (*MultiEdit, error) {
	c, err := newWriteConfig("NewMultiEdit", opts)
	if err != nil {
		return nil, err
	}
	m := &MultiEdit{maxBytes: c.maxBytes}
	if m.base, err = newBase(sb, "MultiEdit", "Apply several exact-string replacements to one file inside the sandbox, in order, all or none. Each old_string must occur exactly once unless its replace_all is true.", true, m.call); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *MultiEdit) call(tc *helikon.ToolContext, in MultiEditArgs) (string, error) {
	if len(in.Edits) == 0 {
		return "", invalid("MultiEdit", "edits is empty")
	}
	return m.sb.edit("MultiEdit", in.FilePath, in.Edits, m.maxBytes)
}
