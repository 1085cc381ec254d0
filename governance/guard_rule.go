package governance

import (
	"github.com/paigasus/helikon"
	"path"
	"strings"
	"sync"
)

// GuardAction is what a matched [GuardRule] does.
type GuardAction int

// The guard actions. The zero value asks.
const (
	// GuardAsk asks the [ApprovalHandler]; with none installed, the run
	// pauses for a human decision ([RunPaused]).
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
	Call func(helikon.PermissionRequest) bool
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

	dynArgs, globArgs uint64
}

// ArgDynamic reports whether Args[i] is not known before the shell runs: a
// parameter other than $HOME, a substitution, a brace expansion. Such an
// argument is in its loose form ($NAME, or $? for the rest).
func (c ShellCommand) ArgDynamic(i int) bool {
	if i >= 64 {
		return c.Dynamic
	}
	return c.dynArgs&(1<<i) != 0
}

// ArgGlob reports whether Args[i] holds unquoted glob characters, which
// the shell expands to file names.
func (c ShellCommand) ArgGlob(i int) bool { return i >= 64 || c.globArgs&(1<<i) != 0 }

// matches reports whether g applies to the call.
func (g *GuardRule) matches(v *callView) bool {
	if g.Call != nil && g.Call(v.req) {
		return true
	}
	if g.Command != nil && v.shell {
		for _, s := range v.scripts() {
			for i := range s.Commands {
				c := &s.Commands[i]
				if g.Command(ShellCommand{Program: c.Program, Args: c.Args, Writes: c.Writes, Wrappers: c.Wrappers, Dynamic: c.Dynamic, dynArgs: c.DynArgs, globArgs: c.GlobArgs}) {
					return true
				}
			}
		}
	}
	if g.Write != nil && v.writes(func(p string, _ bool) bool { return g.Write(p) }) {
		return true
	}
	return false
}

// The default guards, by name.
const (
	GuardRecursiveRemove = "recursive-remove-root-or-home"
	GuardSystemWrite     = "write-system-path"
	GuardSecretsWrite    = "write-git-ssh-env"
	GuardCodeExecWrite   = "write-code-exec-path"
)

// DestructiveGuards returns the always-on guard rules, each with action Ask:
//
//   - recursive-remove-root-or-home: a recursive rm of / or a home
//     directory (~, ~user, $HOME, "${HOME:?}"), or of everything in one
//     (/*, /?*, /**, ~/.*), and any --no-preserve-root; GNU abbreviations
//     such as --recur and --no-pres count;
//   - write-system-path: a write to /, /etc, /usr, /bin, /sbin, /lib*,
//     /sys, /proc, /boot or /dev, except /dev/null, /dev/stdout and
//     /dev/stderr, so `> /dev/null` is never blocked;
//   - write-git-ssh-env: a write whose path has a .git or .ssh component, or
//     whose final component is .env or .env.*; component-exact and
//     case-insensitive, so name.git/, .gitignore and environment.env are
//     unaffected while .SSH/ and .ENV trip;
//   - write-code-exec-path: a write to a file some program later runs or
//     reads commands from: shell start-up files (.bashrc, .profile, .zshrc,
//     …), .gitconfig, .envrc, cron tables and spools, systemd and autostart
//     units.
//
// A written path or rm operand with glob characters trips a guard when the
// pattern could name a protected path (/e*/passwd, .g?t/config).
func DestructiveGuards() []GuardRule {
	return []GuardRule{
		{Name: GuardRecursiveRemove, Command: recursiveRemoveOfRootOrHome},
		{Name: GuardSystemWrite, Write: isSystemPath},
		{Name: GuardSecretsWrite, Write: isSecretsPath},
		{Name: GuardCodeExecWrite, Write: isCodeExecPath},
	}
}

var defaultGuards = sync.OnceValue(DestructiveGuards)

// recursiveRemove reports whether c is a recursive rm, and whether it
// passes --no-preserve-root; it calls operand with each operand's index.
func recursiveRemove(c ShellCommand, operand func(i int)) (recursive, noPreserve bool) {
	if c.Program != "rm" {
		return false, false
	}
	flags := true
	for i, a := range c.Args {
		switch {
		case flags && a == "--":
			flags = false
		case flags && len(a) > 3 && strings.HasPrefix(a, "--"):
			recursive = recursive || strings.HasPrefix("--recursive", a)
			noPreserve = noPreserve || strings.HasPrefix("--no-preserve-root", a)
		case flags && len(a) > 1 && a[0] == '-' && a[1] != '-':
			recursive = recursive || strings.ContainsAny(a, "rR")
		default:
			if operand != nil {
				operand(i)
			}
		}
	}
	return recursive, noPreserve
}

func recursiveRemoveOfRootOrHome(c ShellCommand) bool {
	catastrophic := false
	recursive, noPreserve := recursiveRemove(c, func(i int) {
		catastrophic = catastrophic || isRootOrHome(c.Args[i])
	})
	return recursive && (catastrophic || noPreserve)
}

// homePrefix rewrites a leading ~, ~user or $HOME to "/", so the home
// directory is checked like the root. It reports whether it did.
func homePrefix(a string) (string, bool) {
	if rest, ok := strings.CutPrefix(a, "$HOME"); ok && (rest == "" || rest[0] == '/') {
		return "/" + rest, true
	}
	if strings.HasPrefix(a, "~") {
		_, rest, _ := strings.Cut(a, "/")
		return "/" + rest, true
	}
	return a, false
}

