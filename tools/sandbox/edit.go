package sandbox

import (
	"fmt"
	"io"
	"strings"

	"github.com/paigasus/helikon"
)

// EditArgs are the arguments of the Edit tool.
type EditArgs struct {
	FilePath string `json:"file_path" jsonschema:"path of the file, relative to the sandbox root"`
	Replacement
}

// Replacement is one exact-string replacement.
type Replacement struct {
	OldString  string `json:"old_string" jsonschema:"the exact text to replace; it must occur once unless replace_all is set"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence"`
}

// Edit is the Edit tool: it replaces an exact string in a file inside the
// sandbox. The string must occur exactly once unless replace_all is set;
// otherwise the call fails saying how many times it occurs, and the file
// is left as it was.
type Edit struct {
	base
	maxBytes int
}

// NewEdit returns the Edit tool on sb.
func NewEdit(sb *Sandbox, opts ...WriteOption) (*Edit, error) {
	c, err := newWriteConfig("NewEdit", opts)
	if err != nil {
		return nil, err
	}
	e := &Edit{maxBytes: c.maxBytes}
	if e.base, err = newBase(sb, "Edit", "Replace an exact string in a file inside the sandbox. old_string must occur exactly once unless replace_all is true; include enough context to make it unique.", true, e.call); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Edit) call(tc *helikon.ToolContext, in EditArgs) (string, error) {
	return e.sb.edit("Edit", in.FilePath, []Replacement{in.Replacement}, e.maxBytes)
}

// edit applies reps in order to the file at p, all or nothing, and writes
// the result atomically.
func (s *Sandbox) edit(tool, file string, reps []Replacement, maxBytes int) (string, error) {
	p, err := s.clean(tool, file)
	if err != nil {
		return "", err
	}
	f, fi, err := s.openRegular(tool, p)
	if err != nil {
		return "", err
	}
	if fi.Size() > int64(maxBytes) {
		f.Close()
		return "", failed(tool, p, fmt.Sprintf("file of %d bytes, past the %d this tool edits", fi.Size(), maxBytes))
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(maxBytes)+1))
	f.Close()
	if err != nil {
		return "", s.fail(tool, p, err)
	}
	if isBinary(b, true) {
		return "", failed(tool, p, "is a binary file")
	}
	text := string(b)
	total := 0
	for i, r := range reps {
		at := ""
		if len(reps) > 1 {
			at = fmt.Sprintf("edit %d: ", i+1)
		}
		if r.OldString == "" {
			return "", invalid(tool, at+"old_string is empty")
		}
		if r.OldString == r.NewString {
			return "", invalid(tool, at+"old_string and new_string are the same")
		}
		n := strings.Count(text, r.OldString)
		switch {
		case n == 0:
			return "", failed(tool, p, at+"old_string not found; nothing changed")
		case n > 1 && !r.ReplaceAll:
			return "", failed(tool, p, fmt.Sprintf("%sold_string occurs %d times; add context to make it unique or set replace_all; nothing changed", at, n))
		}
		if r.ReplaceAll {
			text = strings.ReplaceAll(text, r.OldString, r.NewString)
		} else {
			text = strings.Replace(text, r.OldString, r.NewString, 1)
		}
		if len(text) > maxBytes {
			return "", tooBig(tool, len(text), maxBytes)
		}
		total += n
	}
	if err := s.writeAtomic(tool, p, []byte(text)); err != nil {
		return "", err
	}
	return fmt.Sprintf("replaced %d occurrence(s) in %s", total, p), nil
}

func invalid(tool, msg string) error {
	return &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool, SchemaErrors: []string{msg}}
}
