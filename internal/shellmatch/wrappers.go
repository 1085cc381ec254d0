package shellmatch

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// wrapperSpec describes a program that runs another program given as its
// operands: which of its flags take a value, how many operands come before
// the wrapped program, and whether NAME=VALUE words may precede it.
type wrapperSpec struct {
	// short lists the one-letter flags that take a value.
	short string
	// long lists the long flags that take a value when it is not attached
	// with "=".
	long []string
	// skip is the number of operands before the program (timeout's
	// duration, taskset's mask).
	skip int
	// assigns lets NAME=VALUE words precede the program (env, sudo).
	assigns bool
	// split names the flags whose value is itself a command string to
	// parse (env -S).
	split string
	// splitRest: the operands after the split flag's value follow the
	// words it splits into (env -S env rm runs env rm, which runs rm).
	splitRest bool
	// joinAll treats every remaining word, joined by blanks, as a command
	// string (eval).
	joinAll bool
	// joinRest treats the words left after the flags and skipped operands,
	// joined by blanks, as a command string (watch, sg).
	joinRest bool
	// cAfter lets "-c COMMAND" follow the skipped operands (flock, sg).
	cAfter bool
	// bareShell: with no command left, the wrapper runs a shell that reads
	// its standard input (chroot, unshare, sudo -s).
	bareShell bool
	// noCommand: the operands are never a command; only the split flag
	// gives one (script FILE runs a shell, script -c CMD runs CMD).
	noCommand bool
	// query lists the one-letter flags with which the wrapper only
	// describes its operand (command -v).
	query string
}

