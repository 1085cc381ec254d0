package governance

import (
	"github.com/paigasus/helikon"
	"strconv"

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

// matchesFile reports whether a path rule matches one file access: Read
// rules match the files a call reads, Edit rules the files it writes. When
// the tool reported where the path resolves through symlinks, a deny rule
// (failClosed) matches if either path matches, and an allow rule only if
// both do: a link never turns a denied file into an allowed one.
func (r rule) matchesFile(f FileAccess, failClosed bool) bool {
	if (r.kind == ruleEdit) != f.Write {
		return false
	}
	m := r.glob.match(f.Path, failClosed)
	if f.Resolved == "" || f.Resolved == f.Path {
		return m
	}
	if failClosed {
		return m || r.glob.match(f.Resolved, true)
	}
	return m && r.glob.match(f.Resolved, false)
}

// toolClass is what a built-in tool name implies about a tool that
// declares neither [ShellTool] nor [FileTool].
type toolClass uint8

const (
	classOther toolClass = iota
	classBash            // "Bash" with a "command" string
	classRead            // "Read" with a "file_path" or "path"
	classEdit            // "Write", "Edit", "MultiEdit", "NotebookEdit" with a path
)

// builtinClass returns the class a tool name implies, and whether it is a
// built-in name at all.
func builtinClass(tool string) (toolClass, bool) {
	switch tool {
	case "Bash":
		return classBash, true
	case "Read":
		return classRead, true
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return classEdit, true
	}
	return classOther, false
}

// pathKeys are the argument names that carry a file path.
var pathKeys = [...]string{"file_path", "path", "notebook_path"}

// callView is one call as the rules see it, read once per pipeline pass. It
// keeps its scripts in an array rather than a slice of itself, so a view on
// the stack stays there.
type callView struct {
	req helikon.PermissionRequest
	// shell and file say which rules concern the call: it runs a command
	// line, it touches files.
	shell, file bool
	// unreadable reports that what the call runs or touches could not be
	// determined; why says what failed.
	unreadable bool
	why        string
	nScripts   int
	scriptArr  [2]*shellmatch.Script
	moreScript []*shellmatch.Script // when a call has more than two commands
	files      []FileAccess
}

func (v *callView) read(req helikon.PermissionRequest) {
	*v = callView{req: req}
	st, isShell := req.Impl.(ShellTool)
	ft, isFile := req.Impl.(FileTool)
	if isShell {
		v.shell = true
		if cmd, err := st.ShellCommand(req.Args); err != nil {
			v.fail("cannot tell what command it runs: " + err.Error())
		} else {
			v.addScript(shellmatch.Parse(cmd))
		}
	}
	if isFile {
		v.file = true
		if fs, err := ft.FileAccess(req.Args); err != nil {
			v.fail("cannot tell what files it touches: " + err.Error())
		} else {
			v.files = fs
		}
	}
	// What a built-in name implies is read for the kind the tool does not
	// declare itself, so declaring one kind never drops the rules of the
	// other: a tool named Bash that reports its files still has its
	// command read by the shell rules.
	var buf [2][]byte
	switch class, _ := builtinClass(req.Tool); {
	case class == classBash && !isShell:
		v.shell = true
		vals, err := argStrings(req.Args, "command", buf[:0])
		if err != nil {
			v.fail("cannot tell what command it runs: " + err.Error())
			return
		}
		for _, b := range vals {
			v.addScript(shellmatch.ParseBytes(b))
		}
	case (class == classRead || class == classEdit) && !isFile:
		v.file = true
		vals := buf[:0]
		var err error
		for _, k := range pathKeys {
			if vals, err = argStrings(req.Args, k, vals); err != nil {
				v.fail("cannot tell what files it touches: " + err.Error())
				return
			}
		}
		for _, b := range vals {
			v.files = append(v.files, FileAccess{Path: string(b), Write: class == classEdit})
		}
	}
}

// fail marks the view unreadable.
func (v *callView) fail(why string) {
	v.unreadable = true
	if v.why == "" {
		v.why = why
	}
}

func (v *callView) addScript(s *shellmatch.Script) {
	if v.nScripts < len(v.scriptArr) {
		v.scriptArr[v.nScripts] = s
		v.nScripts++
	} else {
		v.moreScript = append(v.moreScript, s)
	}
}

// scripts returns the parsed commands of a shell call.
func (v *callView) scripts() []*shellmatch.Script {
	if v.moreScript != nil {
		return append(v.scriptArr[:v.nScripts:v.nScripts], v.moreScript...)
	}
	return v.scriptArr[:v.nScripts]
}

// writes calls fn with every path the call writes: the written files of a
// file tool, and the redirect targets and written operands of every shell
// sub-command, with whether each is known before the shell runs. It stops
// when fn returns true and reports whether it did.
func (v *callView) writes(fn func(p string, dyn bool) bool) bool {
	for _, f := range v.files {
		if f.Write && (fn(f.Path, false) || (f.Resolved != "" && f.Resolved != f.Path && fn(f.Resolved, false))) {
			return true
		}
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

// unresolved names what a shell call hides from the rules that concern it,
// or returns "": a construct whose program the matcher cannot determine
// (when any shell deny rule or guard is installed), and a written path or
// rm -r operand not known before the shell runs (when a guard reads them).
func (v *callView) unresolved(g *settings) string {
	if !v.shell {
		return ""
	}
	denyRules := false
	for _, r := range g.deny {
		denyRules = denyRules || r.r.kind == ruleBash
	}
	writeGuards := !g.noDefaultGuards
	for i := range g.guards {
		writeGuards = writeGuards || g.guards[i].Write != nil
	}
	if !denyRules && !writeGuards && len(g.guards) == 0 && g.written == nil {
		return ""
	}
	for _, s := range v.scripts() {
		if s.Unresolved != "" {
			return s.Unresolved
		}
	}
	if !writeGuards {
		return ""
	}
	why := ""
	for _, s := range v.scripts() {
		for i := range s.Commands {
			c := &s.Commands[i]
			commandWrites(c, func(p string, dyn bool) bool {
				if dyn {
					why = "a write to " + quoteReason(p) + ", a path not known before the shell runs"
				}
				return dyn
			})
			if why == "" && !g.noDefaultGuards {
				sc := ShellCommand{Program: c.Program, Args: c.Args, dynArgs: c.DynArgs}
				recursiveRemove(sc, func(j int) {
					if why == "" && sc.ArgDynamic(j) {
						why = "rm -r of " + quoteReason(c.Args[j]) + ", a path not known before the shell runs"
					}
				})
				if r, _ := recursiveRemove(sc, nil); !r {
					why = ""
				}
			}
			if why != "" {
				return why
			}
		}
	}
	return ""
}

// quoteReason renders a word for a reason, cut short.
func quoteReason(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}