// isRootOrHome reports whether an rm operand names / or a home directory,
// or everything in one: the cleaned path is the root itself or one
// component beneath it that is a glob pattern.
func isRootOrHome(a string) bool {
	a, _ = homePrefix(a)
	if !strings.HasPrefix(a, "/") {
		return false
	}
	a = path.Clean(a)
	if a == "/" {
		return true
	}
	first, rest, more := strings.Cut(a[1:], "/")
	return hasGlob(first) && componentMatches(first, topEntries[:]...) && (!more || rest == "" || allGlobOrDots(rest))
}

// topEntries are entries of / and of a home directory whose loss is a
// disaster; a glob at the top that could match one of them counts as
// removing everything.
var topEntries = [...]string{"bin", "boot", "dev", "etc", "home", "lib", "opt", "root", "sbin", "srv", "usr", "var",
	".ssh", ".config", ".local", ".bashrc", ".profile", ".gnupg", "documents", "desktop", "src", "projects", "work"}

// allGlobOrDots reports whether every component of p matches anything.
func allGlobOrDots(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c != "**" && c != "*" {
			return false
		}
	}
	return true
}

// hasGlob reports whether s holds glob characters the shell would expand.
// Write guards see paths without their quoting, so a quoted * counts too:
// a false alarm on a file named *, never a miss.
func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// componentMatches reports whether a path component, possibly a glob
// pattern, could be any of names (lower case).
func componentMatches(c string, names ...string) bool {
	c = strings.ToLower(c)
	if !hasGlob(c) {
		for _, n := range names {
			if c == n {
				return true
			}
		}
		return false
	}
	for _, n := range names {
		// A glob matches a leading dot only with a leading dot of its own.
		if (n[0] != '.' || c[0] == '.') && matchComponent(c, n) {
			return true
		}
	}
	return false
}

// isStream reports whether p is a stream any command may write.
func isStream(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

// systemDirs are the trees the write guard protects.
var systemDirs = [...]string{"etc", "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "sys", "proc", "boot", "dev"}

func isSystemPath(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	p = path.Clean(p)
	if p == "/" {
		return true
	}
	if isStream(p) {
		return false
	}
	first, _, _ := strings.Cut(p[1:], "/")
	return componentMatches(first, systemDirs[:]...)
}

func isSecretsPath(p string) bool {
	if isStream(p) {
		return false
	}
	p = path.Clean(p)
	for p != "" {
		c, rest, more := strings.Cut(p, "/")
		if componentMatches(c, ".git", ".ssh") {
			return true
		}
		if !more && (componentMatches(c, ".env") || (len(c) > 5 && strings.EqualFold(c[:5], ".env.")) ||
			hasGlob(c) && componentMatches(c, ".env.x")) {
			return true
		}
		p = rest
	}
	return false
}

// codeExecFiles are files whose content a shell or git runs later.
var codeExecFiles = [...]string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login",
	".logout", ".xinitrc", ".xprofile", ".xsession", ".gitconfig", ".envrc", ".pam_environment"}

// codeExecDirs are directories whose files something runs later, as
// consecutive path components; those under /etc are system paths already.
var codeExecDirs = [...][2]string{{"spool", "cron"}, {"spool", "at"}, {"systemd", "user"}, {".config", "systemd"},
	{".config", "autostart"}, {".config", "fish"}, {".config", "git"}}

func isCodeExecPath(p string) bool {
	if isStream(p) {
		return false
	}
	p = path.Clean(p)
	if h, ok := homePrefix(p); ok {
		p = h
	}
	p = strings.TrimPrefix(p, "/")
	prev := ""
	for p != "" {
		c, rest, more := strings.Cut(p, "/")
		if !more && componentMatches(c, codeExecFiles[:]...) {
			return true
		}
		if prev != "" {
			for _, d := range codeExecDirs {
				if componentMatches(prev, d[0]) && componentMatches(c, d[1]) {
					return true
				}
			}
		}
		prev, p = c, rest
	}
	return false
}

// guardVerdict is the guard step's result: the rule that denies, or the
// first rule that asks.
func guardVerdict(rules []GuardRule, useDefaults bool, v *callView) (deny, ask *GuardRule) {
	lists := [2][]GuardRule{defaultGuards(), rules}
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
func WithGuardRules(rules ...GuardRule) helikon.ContextOption {
	return refine(func(s *settings) error {
		s.guards = append(s.guards[:len(s.guards):len(s.guards)], rules...)
		return nil
	})
}

// WithoutDefaultGuards removes the always-on [DestructiveGuards] from the
// run. Guard rules added with [WithGuardRules] stay.
func WithoutDefaultGuards() helikon.ContextOption {
	return refine(func(s *settings) error { s.noDefaultGuards = true; return nil })
}

// GuardRules returns the run's guard rules: the defaults unless removed,
// then the added ones.
func GuardRules(rc *helikon.RunContext) []GuardRule {
	s := of(rc)
	if s == nil {
		return nil
	}
	if s.noDefaultGuards {
		return s.guards
	}
	return append(DestructiveGuards(), s.guards...)
}
