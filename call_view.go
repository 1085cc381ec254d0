package helikon

import (
	"strings"

	"github.com/paigasus/helikon/internal/shellmatch"
)

// ruleKind says what a [DenyRule] or [AllowRule] matches on.
type ruleKind uint8

const (
	ruleTool ruleKind = iota
	ruleBash
	ruleRead
	ruleEdit
)

// rule is the matcher shared by deny and allow rules.
type rule struct {
	kind ruleKind
	name string // tool name, program, or path pattern
	glob *pathGlob
}

// String renders the rule as Tool(specifier).
func (r rule) String() string {
	switch r.kind {
	case ruleBash:
		return "Bash(" + r.name + ")"
	case ruleRead:
		return "Read(" + r.name + ")"
	case ruleEdit:
		return "Edit(" + r.name + ")"
	}
	return r.name
}

// concerns reports whether a path rule applies to tools of class c.
func (r rule) concerns(c toolClass) bool {
	return (r.kind == ruleRead && c == classRead) || (r.kind == ruleEdit && c == classEdit)
}

// toolClass groups the tools that rules understand by their arguments.
type toolClass uint8

const (
	classOther toolClass = iota
	classBash            // "Bash" with a "command" string
	classRead            // "Read" with a "file_path" or "path"
	classEdit            // "Write", "Edit", "MultiEdit", "NotebookEdit" with a path
)

func classOf(tool string) toolClass {
	switch tool {
	case "Bash":
		return classBash
	case "Read":
		return classRead
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return classEdit
	}
	return classOther
}

// pathKeys are the argument names that carry a file path.
var pathKeys = [...]string{"file_path", "path", "notebook_path"}

// callView is one call as the rules see it, read once per pipeline pass. It
// keeps its scripts in an array rather than a slice of itself, so a view on
// the stack stays there.
type callView struct {
	req        PermissionRequest
	class      toolClass
	unreadable bool
	nScripts   int
	scriptArr  [2]*shellmatch.Script
	moreScript []*shellmatch.Script // when a call has more than two commands
	paths      []string
}

func (v *callView) read(req PermissionRequest) {
	*v = callView{req: req, class: classOf(req.Tool)}
	var (
		buf  [2][]byte
		vals [][]byte
		err  error
	)
	switch v.class {
	case classBash:
		vals, err = argStrings(req.Args, "command", buf[:0])
		for _, b := range vals {
			s := shellmatch.ParseBytes(b)
			if v.nScripts < len(v.scriptArr) {
				v.scriptArr[v.nScripts] = s
				v.nScripts++
			} else {
				v.moreScript = append(v.moreScript, s)
			}
		}
	case classRead, classEdit:
		vals = buf[:0]
		for _, k := range pathKeys {
			if vals, err = argStrings(req.Args, k, vals); err != nil {
				break
			}
		}
		for _, b := range vals {
			v.paths = append(v.paths, string(b))
		}
	default:
		return
	}
	v.unreadable = err != nil
}

// scripts returns the parsed commands of a Bash call.
func (v *callView) scripts() []*shellmatch.Script {
	if v.moreScript != nil {
		return append(v.scriptArr[:v.nScripts:v.nScripts], v.moreScript...)
	}
	return v.scriptArr[:v.nScripts]
}

// writes calls fn with every path the call writes: the path of an edit
// tool, and the redirect targets and written operands of every Bash
// sub-command. It stops when fn returns true and reports whether it did.
func (v *callView) writes(fn func(string) bool) bool {
	if v.class == classEdit {
		for _, p := range v.paths {
			if fn(p) {
				return true
			}
		}
		return false
	}
	for _, s := range v.scripts() {
		for i := range s.Commands {
			if commandWrites(&s.Commands[i], fn) {
				return true
			}
		}
	}
	return false
}

// commandWrites calls fn with the files c writes: its redirect targets and
// the operands that common file-writing programs write to.
func commandWrites(c *shellmatch.Command, fn func(string) bool) bool {
	for _, w := range c.Writes {
		if fn(w) {
			return true
		}
	}
	ops := operands(c.Args)
	switch c.Program {
	case "tee", "touch", "mkdir", "rmdir", "rm", "truncate", "shred", "unlink":
	case "cp", "mv", "install", "ln", "rsync", "scp":
		if t := flagValue(c.Args, "-t", "--target-directory"); t != "" {
			return fn(t)
		}
		if len(ops) < 2 {
			return false
		}
		ops = ops[len(ops)-1:]
	case "chmod", "chown", "chgrp", "sed", "perl":
		if (c.Program == "sed" || c.Program == "perl") && !hasInPlace(c.Args) {
			return false
		}
		if len(ops) == 0 {
			return false
		}
		ops = ops[1:]
	case "dd":
		for _, a := range c.Args {
			if of, ok := strings.CutPrefix(a, "of="); ok && fn(of) {
				return true
			}
		}
		return false
	default:
		return false
	}
	for _, o := range ops {
		if fn(o) {
			return true
		}
	}
	return false
}

// operands returns the arguments that are not flags (all after "--").
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if len(a) > 1 && a[0] == '-' {
			continue
		}
		out = append(out, a)
	}
	return out
}

func flagValue(args []string, short, long string) string {
	for i, a := range args {
		if a == short || a == long {
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		}
		if v, ok := strings.CutPrefix(a, long+"="); ok {
			return v
		}
	}
	return ""
}

func hasInPlace(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place") || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'i')) {
			return true
		}
	}
	return false
}
