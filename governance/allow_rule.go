package governance

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/shellmatch"
)

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
func WithAllowRules(rules ...AllowRule) helikon.ContextOption {
	return refine(func(s *settings) error {
		s.allow = append(s.allow[:len(s.allow):len(s.allow)], rules...)
		return nil
	})
}

// AllowRules returns the allow rules of rc's configuration (not the
// rules granted by decisions: see [helikon.RunContext.Grants]).
func AllowRules(rc *helikon.RunContext) []AllowRule {
	if s := of(rc); s != nil {
		return s.allow
	}
	return nil
}

// toolNamePattern is the name shape every provider accepts, which a bare
// tool name in an allow rule must have.
var toolNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// ParseAllowRule reads an allow rule in the form [AllowRule.String] writes:
// "Bash(program)" ([AllowBash]), "Read(pattern)" ([AllowRead]),
// "Edit(pattern)" ([AllowEdit]) or a bare tool name ([AllowTool]).
func ParseAllowRule(s string) (AllowRule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return AllowRule{}, fmt.Errorf("%w: empty allow rule", helikon.ErrInvalidDecision)
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if !toolNamePattern().MatchString(s) {
			return AllowRule{}, fmt.Errorf("%w: allow rule %q is not a tool name", helikon.ErrInvalidDecision, s)
		}
		return AllowTool(s), nil
	}
	if !strings.HasSuffix(s, ")") || open == 0 {
		return AllowRule{}, fmt.Errorf("%w: allow rule %q: want Tool(specifier)", helikon.ErrInvalidDecision, s)
	}
	spec := s[open+1 : len(s)-1]
	if spec == "" {
		return AllowRule{}, fmt.Errorf("%w: allow rule %q has an empty specifier", helikon.ErrInvalidDecision, s)
	}
	switch s[:open] {
	case "Bash":
		return AllowBash(spec), nil
	case "Read":
		return AllowRead(spec), nil
	case "Edit":
		return AllowEdit(spec), nil
	}
	return AllowRule{}, fmt.Errorf("%w: allow rule %q: unknown rule kind %q", helikon.ErrInvalidDecision, s, s[:open])
}
