package helikon

import (
	"path"
	"strings"
)

// GuardAction is what a matched [GuardRule] does.
type GuardAction int

// The guard actions. The zero value asks.
const (
	// GuardAsk asks the [ApprovalHandler]; with none installed, the call is
	// denied, the common headless and CI configuration.
	GuardAsk GuardAction = iota
	// GuardDeny refuses the call.
	GuardDeny
)

// GuardRule is a breaker for dangerous calls. Guard rules run right after
// the deny rules and before allow rules and the mode, so neither
// [PermissionBypass] nor a matching [AllowRule] skips them. When several
// match, a Deny wins over an Ask.
//
// The always-on set, [DestructiveGuards], is installed on every
// [RunContext]; [WithGuardRules] adds rules, [WithoutDefaultGuards] removes
// the defaults.
type GuardRule struct {
	// Name identifies the rule in denials and approval prompts.
	Name string
	// Action is what a match does.
	Action GuardAction
	// Command, when set, is tested against every sub-command of a Bash
	// call, after wrappers are stripped, across operators, substitutions
	// and nested shells.
	Command func(ShellCommand) bool
	// Write, when set, is tested against every path the call writes: the
	// path argument of the Write and Edit tools, and the redirect targets
	// and written operands (tee, cp, mv, dd of=, rm, …) of Bash commands.
	Write func(path string) bool
	// Call, when set, is tested against the call itself.
	Call func(PermissionRequest) bool
}

// ShellCommand is one sub-command of a Bash call, as a [GuardRule] sees it.
// Its slices are shared with the matcher's cache: read them, never modify
// them.
type ShellCommand struct {
	// Program is the base name of the program it runs ("rm"), or "" when
	// that is not a plain literal.
	Program string
	// Args are its arguments, unquoted; a parameter keeps the form $NAME.
	Args []string
	// Writes are its output redirect targets.
	Writes []string
	// Wrappers are the wrappers and shells it runs under, outermost first.
	Wrappers []string
	// Dynamic reports words that are not plain literals.
	Dynamic bool
}

// matches reports whether g applies to the call.
func (g *GuardRule) matches(v *callView) bool {
	if g.Call != nil && g.Call(v.req) {
		return true
	}
	if g.Command != nil && v.shell {
		for _, s := range v.scripts() {
			for i := range s.Commands {
				c := &s.Commands[i]
				if g.Command(ShellCommand{Program: c.Program, Args: c.Args, Writes: c.Writes, Wrappers: c.Wrappers, Dynamic: c.Dynamic}) {
					return true
				}
			}
		}
	}
	if g.Write != nil && v.writes(g.Write) {
		return true
	}
	return false
}

// The default guards, by name.
const (
	GuardRecursiveRemove = "recursive-remove-root-or-home"
	GuardSystemWrite     = "write-system-path"
	GuardSecretsWrite    = "write-git-ssh-env"
)

// DestructiveGuards returns the always-on guard rules, each with action Ask:
//
//   - recursive-remove-root-or-home: a recursive rm of / or ~ ($HOME, /*,
//     ~/* and --no-preserve-root too);
//   - write-system-path: a write to /, /etc, /usr, /bin, /sbin, /lib*,
//     /sys, /boot or /dev, except /dev/null, /dev/stdout and /dev/stderr, so
//     `> /dev/null` is never blocked;
//   - write-git-ssh-env: a write whose path has a .git or .ssh component, or
//     whose final component is .env or .env.*; component-exact and
//     case-insensitive, so name.git/, .gitignore and environment.env are
//     unaffected while .SSH/ and .ENV trip.
func DestructiveGuards() []GuardRule {
	return []GuardRule{
		{Name: GuardRecursiveRemove, Command: recursiveRemoveOfRootOrHome},
		{Name: GuardSystemWrite, Write: isSystemPath},
		{Name: GuardSecretsWrite, Write: isSecretsPath},
	}
}

var defaultGuards = DestructiveGuards()

func recursiveRemoveOfRootOrHome(c ShellCommand) bool {
	if c.Program != "rm" {
		return false
	}
	recursive, noPreserve, catastrophic := false, false, false
	flags := true
	for _, a := range c.Args {
		switch {
		case flags && a == "--":
			flags = false
		case flags && (a == "--recursive"):
			recursive = true
		case flags && a == "--no-preserve-root":
			noPreserve = true
		case flags && len(a) > 1 && a[0] == '-' && a[1] != '-':
			recursive = recursive || strings.ContainsAny(a, "rR")
		default:
			catastrophic = catastrophic || isRootOrHome(a)
		}
	}
	return recursive && (catastrophic || noPreserve)
}

// isRootOrHome reports whether an rm operand names / or the home directory,
// or everything in them.
func isRootOrHome(a string) bool {
	for _, home := range [...]string{"~", "$HOME"} {
		if rest, ok := strings.CutPrefix(a, home); ok && (rest == "" || rest[0] == '/') {
			a = "/" + rest
			break
		}
	}
	if !strings.HasPrefix(a, "/") {
		return false
	}
	a = path.Clean(a)
	return a == "/" || a == "/*"
}

// systemDirs are the trees the write guard protects.
var systemDirs = [...]string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys", "/boot", "/dev"}

func isSystemPath(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	p = path.Clean(p)
	if p == "/" {
		return true
	}
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return false
	}
	for _, d := range systemDirs {
		if rest, ok := strings.CutPrefix(p, d); ok && (rest == "" || rest[0] == '/') {
			return true
		}
	}
	return false
}

func isSecretsPath(p string) bool {
	p = path.Clean(p)
	for p != "" {
		c, rest, more := strings.Cut(p, "/")
		if strings.EqualFold(c, ".git") || strings.EqualFold(c, ".ssh") {
			return true
		}
		if !more && (strings.EqualFold(c, ".env") || (len(c) > 5 && strings.EqualFold(c[:5], ".env."))) {
			return true
		}
		p = rest
	}
	return false
}

// guardVerdict is the guard step's result: the rule that denies, or the
// first rule that asks.
func guardVerdict(rules []GuardRule, useDefaults bool, v *callView) (deny, ask *GuardRule) {
	lists := [2][]GuardRule{defaultGuards, rules}
	if !useDefaults {
		lists[0] = nil
	}
	for _, list := range lists {
		for i := range list {
			g := &list[i]
			if !g.matches(v) {
				continue
			}
			if g.Action == GuardDeny {
				return g, nil
			}
			if ask == nil {
				ask = g
			}
		}
	}
	return nil, ask
}

// WithGuardRules adds guard rules to the run, after the defaults.
func WithGuardRules(rules ...GuardRule) ContextOption {
	return contextOptionFunc(func(rc *RunContext) {
		rc.gov.guards = append(rc.gov.guards[:len(rc.gov.guards):len(rc.gov.guards)], rules...)
	})
}

// WithoutDefaultGuards removes the always-on [DestructiveGuards] from the
// run. Guard rules added with [WithGuardRules] stay.
func WithoutDefaultGuards() ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.gov.noDefaultGuards = true })
}

// GuardRules returns the run's guard rules: the defaults unless removed,
// then the added ones.
func (rc *RunContext) GuardRules() []GuardRule {
	if rc.gov.noDefaultGuards {
		return rc.gov.guards
	}
	return append(DestructiveGuards(), rc.gov.guards...)
}
