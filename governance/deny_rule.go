package governance

import (
	"path"
	"slices"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/shellmatch"
)

// DenyRule refuses matching tool calls. Deny rules are the first step of the
// permission pipeline, so they override every mode, Bypass included, and
// every allow rule.
//
// Build one with [DenyTool], [DenyBash], [DenyRead] or [DenyEdit] and install
// it with [WithDenyRules]. A rule that cannot read the call it concerns (a
// Bash call whose arguments are not a JSON object, a command nested past
// the matcher's depth) matches: deny rules fail closed.
type DenyRule struct{ r rule }

// DenyTool denies every call of the tool named name.
func DenyTool(name string) DenyRule { return DenyRule{rule{kind: ruleTool, name: name}} }

// DenyBash denies a call of the Bash tool when any sub-command of its
// command runs program, directly or under a wrapper, or is that wrapper:
// DenyBash("rm") catches `echo ok && rm -rf .`, `sudo rm -rf /`,
// `bash -c 'rm -rf /'` and `echo $(rm -rf /)` alike; DenyBash("sudo")
// catches `sudo ls`. program is a base name ("rm" also matches /bin/rm).
// A call that copies or links program under another name (`cp /bin/rm x`,
// `ln -s /bin/rm x`, `cp "$(command -v rm)" x`) is denied too: the copy
// would run it past the rule.
func DenyBash(program string) DenyRule { return DenyRule{rule{kind: ruleBash, name: program}} }

// DenyRead denies a call of the Read tool whose path matches pattern, a
// gitignore-style glob: DenyRead(".env") blocks reads of .env at any depth.
// Matching is lexical and case-insensitive, with .. collapsed; an absolute
// path, or one climbing out of the root, matches an anchored deny pattern at
// any depth.
func DenyRead(pattern string) DenyRule {
	return DenyRule{rule{kind: ruleRead, name: pattern, glob: compileGlob(pattern)}}
}

// DenyEdit denies a call of the Write or Edit tools (and MultiEdit,
// NotebookEdit) whose path matches pattern; see [DenyRead] for the syntax.
// DenyEdit("dist/**") blocks writes under dist. It also denies a shell
// call that writes a matching path as the write guards see it (redirect
// targets and the written operands of rm, cp, mv, tee, …, followed
// through the workspace's symlinks when the tool is a [PathResolver]),
// or a directory an anchored pattern could match beneath (rm -rf dist);
// a written path not known before the shell runs is asked about.
func DenyEdit(pattern string) DenyRule {
	return DenyRule{rule{kind: ruleEdit, name: pattern, glob: compileGlob(pattern)}}
}

// String returns the rule in the Tool(specifier) form: "Bash(rm)",
// "Read(.env)", "Edit(dist/**)", "WebFetch".
func (r DenyRule) String() string { return r.r.String() }

// matches reports whether the rule denies the call.
func (r DenyRule) matches(v *callView) bool {
	switch r.r.kind {
	case ruleTool:
		return v.req.Tool == r.r.name
	case ruleBash:
		if !v.shell {
			return false
		}
		if v.unreadable {
			return true
		}
		for _, s := range v.scripts() {
			if s.MayRun(r.r.name) || copiesProgram(s, r.r.name) {
				return true
			}
		}
		return false
	default:
		// An edit rule also matches what a shell call writes, as the
		// write guards see it (symlinks and cd followed); a target not
		// known before the shell runs is asked about (unresolved).
		if r.r.kind == ruleEdit && v.shell && !v.unreadable &&
			v.shellWritten(func(p string, dyn bool) bool {
				return !dyn && !isStream(p) && (r.r.glob.match(p, true) || r.r.glob.matchBeneath(p))
			}) {
			return true
		}
		// A read rule also matches a shell call that links a matching
		// file: the link is a name for it the rule does not match, and a
		// hard link's no resolver can trace back.
		if r.r.kind == ruleRead && v.shell && !v.unreadable && linksTo(v, func(p string) bool {
			return r.r.glob.match(p, true) || r.r.glob.matchBeneath(p)
		}) {
			return true
		}
		if !v.file {
			return false
		}
		if v.unreadable {
			return true
		}
		for _, f := range v.files {
			if r.r.matchesFile(f, true) {
				return true
			}
		}
		return false
	}
}

// copiesProgram reports whether s copies or links program under a name a
// rule on it does not list: a copier given a path to it (cp /usr/bin/rm x,
// ln -s /bin/rm x, dd if=/bin/rm of=x, cat /bin/rm > x), or given a path
// not known before the shell runs in a call that looks program's path up
// (cp "$(command -v rm)" x, which rm).
func copiesProgram(s *shellmatch.Script, program string) bool {
	lookup, dynCopy := false, false
	for i := range s.Commands {
		c := &s.Commands[i]
		// A switch, not a map: every deny rule on Bash runs this over every
		// command of every call.
		switch c.Program {
		case "cp", "ln", "link", "install", "rsync", "mv", "dd", "cat": // copy or link a file
			for j, a := range c.Args {
				if c.ArgDynamic(j) {
					dynCopy = true
					continue
				}
				a = strings.TrimPrefix(a, "if=")
				if strings.IndexByte(a, '/') >= 0 && path.Base(a) == program {
					return true
				}
			}
		case "command", "which", "type", "whereis", "hash":
			lookup = lookup || slices.Contains(c.Args, program)
		}
	}
	return lookup && dynCopy
}

// WithDenyRules adds deny rules to the run. They propagate to handoff
// targets and sub-agents.
func WithDenyRules(rules ...DenyRule) helikon.ContextOption {
	return refine(func(s *settings) error {
		s.deny = append(s.deny[:len(s.deny):len(s.deny)], rules...)
		return nil
	})
}

// DenyRules returns the run's deny rules.
func DenyRules(rc *helikon.RunContext) []DenyRule {
	if s := of(rc); s != nil {
		return s.deny
	}
	return nil
}
