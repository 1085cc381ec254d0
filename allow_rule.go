package helikon

import "github.com/paigasus/helikon/internal/shellmatch"

// AllowRule pre-approves matching tool calls. A matching allow rule resolves
// the call to Allow after the deny and guard steps and before the mode, in
// every mode, and the [PermissionPolicy] is not consulted. Under
// [PermissionDontAsk] allow rules are the only way a call is permitted.
// Because it short-circuits the mode, an allow rule permits a call even
// under Plan's read-only gate: prefer the narrow forms.
//
// Build one with [AllowTool], [AllowBash], [AllowRead] or [AllowEdit] and
// install it with [WithAllowRules]. Allow rules fail closed: a call they
// cannot read is not allowed by them.
type AllowRule struct{ r rule }

// AllowTool allows every call of the tool named name.
func AllowTool(name string) AllowRule { return AllowRule{rule{kind: ruleTool, name: name}} }

// AllowBash allows a call of the Bash tool when every sub-command of its
// command runs an allowed program: the Bash allow rules together form the
// list, so AllowBash("git") and AllowBash("ls") allow `git status && ls`,
// while `git status && rm x` is left to the mode. A sub-command run under
// sudo, doas or su needs that wrapper allowed too; a command whose program
// is not a plain literal ($CMD, a shell reading its standard input) is
// never allowed.
func AllowBash(program string) AllowRule { return AllowRule{rule{kind: ruleBash, name: program}} }

// AllowRead allows a call of the Read tool whose path matches pattern; see
// [DenyRead] for the syntax. An absolute path, or one climbing out of the
// root, never matches an anchored allow pattern unless the pattern starts
// with "//".
func AllowRead(pattern string) AllowRule {
	return AllowRule{rule{kind: ruleRead, name: pattern, glob: compileGlob(pattern)}}
}

// AllowEdit allows a call of the Write or Edit tools whose path matches
// pattern; see [AllowRead].
func AllowEdit(pattern string) AllowRule {
	return AllowRule{rule{kind: ruleEdit, name: pattern, glob: compileGlob(pattern)}}
}

// String returns the rule in the Tool(specifier) form.
func (r AllowRule) String() string { return r.r.String() }

// allowed reports whether the allow rules permit the call.
func allowed(rules []AllowRule, v *callView) bool {
	var bashRules, pathRules bool
	for _, r := range rules {
		switch r.r.kind {
		case ruleTool:
			if v.req.Tool == r.r.name {
				return true
			}
		case ruleBash:
			bashRules = true
		default:
			pathRules = true
		}
	}
	if v.unreadable {
		return false
	}
	if bashRules && v.shell && v.nScripts > 0 && !bashAllowed(rules, v.scripts()) {
		return false
	}
	if pathRules && v.file && len(v.files) > 0 && !filesAllowed(rules, v.files) {
		return false
	}
	return (bashRules && v.shell && v.nScripts > 0) || (pathRules && v.file && len(v.files) > 0)
}

// filesAllowed reports whether every file access matches a path rule of its
// kind.
func filesAllowed(rules []AllowRule, files []FileAccess) bool {
	for _, f := range files {
		ok := false
		for _, r := range rules {
			if (r.r.kind == ruleRead || r.r.kind == ruleEdit) && r.r.matchesFile(f, false) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func bashAllowed(rules []AllowRule, scripts []*shellmatch.Script) bool {
	inList := func(program string) bool {
		for _, r := range rules {
			if r.r.kind == ruleBash && r.r.name == program {
				return true
			}
		}
		return false
	}
	for _, s := range scripts {
		if !s.OnlyRuns(inList) {
			return false
		}
	}
	return true
}

// WithAllowRules adds allow rules to the run. They propagate to handoff
// targets and sub-agents.
func WithAllowRules(rules ...AllowRule) ContextOption {
	return contextOptionFunc(func(rc *RunContext) {
		rc.gov.allow = append(rc.gov.allow[:len(rc.gov.allow):len(rc.gov.allow)], rules...)
	})
}

// AllowRules returns the run's allow rules.
func (rc *RunContext) AllowRules() []AllowRule { return rc.gov.allow }