var wrapperSpecs = sync.OnceValue(func() map[string]wrapperSpec {
	return map[string]wrapperSpec{
		"timeout": {short: "sk", long: []string{"signal", "kill-after"}, skip: 1},
		"nice":    {short: "n", long: []string{"adjustment"}},
		"nohup":   {},
		// Precommand words other shells run the command after: zsh's
		// noglob, nocorrect, - and repeat N (tcsh's too), fish's not, and,
		// or. To bash they name no program; reading them as wrappers only
		// asks more.
		"noglob": {}, "nocorrect": {}, "-": {}, "repeat": {skip: 1}, "not": {}, "and": {}, "or": {},
		"stdbuf":  {short: "ioe", long: []string{"input", "output", "error"}},
		"env":     {short: "uCSa", long: []string{"unset", "chdir", "split-string", "argv0"}, assigns: true, split: "S", splitRest: true},
		"command": {query: "vV"},
		"builtin": {},
		"exec":    {short: "a"},
		"sudo": {short: "ughpCDrtTUR", long: []string{"user", "group", "host", "prompt", "close-from",
			"chdir", "role", "type", "command-timeout", "other-user", "chroot"}, assigns: true, bareShell: true},
		"doas":    {short: "Cu", bareShell: true},
		"pkexec":  {long: []string{"user"}},
		"time":    {short: "fo", long: []string{"format", "output"}},
		"setsid":  {},
		"ionice":  {short: "cnp", long: []string{"class", "classdata", "pid"}},
		"chrt":    {skip: 1},
		"taskset": {skip: 1},
		"busybox": {},
		"toybox":  {},
		"ld.so": {long: []string{"library-path", "inhibit-rpath", "audit", "preload", "argv0",
			"glibc-hwcaps-prepend", "glibc-hwcaps-mask"}},
		"xargs": {short: "adEILnPs", long: []string{"arg-file", "delimiter", "eof", "replace",
			"max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}},
		"eval":   {joinAll: true},
		"watch":  {short: "nq", long: []string{"interval", "equexit"}, joinRest: true},
		"flock":  {short: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"}, skip: 1, split: "c", cAfter: true},
		"chroot": {long: []string{"userspec", "groups"}, skip: 1, bareShell: true},
		"unshare": {short: "SGRw", long: []string{"setuid", "setgid", "root", "wd", "propagation", "setgroups",
			"map-user", "map-group", "map-users", "map-groups"}, bareShell: true},
		"nsenter":  {short: "tSG", long: []string{"target", "setuid", "setgid", "env"}, bareShell: true},
		"script":   {short: "cEIOBTmo", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"}, split: "c", noCommand: true, bareShell: true},
		"sg":       {skip: 1, joinRest: true, cAfter: true, split: "c", bareShell: true},
		"newgrp":   {skip: 1, bareShell: true},
		"strace":   {short: "abeEIoOpPsSuUX", long: []string{"attach", "output", "signal", "status", "trace", "trace-path", "user", "env", "string-limit"}},
		"ltrace":   {short: "aAeFnopsuwDlx", long: []string{"output", "align", "indent"}},
		"firejail": {bareShell: true},
		"systemd-run": {short: "upEMH", long: []string{"unit", "property", "description", "slice", "setenv", "uid", "gid",
			"nice", "working-directory", "on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive",
			"on-calendar", "timer-property", "path-property", "socket-property", "machine", "host", "service-type"}},
		"proxychains":      {short: "f"},
		"proxychains4":     {short: "f"},
		"caffeinate":       {short: "tw"},
		"numactl":          {short: "NCmipP", long: []string{"cpunodebind", "physcpubind", "membind", "interleave", "preferred", "preferred-many"}},
		"cgexec":           {short: "g"},
		"prlimit":          {short: "p", long: []string{"pid"}},
		"setpriv":          {long: []string{"reuid", "regid", "ruid", "rgid", "euid", "egid", "groups", "inh-caps", "ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile"}},
		"setarch":          {skip: 1},
		"linux32":          {},
		"linux64":          {},
		"fakeroot":         {short: "lsib", long: []string{"lib", "faked"}},
		"fakechroot":       {short: "lcde", long: []string{"lib", "config-dir", "environment", "use-system-libs"}},
		"torsocks":         {short: "upaP", long: []string{"user", "pass", "address", "port"}},
		"tsocks":           {},
		"dbus-run-session": {long: []string{"config-file", "dbus-daemon"}},
		"xvfb-run":         {short: "nsfepw", long: []string{"server-num", "server-args", "auth-file", "error-file", "xauth-protocol", "wait"}},
		"valgrind":         {},
		"catchsegv":        {},
		"unbuffer":         {},
		"chpst":            {short: "uUbe/nlLm"},
		"chronic":          {},
		"ifne":             {},
		"faketime":         {skip: 1},
		"dbus-launch":      {},
		// ssh-agent runs its operands as its child, with the agent's
		// socket in its environment.
		"ssh-agent": {short: "aEPtO"},
		// flatpak-spawn reads its options with GLib, which takes a
		// value after "=" or as the next word (--directory /tmp rm).
		"flatpak-spawn": {long: []string{"forward-fd", "env", "unset-env", "directory", "app-path", "usr-path",
			"sandbox-expose", "sandbox-expose-ro", "sandbox-expose-path", "sandbox-expose-path-ro", "sandbox-flag"}},
		// eatmydata preloads a library that makes fsync a no-op, then
		// runs its operands; setuidgid (daemontools) runs them as the
		// user it names first.
		"eatmydata": {},
		"setuidgid": {skip: 1},
	}
})

// strip removes the wrapper's flags and leading operands from args and
// returns the words of the wrapped command. For a wrapper whose operand is a
// command string (env -S, eval), it returns that string instead, and whether
// it was a plain literal.
func (w wrapperSpec) strip(args []word) (rest []word, nested *string, nestedLit bool) {
	if w.joinAll {
		if len(args) == 0 {
			return nil, nil, false
		}
		s, lit := joinWords(args)
		return nil, &s, lit
	}
	i := 0
	skipped := 0
flags:
	for i < len(args) {
		a := args[i]
		if !a.known() {
			if w.noCommand {
				return nil, nil, false
			}
			return args[i:], nil, false
		}
		t := a.text
		switch {
		case t == "--":
			i++
			goto operands
		case strings.HasPrefix(t, "--"):
			name, _, attached := strings.Cut(t[2:], "=")
			name, takes := longTakes(w.long, name)
			if takes && (name == "split-string" || name == "command") && w.split != "" {
				if attached {
					return w.splitString(word{text: t[strings.IndexByte(t, '=')+1:], lit: true}, args[i+1:])
				}
				if i+1 < len(args) {
					return w.splitString(args[i+1], args[i+2:])
				}
			}
			i++
			if takes && !attached {
				i++
			}
			continue
		case len(t) > 1 && t[0] == '-':
			i++
			if w.query != "" && strings.ContainsAny(t[1:], w.query) {
				return nil, nil, false
			}
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(w.short, t[j]) < 0 {
					continue
				}
				// A value flag takes the rest of the cluster, or the next word.
				if strings.IndexByte(w.split, t[j]) >= 0 {
					if j+1 < len(t) {
						return w.splitString(word{text: t[j+1:], lit: true}, args[i:])
					}
					if i < len(args) {
						return w.splitString(args[i], args[i+1:])
					}
				}
				if j+1 == len(t) {
					i++
				}
				break
			}
			continue
		case w.assigns && envAssignment(t):
			i++
			continue
		case w.noCommand:
			// script's operands (its log file) may come before its
			// flags: getopt permutes them.
			i++
			continue
		}
		break flags
	}
operands:
	i = min(i, len(args)) // a value flag at the end has no value to skip
	if skipped < w.skip && i < len(args) {
		// Operands the wrapper consumes; flags may follow them.
		i++
		skipped++
		if skipped < w.skip || !w.cAfter {
			args = args[i:]
			i = 0
			goto flags
		}
	}
	if w.cAfter && i+1 < len(args) && args[i].lit && (args[i].text == "-c" || args[i].text == "--command") {
		v := args[i+1]
		return nil, &v.text, v.lit
	}
	if w.noCommand {
		return nil, nil, false
	}
	for w.assigns && i < len(args) && args[i].lit && envAssignment(args[i].text) {
		i++
	}
	if w.joinRest && i < len(args) {
		s, lit := joinWords(args[i:])
		return nil, &s, lit
	}
	return args[i:], nil, false
}

// splitString returns the command string of a split flag's value v, with
// the operands after it appended for a wrapper that runs them (splitRest).
func (w wrapperSpec) splitString(v word, after []word) ([]word, *string, bool) {
	s, lit := v.text, v.lit
	if w.splitRest && len(after) > 0 {
		rest, restLit := joinWords(after)
		s, lit = s+" "+rest, lit && restLit
	}
	return nil, &s, lit
}

// joinWords joins words by blanks, as a shell joins a wrapper's operands
// into one command string.
func joinWords(ws []word) (string, bool) {
	var b strings.Builder
	lit := true
	for i, a := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.text)
		lit = lit && a.known()
	}
	return b.String(), lit
}

// longTakes reports whether the long flag name, or a GNU abbreviation of
// one, takes a value.
func longTakes(long []string, name string) (full string, ok bool) {
	for _, l := range long {
		if l == name {
			return l, true
		}
	}
	for _, l := range long {
		if len(name) >= 2 && strings.HasPrefix(l, name) {
			return l, true
		}
	}
	return "", false
}

// envAssignment reports whether env or sudo reads t as NAME=VALUE: any
// word with a "=" after its first byte, a name Bash would refuse
// (BASH_FUNC_ls%%) included.
func envAssignment(t string) bool { return strings.IndexByte(t, '=') > 0 && t[0] != '-' }

// isAssignment reports whether t has the form NAME=VALUE or NAME+=VALUE.
func isAssignment(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return false
	}
	if t[eq-1] == '+' {
		eq--
	}
	if eq == 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := t[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shellSpec describes a program that runs a command string given with -c.
type shellSpec struct {
	// valueFlags lists the one-letter flags that take a value.
	valueFlags string
	// longValue lists the long flags that take a value.
	longValue []string
	// cTakesValue: -c takes the command string as its value, wherever it
	// appears (su), rather than marking the first operand as one (sh).
	cTakesValue bool
}

var (
	posixShell = shellSpec{valueFlags: "oO", longValue: []string{"rcfile", "init-file"}}
	shellSpecs = sync.OnceValue(func() map[string]shellSpec {
		return map[string]shellSpec{
			"sh": posixShell, "bash": posixShell, "dash": posixShell, "zsh": posixShell,
			"ksh": posixShell, "mksh": posixShell, "ash": posixShell, "fish": posixShell,
			"rbash": posixShell, "tcsh": posixShell, "csh": posixShell, "yash": posixShell, "posh": posixShell,
			"ksh93": posixShell, "pdksh": posixShell, "oksh": posixShell, "loksh": posixShell, "rc": posixShell,
			"su":      {valueFlags: "sgG", longValue: []string{"shell", "group", "supp-group", "whitelist-environment"}, cTakesValue: true},
			"runuser": {valueFlags: "sgGuw", longValue: []string{"shell", "group", "supp-group", "user", "whitelist-environment"}, cTakesValue: true},
		}
	})
)

// shellAliases are other names of the shells of shellSpecs: restricted,
// static and legacy builds, and busybox's hush.
var shellAliases = map[string]string{"lksh": "mksh", "mksh-static": "mksh", "rksh": "ksh", "rksh93": "ksh", "ksh2020": "ksh",
	"rzsh": "zsh", "zsh-static": "zsh", "hush": "sh", "bosh": "sh", "jsh": "sh", "sash": "sh", "osh": "bash"}

// versionChars are the bytes of a version suffix on a shell's name.
const versionChars = "0123456789.-"

// shellOf returns the spec of the shell program names and the name of its
// dialect ("zsh" for rzsh or zsh5), reading a version suffix (bash5.2,
// zsh-5.9) off a name it does not know.
func shellOf(name string) (shellSpec, string, bool) {
	if sh, ok := shellSpecs()[name]; ok {
		return sh, name, true
	}
	// Every program word comes here, and few are shells: the aliases and a
	// version suffix are looked at only past the one lookup most names take.
	if a, ok := shellAliases[name]; ok {
		return shellSpecs()[a], a, true
	}
	// Only a name ending in a digit, "." or "-" has a suffix to read off.
	if n := len(name); n > 0 && strings.IndexByte(versionChars, name[n-1]) >= 0 {
		if base := strings.TrimRight(name, versionChars); base != "" {
			return shellOf(base)
		}
	}
	return shellSpec{}, "", false
}

// anyShell stands, in a command's Wrappers, for a shell the words do not
// name: the login shell su and runuser start, the $SHELL script -c, flock -c
// and sudo -s run. Its command string may be read as zsh or fish read it.
const anyShell = "$SHELL"

// under reports whether wrappers run their command in the dialect of
// shell ("zsh", "fish"): a shell of that dialect, or one not known.
func under(wrappers []string, shell string) bool {
	for _, w := range wrappers {
		if w == anyShell {
			return true
		}
		if _, d, ok := shellOf(w); ok && d == shell {
			return true
		}
	}
	return false
}

// fishStrings returns the command strings fish runs: every -c and
// --command, and every -C and --init-command, which run first.
func fishStrings(args []word) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if !args[i].lit || len(t) < 2 || t[0] != '-' {
			break // the script operand: what follows are its arguments
		}
		if strings.HasPrefix(t, "--") {
			name, v, attached := strings.Cut(t[2:], "=")
			switch name {
			case "command", "init-command":
				if attached {
					out = append(out, word{text: v, lit: args[i].lit})
				} else if i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
			case "debug", "debug-output", "features", "profile", "profile-startup", "debug-stack-frames":
				if !attached {
					i++
				}
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			if strings.IndexByte("cCdofpD", t[j]) < 0 {
				continue
			}
			v := word{text: t[j+1:], lit: true}
			if j+1 == len(t) {
				if i+1 >= len(args) {
					break
				}
				i++
				v = args[i]
			}
			if t[j] == 'c' || t[j] == 'C' {
				out = append(out, v)
			}
			break
		}
	}
	return out
}

// loginShell returns the shell su or runuser starts: the value of -s or
// --shell, or anyShell.
func loginShell(args []word) string {
	for i, a := range args {
		t := a.text
		switch {
		case t == "--":
			return anyShell
		case t == "-s" || t == "--shell":
			if i+1 < len(args) && args[i+1].known() {
				return path.Base(args[i+1].text)
			}
			return anyShell
		case strings.HasPrefix(t, "--shell="):
			return path.Base(t[len("--shell="):])
		case len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.IndexByte(t, 's') > 0:
			if v := t[strings.IndexByte(t, 's')+1:]; v != "" && a.known() {
				return path.Base(v)
			}
			if i+1 < len(args) && args[i+1].known() {
				return path.Base(args[i+1].text)
			}
			return anyShell
		}
	}
	return anyShell
}

// commandString finds the command string a shell runs with -c.
func (sh shellSpec) commandString(args []word) (cmd string, lit, found bool) {
	hasC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.lit || len(t) < 2 || (t[0] != '-' && t[0] != '+') || t == "--" {
			if t == "--" && a.lit {
				if hasC && i+1 < len(args) {
					return args[i+1].text, args[i+1].lit, true
				}
				return "", false, false
			}
			if hasC && !sh.cTakesValue {
				return t, a.lit, true
			}
			continue
		}
		if strings.HasPrefix(t, "--") {
			name, v, attached := strings.Cut(t[2:], "=")
			if (name == "command" || name == "session-command") && sh.cTakesValue {
				if attached {
					return v, true, true
				}
				if i+1 < len(args) {
					return args[i+1].text, args[i+1].lit, true
				}
			}
			if slices.Contains(sh.longValue, name) && !attached {
				i++
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			switch {
			case t[j] == 'c' && sh.cTakesValue:
				if j+1 < len(t) {
					return t[j+1:], true, true
				}
				if i+1 < len(args) {
					return args[i+1].text, args[i+1].lit, true
				}
				return "", false, false
			case t[j] == 'c':
				hasC = true
			case strings.IndexByte(sh.valueFlags, t[j]) >= 0:
				if j+1 == len(t) {
					i++
				}
				j = len(t)
			}
		}
	}
	return "", false, false
}

// IsShell reports whether program is a shell the matcher follows into with
// -c. Such a shell with a dynamic command runs what its words do not show.
func IsShell(program string) bool {
	_, _, ok := shellOf(program)
	return ok
}

// procExe reports whether p names a process's program (/proc/self/exe,
// /proc/1/exe), which the matcher cannot name.
func procExe(p string) bool {
	p = path.Clean(p)
	return strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/exe")
}

// dynamicLoader reports whether name is an ELF dynamic loader
// (ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld64.so.2,
// ld-musl-x86_64.so.1, ld.so), which runs the program its operand names.
func dynamicLoader(name string) bool {
	return name == "ld.so" || (strings.HasPrefix(name, "ld-") || strings.HasPrefix(name, "ld64.so")) && strings.Contains(name, ".so")
}

// runsLater are programs that run commands their words do not show as a
// command: built from their input or arguments (GNU parallel), or read from
// their standard input or a file and run later (at, batch).
var runsLater = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"parallel": "runs commands built from its arguments and input",
		"sem":      "runs commands built from its arguments and input",
		"at":       "runs commands read from its input or a file, later",
		"batch":    "runs commands read from its input or a file, later",
		// Terminal multiplexers and detachers run a command (or type one
		// into a session) from words in their own grammar.
		"tmux":   "runs commands in a terminal session it starts or types keys into",
		"screen": "runs commands in a terminal session it starts or types keys into",
		"dtach":  "runs a command in a session it detaches",
		"abduco": "runs a command in a session it detaches",
		// Programs that run a command given in a grammar of their own.
		"run-parts":         "runs every file of a directory",
		"entr":              "runs a command, or with -s a shell string, on every change",
		"capsh":             "runs a shell with the arguments after --",
		"daemonize":         "runs a program named by its operands, detached",
		"start-stop-daemon": "runs the program its -x or -a flag names",
		"scl":               "runs a command string in an environment it enables",
		"proot":             "runs a command in a root it emulates",
		"bwrap":             "runs a command in a namespace its flags build",
		"rlwrap":            "runs a command under flags of its own",
		"socat":             "runs commands its addresses name (EXEC:, SYSTEM:)",
		// More that run the command their operands name after flags of
		// their own, or set what it runs with from files.
		"gdb":        "runs the program after --args, or one its commands name",
		"run0":       "runs a command as another user under flags of its own",
		"coreutils":  "runs the utility --coreutils-prog names",
		"cpulimit":   "runs the command after flags of its own",
		"trickle":    "runs the command after flags of its own",
		"srun":       "runs the command after flags of its own on the nodes it allocates",
		"mpirun":     "runs the command after flags of its own on the nodes it allocates",
		"mpiexec":    "runs the command after flags of its own on the nodes it allocates",
		"envdir":     "sets the environment its command runs with from files (LD_PRELOAD among them)",
		"sbatch":     "runs the script or the --wrap string it submits",
		"lxc-attach": "runs the command after flags of its own in a container",
		// Profilers, debuggers and benchmarkers that run the command
		// their operands name, after flags of their own.
		"perf":      "runs the command after its subcommand's flags (perf stat, record, trace)",
		"lldb":      "runs the program its operands name when its commands say run",
		"hyperfine": "runs each operand as a shell command",
		// Package runners: a program of a package, or one on PATH.
		"npx":  "runs a package's program or one on PATH",
		"pnpx": "runs a package's program or one on PATH",
		"bunx": "runs a package's program or one on PATH",
		"uvx":  "runs a package's program or one on PATH",
	}
})
