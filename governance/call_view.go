package governance

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/paigasus/helikon"

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
	// res resolves the paths of a shell tool's commands through its
	// workspace, when the tool can.
	res PathResolver
	// expanded: shellWrites holds the shell call's writes with the forms
	// the rules also match (resolved, joined to a cd's directory), and
	// resolveWhy says why one of them could not be resolved.
	expanded    bool
	shellWrites []shellWrite
	resolveWhy  string
	// pending is the call's id among the calls the written-file guard
	// has in flight (0: none yet).
	pending uint64
}

// maxLinkForms bounds the forms one written path takes through the links
// its command makes.
const maxLinkForms = 64

// shellWrite is one path a shell call writes, and whether it is known
// before the shell runs.
type shellWrite struct {
	p   string
	dyn bool
}

func (v *callView) read(req helikon.PermissionRequest) {
	*v = callView{req: req}
	st, isShell := req.Impl.(ShellTool)
	ft, isFile := req.Impl.(FileTool)
	if isShell {
		v.shell = true
		v.res, _ = req.Impl.(PathResolver)
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
	return v.shellWritten(fn)
}

// shellWritten calls fn with every path a shell call writes: each redirect
// target and written operand as written and, when the tool resolves paths
// ([PathResolver]) or a command changes directory, where it resolves
// through the workspace's symlinks and where it lies under each directory
// a cd names. It stops when fn returns true and reports whether it did.
func (v *callView) shellWritten(fn func(p string, dyn bool) bool) bool {
	if v.res != nil || v.movesDir() {
		v.expand()
		for _, w := range v.shellWrites {
			if fn(w.p, w.dyn) {
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

// movesDir reports whether a command of the call changes directory or
// makes a link, after which its paths may lead elsewhere than written.
func (v *callView) movesDir() bool {
	for _, s := range v.scripts() {
		for i := range s.Commands {
			switch p := s.Commands[i].Program; p {
			case "cd", "pushd", "popd":
				return true
			default:
				if _, ok := linkSpec(p); ok {
					return true
				}
			}
		}
	}
	return false
}

// expand fills shellWrites and resolveWhy, once.
func (v *callView) expand() {
	if v.expanded {
		return
	}
	v.expanded = true
	for _, s := range v.scripts() {
		dirs, lost := cdDirs(s)
		links := v.newLinks(s)
		for i := range s.Commands {
			commandWrites(&s.Commands[i], func(p string, dyn bool) bool {
				v.shellWrites = append(v.shellWrites, shellWrite{p, dyn})
				if dyn || isStream(p) {
					return false
				}
				relative := !path.IsAbs(p) && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "$HOME")
				if relative && lost != "" && v.resolveWhy == "" {
					v.resolveWhy = "a write to " + quoteReason(p) + " after " + lost
				}
				v.resolveWrite(p)
				forms := []string{p}
				if relative {
					for _, d := range dirs {
						q := path.Join(d, p)
						forms = append(forms, q)
						v.shellWrites = append(v.shellWrites, shellWrite{q, false})
						v.resolveWrite(q)
					}
				}
				// Through a link the same command makes before it
				// writes (ln -s .git g && … > g/hooks/x), and through
				// the links that link leads through (cp -P l g, where
				// l -> .git), to a bound.
				for j := 0; j < len(forms) && len(forms) < maxLinkForms; j++ {
					q := path.Clean(forms[j])
					for _, l := range links {
						rest, ok := strings.CutPrefix(q, l[0]+"/")
						if !ok && q != l[0] {
							continue
						}
						t := path.Join(l[1], rest)
						if slices.Contains(forms, t) {
							continue
						}
						forms = append(forms, t)
						v.shellWrites = append(v.shellWrites, shellWrite{t, false})
						v.resolveWrite(t)
					}
				}
				return false
			})
		}
	}
}

// newLinks returns the links the commands of s make that a later write of
// the same command may pass through, as {link, where it leads}: every
// symbolic link ([linksOf]), and a copy or move of a source that is a
// link — one the workspace resolves elsewhere, or one made before it in s
// (cp -P l g, cp -r l g, mv l g, rsync -a l g). A hard link needs none:
// making it is checked as a write to its source.
func (v *callView) newLinks(s *shellmatch.Script) [][2]string {
	var out [][2]string
	isLink := func(p string) bool {
		for _, l := range out {
			if p == l[0] || strings.HasPrefix(p, l[0]+"/") {
				return true
			}
		}
		if v.res == nil {
			return false
		}
		r, err := v.res.ResolvePath(p)
		return err != nil || r != p
	}
	for i := range s.Commands {
		linksOf(&s.Commands[i], func(l linkOp) {
			switch {
			case l.dyn:
			case l.kind == linkSym:
				out = append(out, [2]string{l.link, l.target})
			case l.kind == linkCopy && isLink(path.Clean(l.given)):
				out = append(out, [2]string{l.link, path.Clean(l.given)})
			}
		})
	}
	return out
}

// resolveWrite adds where p resolves through the workspace, or notes why
// it cannot be told.
func (v *callView) resolveWrite(p string) {
	if v.res == nil {
		return
	}
	r, err := v.res.ResolvePath(p)
	switch {
	case err != nil:
		if v.resolveWhy == "" {
			v.resolveWhy = "a write to " + quoteReason(p) + ", whose path the workspace cannot resolve (" + err.Error() + ")"
		}
	case r != p:
		v.shellWrites = append(v.shellWrites, shellWrite{r, false})
	}
}

// cdDirs returns the directories the cd and pushd commands of s name, each
// joined to the one before, and why one is not known before the shell runs
// ("" when every one is): a bare cd, cd -, popd, a dynamic operand.
func cdDirs(s *shellmatch.Script) (dirs []string, lost string) {
	cur := "."
	for i := range s.Commands {
		c := &s.Commands[i]
		switch c.Program {
		case "popd":
			lost = "popd, to a directory not known before the shell runs"
			continue
		case "cd", "pushd":
		default:
			continue
		}
		target, dyn := "", false
		for j, a := range c.Args {
			if a == "--" || len(a) > 1 && a[0] == '-' {
				continue
			}
			target, dyn = a, c.ArgDynamic(j)
			break
		}
		switch {
		case target == "" || target == "-" || dyn:
			lost = c.Program + " to a directory not known before the shell runs"
			continue
		case path.IsAbs(target) || strings.HasPrefix(target, "~"):
			cur = path.Clean(target)
		default:
			cur = path.Join(cur, target)
		}
		dirs = append(dirs, cur)
	}
	return dirs, lost
}

// unresolved names what a shell call hides from the rules that concern it,
// or returns "": a construct whose program the matcher cannot determine
// (when any shell deny rule or guard is installed), and a written path or
// rm -r operand not known before the shell runs (when a guard reads them).
func (v *callView) unresolved(g *settings) string {
	if !v.shell {
		return ""
	}
	denyRules, editRules := false, false
	for _, r := range g.deny {
		denyRules = denyRules || r.r.kind == ruleBash
		editRules = editRules || r.r.kind == ruleEdit
	}
	writeGuards := !g.noDefaultGuards || editRules
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
	if v.res != nil || v.movesDir() {
		v.expand()
		if v.resolveWhy != "" {
			return v.resolveWhy
		}
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
