package shellmatch

import (
	"fmt"
	"path"
	"strings"
	"sync"
)

// riskyEnv are variables whose value makes a shell or another program run
// a command, load code or pick a different program than the words show.
var riskyEnv = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "PS0": true, "PS1": true, "PS2": true, "PS4": true,
		"BASH_ALIASES": true, "BASH_CMDS": true, "SHELLOPTS": true, "BASHOPTS": true, "PATH": true,
		"LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true, "DYLD_INSERT_LIBRARIES": true,
		"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EDITOR": true, "GIT_PAGER": true, "GIT_EXTERNAL_DIFF": true,
		"GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
		"GIT_EXEC_PATH": true, "GIT_PROXY_COMMAND": true, "GIT_SEQUENCE_EDITOR": true, "GIT_CONFIG_GLOBAL": true,
		"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "LESSOPEN": true, "LESSCLOSE": true,
		"PERL5OPT": true, "PERL5LIB": true, "PYTHONSTARTUP": true, "PYTHONPATH": true, "NODE_OPTIONS": true,
		"RUBYOPT": true, "BROWSER": true,
		// sudoedit runs the first of SUDO_EDITOR, VISUAL and EDITOR.
		"SUDO_EDITOR": true,
		// cd looks a relative directory up in CDPATH first: CDPATH=/ cd etc
		// leads to /etc, where the matcher sees ./etc.
		"CDPATH": true,
		// script -c, flock -c and sudo -s run their command with $SHELL -c:
		// SHELL=/usr/bin/python3 makes the string Python.
		"SHELL": true,
		// Where shells find code by themselves: ksh's and zsh's function
		// search path, zsh's startup files ($ZDOTDIR/.zshenv), fish's and
		// git's configuration ($XDG_CONFIG_HOME/fish/config.fish).
		"FPATH": true, "ZDOTDIR": true, "XDG_CONFIG_HOME": true,
		// Pagers other programs run with the shell.
		"SYSTEMD_PAGER": true, "PSQL_PAGER": true, "BAT_PAGER": true,
	}
})

// zshPathArrays are zsh's arrays tied to search paths: path to PATH,
// fpath to FPATH (where autoload looks). To bash they are plain variables.
var zshPathArrays = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"path": true, "fpath": true, "FPATH": true, "module_path": true, "MODULE_PATH": true}
})

// assignsByName are the builtins of Bash and zsh that assign to a
// variable an argument names.
var assignsByName = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"read": true, "printf": true, "print": true, "mapfile": true, "readarray": true,
		"getopts": true, "vared": true, "set": true, "zparseopts": true, "strftime": true}
})

// zshNameTables are the special hashes of zsh's parameter module that say
// what a command name runs: functions[x]=… defines x, commands[ls]=PATH
// maps ls to a program, aliases[x]=rm makes x an alias. Bash reads each as
// a plain array element.
var zshNameTables = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"functions": true, "dis_functions": true, "commands": true, "options": true,
		"aliases": true, "dis_aliases": true, "galiases": true, "dis_galiases": true, "saliases": true, "dis_saliases": true,
	}
})

// checkZshAssign notes an assignment to one of zsh's search-path arrays or
// name tables in a command string zsh runs.
func (s *Script) checkZshAssign(name string, wrappers []string) {
	if i := strings.IndexAny(name, "[+"); i >= 0 {
		name = name[:i]
	}
	if !under(wrappers, "zsh") {
		return
	}
	switch {
	case zshPathArrays()[name]:
		s.unresolved("an assignment to " + name + ", which changes what programs zsh runs")
	case zshNameTables()[name]:
		s.unresolved("an assignment to " + name + ", which changes what a command name runs in zsh")
	}
}

// checkAssign notes an assignment to a risky variable. PATH is risky only
// when it adds a directory beyond the system ones.
func (s *Script) checkAssign(name, value string) {
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	if name == "PATH" && systemPath(value) {
		return
	}
	if strings.HasPrefix(name, "BASH_FUNC_") {
		// env 'BASH_FUNC_ls%%=() { …; }' bash -c ls: bash defines ls
		// from its environment.
		s.unresolved("a function exported in the environment (" + name + "), which a bash it starts defines")
		return
	}
	if name == "GLOBIGNORE" || riskyEnv()[name] || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
		s.unresolved("an assignment to " + name + ", which changes what programs run")
	}
}

// systemPath reports whether a PATH value lists only system directories
// and the current $PATH.
func systemPath(v string) bool {
	for _, d := range strings.Split(v, ":") {
		switch strings.TrimSuffix(d, "/") {
		case "$PATH", "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin":
		default:
			return false
		}
	}
	return true
}

// checkAssignWords notes the risky NAME=VALUE words among a wrapper's or a
// declaration's arguments.
func (s *Script) checkAssignWords(ws []word) {
	for _, w := range ws {
		if isAssignment(w.text) || strings.HasPrefix(w.text, "BASH_FUNC_") {
			name, value, _ := strings.Cut(w.text, "=")
			s.checkAssign(strings.TrimSuffix(name, "+"), value)
		}
	}
}

// xargsInput reads what xargs puts into the command it runs: the
// replacement string of -I R, -i or --replace, or else the words it appends.
func xargsInput(args []word) input {
	in := input{by: "xargs", appends: true}
	for i, a := range args {
		t := a.text
		switch {
		case t == "-I" && i+1 < len(args):
			in.repl = args[i+1].text
		case strings.HasPrefix(t, "-I") && len(t) > 2:
			in.repl = t[2:]
		case t == "-i" || t == "--replace":
			in.repl = "{}"
		case strings.HasPrefix(t, "--replace="):
			in.repl = t[len("--replace="):]
		}
	}
	in.appends = in.repl == ""
	return in
}

// stdinLike reports whether a script operand names the standard input or
// another stream rather than a file, however the path is spelled
// (/dev//stdin, /dev/./fd/0).
func stdinLike(p string) bool {
	if strings.HasPrefix(p, "/") {
		p = path.Clean(p)
	}
	switch {
	case p == "-", p == "/dev/stdin", strings.HasPrefix(p, "/dev/fd/"), strings.HasPrefix(p, "/dev/tcp/"),
		strings.HasPrefix(p, "/dev/udp/"), strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"):
		return true
	}
	return false
}

// checkShellScript notes a shell, with no -c, that runs commands its words
// do not show: its standard input (piped or redirected in, a heredoc, a
// here-string), a stream, or a script named by an expansion.
func (s *Script) checkShellScript(name string, args []word, stdin bool) {
	if name == "su" || name == "runuser" {
		s.unresolved(name + " without -c, which runs a shell reading its standard input")
		return
	}
	if stdin {
		s.unresolved(name + " reading commands from its standard input")
		return
	}
	for _, a := range args {
		if a.lit && len(a.text) > 1 && a.text[0] == '-' && a.text[1] != '-' && strings.ContainsRune(a.text, 's') && !strings.ContainsAny(a.text, "oO") {
			s.unresolved(name + " -s, which reads commands from its standard input")
			return
		}
		if a.lit && len(a.text) > 1 && (a.text[0] == '-' || a.text[0] == '+') {
			continue
		}
		switch {
		case !a.known():
			s.unresolved(name + " running a script named by an expansion")
		case stdinLike(a.text):
			s.unresolved(name + " reading commands from " + a.text)
		}
		return
	}
}

// interpreter describes a program that runs code in another language.
type interpreter struct {
	// inline lists the one-letter flags whose value is code to run.
	inline string
	// longInline lists the long flags (and multi-letter single-dash flags
	// such as gdb's -ex) whose value is code to run.
	longInline []string
	// values lists the one-letter flags that take a value.
	values string
	// module lists the one-letter flags that name a module to run, which
	// counts as a script operand.
	module string
	// clusterValue: a value flag takes the rest of its cluster (perl -i.bak).
	clusterValue bool
	// program: the first operand is the program text itself (awk).
	program bool
}

var interpreters = sync.OnceValue(func() map[string]interpreter {
	return map[string]interpreter{
		"python":    {inline: "c", values: "WXQ", module: "m"},
		"pypy":      {inline: "c", values: "WXQ", module: "m"},
		"perl":      {inline: "eE", values: "IMmixdDl0C", clusterValue: true},
		"ruby":      {inline: "e", values: "IrCEFKTWx"},
		"irb":       {},
		"node":      {inline: "ep", longInline: []string{"eval", "print"}, values: "r"},
		"nodejs":    {inline: "ep", longInline: []string{"eval", "print"}, values: "r"},
		"bun":       {inline: "e", longInline: []string{"eval", "print"}, values: "r"},
		"deno":      {longInline: []string{"eval"}},
		"php":       {inline: "rBRE", values: "cdzfF"},
		"lua":       {inline: "e", values: "l"},
		"luajit":    {inline: "e", values: "lbj"},
		"tclsh":     {},
		"wish":      {},
		"expect":    {inline: "c", values: "f"},
		"Rscript":   {inline: "e"},
		"R":         {inline: "e"},
		"osascript": {inline: "e"},
		"pwsh":      {inline: "c", longInline: []string{"command", "Command", "encodedcommand", "EncodedCommand", "c"}},
		"gdb":       {longInline: []string{"ex", "eval-command", "iex", "init-eval-command", "x", "command"}},
		"guile":     {inline: "ce"},
		"racket":    {inline: "e"},
		"sbcl":      {longInline: []string{"eval"}},
		"ed":        {},
		"ex":        {inline: "c", longInline: []string{"cmd"}},
		"vim":       {inline: "c", longInline: []string{"cmd"}},
		"vi":        {inline: "c", longInline: []string{"cmd"}},
		"nvim":      {inline: "c", longInline: []string{"cmd"}},
		// Shells whose language is not Bash's: a -c string is inline code.
		"elvish": {inline: "c"},
		"nu":     {inline: "c", longInline: []string{"commands"}},
		"xonsh":  {inline: "c"},
		"ion":    {inline: "c"},
		"ysh":    {inline: "c"},
		"es":     {inline: "c"},
		"murex":  {inline: "c"},
		"awk":    {values: "vF", program: true},
		"gawk":   {values: "vFiIlW", program: true},
		"mawk":   {values: "vFW", program: true},
		"nawk":   {values: "vF", program: true},
	}
})

// interpreterOf returns the interpreter a program name runs, stripping a
// version suffix (python3.12, perl5.36, php8.2, lua5.4).
func interpreterOf(name string) (interpreter, string, bool) {
	if in, ok := interpreters()[name]; ok {
		return in, name, true
	}
	base := strings.TrimRight(name, "0123456789.")
	if base != name {
		if in, ok := interpreters()[base]; ok {
			return in, base, true
		}
	}
	return interpreter{}, "", false
}

// infoFlags only print and exit.
var infoFlags = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"-V": true, "--version": true, "-h": true, "--help": true, "-v": true, "-version": true}
})

// checkInterpreter notes an interpreter running code its words do not
// show as a file: inline code, its standard input, a stream, or an awk
// program that runs commands.
func (s *Script) checkInterpreter(name string, in interpreter, args []word) {
	if len(args) == 1 && infoFlags()[args[0].text] {
		return
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.known() {
			s.unresolved(name + " with an argument named by an expansion")
			return
		}
		if t == "--" {
			i++
			if i < len(args) {
				s.checkInterpreterOperand(name, in, args[i], args[i+1:])
			} else {
				s.unresolved(name + " reading code from its standard input")
			}
			return
		}
		if strings.HasPrefix(t, "-") && len(t) > 1 {
			flag := strings.TrimLeft(t, "-")
			flag, _, attached := strings.Cut(flag, "=")
			for _, l := range in.longInline {
				if flag == l {
					s.unresolved(name + " " + t + ", which runs inline code")
					return
				}
			}
			if strings.HasPrefix(t, "--") {
				continue
			}
			for j := 1; j < len(t); j++ {
				c := t[j]
				if strings.IndexByte(in.inline, c) >= 0 {
					s.unresolved(name + " -" + string(c) + ", which runs inline code")
					return
				}
				if strings.IndexByte(in.module, c) >= 0 {
					return // runs a module: a file the words name
				}
				if strings.IndexByte(in.values, c) >= 0 {
					if j+1 == len(t) && !attached && !(in.clusterValue && c != 'I') {
						i++
					}
					break
				}
				if name == "awk" || in.program {
					if c == 'f' {
						// awk -f FILE: the program is a file.
						if j+1 == len(t) && i+1 < len(args) && stdinLike(args[i+1].text) {
							s.unresolved(name + " reading its program from " + args[i+1].text)
						}
						return
					}
				}
			}
			continue
		}
		s.checkInterpreterOperand(name, in, a, args[i+1:])
		return
	}
	if !in.program {
		s.unresolved(name + " reading code from its standard input")
	}
}

// checkInterpreterOperand looks at an interpreter's first operand: the
// program text of awk, or the script file of the rest.
func (s *Script) checkInterpreterOperand(name string, in interpreter, a word, _ []word) {
	if in.program {
		if awkRunsCommands(a.text) {
			s.unresolved(name + " program that runs commands or writes files")
		}
		return
	}
	if stdinLike(a.text) {
		s.unresolved(name + " reading code from " + a.text)
	}
}

// awkRunsCommands reports whether an awk program may run a command
// (system(), a pipe to or from a command) or write a file (print > file).
func awkRunsCommands(prog string) bool {
	if strings.Contains(prog, "system") || strings.Contains(prog, "|") {
		return true
	}
	for i := 0; i+1 < len(prog); i++ {
		if prog[i] != '>' || prog[i+1] == '=' {
			continue
		}
		j := i + 1
		if prog[j] == '>' {
			j++
		}
		for j < len(prog) && prog[j] == ' ' {
			j++
		}
		if j < len(prog) && (prog[j] == '"' || prog[j] == '$' || prog[j] == '(' || prog[j] == '_' ||
			(prog[j] >= 'a' && prog[j] <= 'z') || (prog[j] >= 'A' && prog[j] <= 'Z')) {
			return true
		}
	}
	return false
}

// gitRiskyKey reports whether setting a git configuration key makes git
// run a command of the value's choosing.
func gitRiskyKey(key string) bool {
	k := strings.ToLower(key)
	switch k {
	case "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath", "core.gitproxy",
		"core.askpass", "core.alternaterefscommand", "diff.external", "sequence.editor", "gpg.program",
		"uploadpack.packobjectshook", "include.path", "credential.helper", "protocol.allow", "remote.origin.uploadpack",
		"remote.origin.receivepack":
		return true
	}
	for _, p := range [...]string{"alias.", "pager.", "filter.", "credential.", "includeif.", "gpg.", "url."} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	for _, sfx := range [...]string{".textconv", ".command", ".driver", ".cmd", ".tool", ".path", ".program", ".uploadpack", ".receivepack", ".proxy"} {
		if strings.HasSuffix(k, sfx) {
			return true
		}
	}
	return false
}

// gitCommandFlags are the flags of git's subcommands whose value is a
// command git runs with the shell: rebase --exec, filter-branch's filters,
// difftool --extcmd, grep --open-files-in-pager, and the remote side's
// program fetch, clone, pull, ls-remote and push run for a local or ssh
// remote.
var gitCommandFlags = map[string][]string{
	"rebase":        {"x", "exec"},
	"filter-branch": {"tree-filter", "index-filter", "msg-filter", "env-filter", "commit-filter", "parent-filter", "tag-name-filter"},
	"difftool":      {"x", "extcmd"}, "grep": {"O", "open-files-in-pager"}, "clone": {"u", "upload-pack"},
	"fetch": {"upload-pack"}, "pull": {"upload-pack"}, "ls-remote": {"upload-pack"}, "push": {"receive-pack", "exec"}, "archive": {"exec"},
}

// gitRuns follows the commands a git subcommand runs: a flag's command
// string (gitCommandFlags), submodule foreach's, bisect run's command.
func (s *Script) gitRuns(sub string, args []word, depth int, wrappers []string) {
	if len(args) > 0 && (sub == "submodule" && args[0].text == "foreach" || sub == "bisect" && args[0].text == "run") {
		ws := appendWrapper(wrappers, "git")
		rest := args[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0].text, "-") {
			rest = rest[1:] // foreach --recursive, -q
		}
		if sub == "bisect" {
			// bisect run's command is words, not a string add bounds:
			// git bisect run git bisect run … recursed once a level.
			if depth+1 > MaxDepth {
				s.Truncated = true
				s.unresolved(fmt.Sprintf("git bisect run nested more than %d deep", MaxDepth))
				return
			}
			s.resolve(rest, depth+1, ws, nil, 0)
			return
		}
		if cmd, lit := joinWords(rest); cmd != "" {
			s.addNested(cmd, lit, depth, ws, nil)
		}
		return
	}
	flags := gitCommandFlags[sub]
	for i := 0; len(flags) > 0 && i < len(args); i++ {
		t := args[i].text
		if !strings.HasPrefix(t, "-") || t == "--" {
			continue
		}
		for _, f := range flags {
			var v word
			switch {
			case len(f) == 1 && len(t) > 1 && t[1] != '-' && t[1] == f[0]:
				// -xCMD, -x CMD (git's short flags take the rest of the word).
				if v.text = t[2:]; v.text == "" && i+1 < len(args) {
					i++
					v = args[i]
				} else {
					v.lit = args[i].lit
				}
			case len(f) > 1:
				val, attached, ok := longFlag(t, f)
				switch {
				case !ok:
					continue
				case attached:
					v = word{text: val, lit: args[i].lit}
				case i+1 < len(args):
					i++
					v = args[i]
				default:
					continue
				}
			default:
				continue
			}
			s.addNestedWord(v, depth, wrappers, "git")
		}
	}
}

// checkGit notes git options and configuration that run a command, and
// follows the commands its subcommands run.
func (s *Script) checkGit(args []word, depth int, wrappers []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case !a.known():
			if i > 0 && (args[i-1].text == "-c" || args[i-1].text == "config") {
				s.unresolved("git configuration named by an expansion")
				return
			}
		case t == "-c" && i+1 < len(args):
			key, _, _ := strings.Cut(args[i+1].text, "=")
			if !args[i+1].known() || gitRiskyKey(key) {
				s.unresolved("git -c " + key + ", which makes git run a command")
				return
			}
			i++
		case strings.HasPrefix(t, "--config-env") || strings.HasPrefix(t, "--exec-path=") || t == "--exec-path" && i+1 < len(args):
			s.unresolved("git " + t + ", which makes git run a command")
			return
		case t == "config":
			for _, b := range args[i+1:] {
				if !b.known() || (!strings.HasPrefix(b.text, "-") && gitRiskyKey(b.text)) {
					s.unresolved("git config " + b.text + ", which makes git run a command later")
					return
				}
			}
			return
		case t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace":
			i++ // the value, not the subcommand
		case !strings.HasPrefix(t, "-"):
			s.gitRuns(t, args[i+1:], depth, wrappers)
			return
		}
	}
}

// checkTar notes tar options that run a command.
func (s *Script) checkTar(args []word) {
	for _, a := range args {
		t := a.text
		for _, p := range [...]string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script",
			"--new-volume-script", "--rmt-command", "--rsh-command", "-I"} {
			if strings.HasPrefix(t, p) {
				s.unresolved("tar " + p + ", which runs a command")
				return
			}
		}
		if len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t, 'I') {
			s.unresolved("tar -I, which runs a command")
			return
		}
	}
}

// checkSed follows the commands GNU sed's e command runs (1e rm …), and
// notes its e without a command and the e flag of s///e, which run the
// pattern space: text read from the input.
func (s *Script) checkSed(args []word, depth int, wrappers []string) {
	given := false
	eachFlag(args, "eflsE", func(f byte, v word) {
		if f == 'e' || f == 'f' {
			given = true
		}
		if f == 'e' {
			s.sedScript(v, depth, wrappers)
		}
	}, func(op word) {
		if !given {
			given = true
			s.sedScript(op, depth, wrappers)
		}
	})
	eachLong(args, "expression", func(v word) { s.sedScript(v, depth, wrappers) })
}

// sedScript reads one sed script for the commands it runs.
func (s *Script) sedScript(sc word, depth int, wrappers []string) {
	t := sc.text
	if !sc.known() && (t == "" || t[0] == '$') {
		// A whole script from an expansion (sed "$S"); one with
		// expansions inside (s/$OLD/$NEW/g) is read for its commands.
		s.unresolved("a sed script named by an expansion, which may run commands (e)")
		return
	}
	if strings.IndexByte(t, 'e') < 0 {
		return // no e command or flag: the common case, read no further
	}
	lineEnd := func(i int) int {
		if j := strings.IndexByte(t[i:], '\n'); j >= 0 {
			return i + j
		}
		return len(t)
	}
	// skipDelimited returns the index after the n-th unescaped delim from i.
	skipDelimited := func(i int, delim byte, n int) int {
		for ; i < len(t) && n > 0; i++ {
			switch t[i] {
			case '\\':
				i++
			case delim:
				n--
			}
		}
		return i
	}
	for i := 0; i < len(t); {
		// Blanks, separators, and an address: line numbers, $, ranges,
		// steps, /regex/ or \cregexc, then ! and blanks.
		for i < len(t) && strings.IndexByte(" \t\n;0123456789$,~!+{}", t[i]) >= 0 {
			i++
		}
		if i < len(t) && t[i] == '/' {
			i = skipDelimited(i+1, '/', 1)
			continue
		}
		if i+1 < len(t) && t[i] == '\\' {
			i = skipDelimited(i+2, t[i+1], 1)
			continue
		}
		if i >= len(t) {
			return
		}
		switch c := t[i]; c {
		case 'e':
			end := lineEnd(i)
			cmd := strings.TrimSpace(t[i+1 : end])
			if cmd == "" {
				s.unresolved("sed's e without a command, which runs the pattern space")
				return
			}
			s.addNested(cmd, sc.known(), depth, appendWrapper(wrappers, "sed"), nil)
			i = end
		case 's', 'y':
			if i+1 >= len(t) {
				return
			}
			end := skipDelimited(i+2, t[i+1], 2)
			fl := end
			for fl < len(t) && strings.IndexByte(";\n}", t[fl]) < 0 {
				fl++
			}
			if c == 's' && strings.IndexByte(t[end:fl], 'e') >= 0 {
				s.unresolved("sed's s///e, which runs the pattern space as a command")
				return
			}
			if c == 's' && strings.IndexByte(t[end:fl], 'w') >= 0 {
				fl = lineEnd(fl) // the w flag's file runs to the end of the line
			}
			i = fl
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W':
			// Text or a file name to the end of the line.
			i = lineEnd(i)
		case ':', 'b', 't', 'T':
			// A label, to a ; or the end of the line.
			for i++; i < len(t) && t[i] != ';' && t[i] != '\n'; i++ {
			}
		default:
			i++
		}
	}
}

// checkSSH notes ssh and scp options that run a local command.
func (s *Script) checkSSH(name string, args []word) {
	for i, a := range args {
		t := a.text
		v := ""
		switch {
		case t == "-o" && i+1 < len(args):
			v = args[i+1].text
		case strings.HasPrefix(t, "-o"):
			v = t[2:]
		case name == "scp" && (t == "-S" || strings.HasPrefix(t, "-S")):
			s.unresolved("scp -S, which runs a program of its choosing")
			return
		}
		k, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(v)), "=")
		k, _, _ = strings.Cut(k, " ")
		switch k {
		case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "remotecommand", "match":
			s.unresolved(name + " -o " + k + ", which runs a local command")
			return
		}
	}
}

// namingBuiltins are the builtins of assignsByName whose flags this
// package reads, with the flags that take a value: those whose name
// operand, or -v value, names the variable they set, and mapfile's -C.
var namingBuiltins = map[string]string{"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc", "printf": "v"}

// checkNamingBuiltin notes a variable name given by an expansion (read
// $v, printf -v "$v", where v=PATH) and follows the callback mapfile -C
// evaluates, with the index and line appended, every -c lines.
func (s *Script) checkNamingBuiltin(name, valueFlags string, args []word, depth int, wrappers []string) {
	dyn := false
	eachFlag(args, valueFlags, func(f byte, v word) {
		switch {
		case f == 'C' && name != "read" && name != "printf":
			s.addNestedWord(v, depth, wrappers, name)
		case f == 'v' && name == "printf", f == 'a' && name == "read":
			dyn = dyn || !v.known()
		}
	}, func(op word) { dyn = dyn || name != "printf" && !op.known() })
	if dyn {
		s.unresolved(name + " setting a variable named by an expansion")
	}
}

// longFlag reports whether t is the long flag --full or an abbreviation
// of it (--expr, --pag), as GNU getopt and git's option parser accept one,
// and its value when attached with "=". An abbreviation another flag
// shares is an error there, so reading it as full only asks more.
func longFlag(t, full string) (value string, attached, ok bool) {
	if !strings.HasPrefix(t, "--") {
		return "", false, false
	}
	name, value, attached := strings.Cut(t[2:], "=")
	return value, attached, name != "" && strings.HasPrefix(full, name)
}

// eachLong calls fn with the value of every --full=VALUE or --full VALUE
// of args, --full abbreviated or not.
func eachLong(args []word, full string, fn func(word)) {
	for i := 0; i < len(args); i++ {
		v, attached, ok := longFlag(args[i].text, full)
		switch {
		case !ok:
		case attached:
			fn(word{text: v, lit: args[i].lit})
		case i+1 < len(args):
			i++
			fn(args[i])
		}
	}
}

// eachFlag calls flag for every flag of a builtin's arguments (each letter
// of a cluster; with its value for one of valueFlags, the rest of the
// cluster or the next word) and operand, if not nil, for every word after
// the flags.
func eachFlag(args []word, valueFlags string, flag func(f byte, value word), operand func(word)) {
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if !args[i].lit || len(t) < 2 || t[0] != '-' {
			break
		}
		if t == "--" {
			i++
			break
		}
		for j := 1; j < len(t); j++ {
			if strings.IndexByte(valueFlags, t[j]) < 0 {
				flag(t[j], word{})
				continue
			}
			if j+1 < len(t) {
				flag(t[j], word{text: t[j+1:], lit: true})
			} else if i+1 < len(args) {
				i++
				flag(t[j], args[i])
			}
			break
		}
	}
	if operand != nil {
		for _, a := range args[i:] {
			operand(a)
		}
	}
}

// sourceCommands run the file they are given in the current shell.
var sourceCommands = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"source": true, ".": true}
})

// classify notes what c, an already resolved command, runs that its words
// do not show, and follows the command strings of trap and rsync -e.
func (s *Script) classify(c *Command, args []word, depth int, wrappers []string) {
	name := c.Program
	s.checkRunner(name, args)
	switch {
	case sourceCommands()[name]:
		for _, a := range args {
			if a.lit && a.text == "--" {
				continue
			}
			if !a.known() {
				s.unresolved(name + " of a file named by an expansion")
			} else if stdinLike(a.text) {
				s.unresolved(name + " of " + a.text)
			}
			return
		}
		// fish's source with no file reads its standard input.
		s.unresolved(name + " with no file, which fish reads from its standard input")
	case name == "alias":
		// alias x=rm, and the csh and fish form alias x rm.
		operands := 0
		for _, a := range args {
			if !strings.HasPrefix(a.text, "-") {
				operands++
			}
			if strings.Contains(a.text, "=") || !a.known() || operands > 1 {
				s.unresolved("an alias definition")
				return
			}
		}
	case name == "setenv" && len(args) > 0:
		// tcsh's setenv NAME VALUE.
		value := ""
		if len(args) > 1 {
			value = args[1].text
		}
		s.checkAssign(args[0].text, value)
	case name == "set" && under(wrappers, "fish"):
		// fish's set [flags] NAME VALUE…; PATH is a list there.
		for i, a := range args {
			if !strings.HasPrefix(a.text, "-") {
				var vs []string
				for _, v := range args[i+1:] {
					vs = append(vs, v.text)
				}
				s.checkAssign(a.text, strings.Join(vs, ":"))
				if a.text == "fish_user_paths" || a.text == "fish_function_path" {
					s.unresolved("an assignment to " + a.text + ", which changes what programs run")
				}
				break
			}
		}
	case name == "set" && (under(wrappers, "tcsh") || under(wrappers, "csh")):
		// csh's set NAME=VALUE; its path array is PATH.
		for _, a := range args {
			n, v, _ := strings.Cut(a.text, "=")
			if n == "path" || !a.known() {
				s.unresolved("csh's set " + quoteWord(n) + ", which changes what programs run")
				return
			}
			s.checkAssign(n, v)
		}
	case name == "fish_add_path":
		s.unresolved("fish_add_path, which changes what programs run")
	case name == "emulate":
		for _, a := range args {
			if a.text == "-c" || strings.HasPrefix(a.text, "-") && strings.HasSuffix(a.text, "c") {
				s.unresolved("emulate -c, which runs a command string")
				return
			}
		}
	case name == "shopt":
		for _, a := range args {
			if a.text == "expand_aliases" || a.text == "dotglob" || a.text == "nocaseglob" || !a.known() {
				s.unresolved("shopt " + a.text)
				return
			}
		}
	case name == "hash":
		for _, a := range args {
			if strings.HasPrefix(a.text, "-") && strings.ContainsRune(a.text, 'p') || strings.Contains(a.text, "=") {
				// bash's hash -p PATH NAME, zsh's hash NAME=PATH.
				s.unresolved("hash -p, which maps a command name to another program")
				return
			}
		}
	case name == "zmodload":
		// zsh's enable -f: a module's builtins (zsh/files' zf_rm, zf_mv,
		// zf_ln …) do what the programs rules name, under names no rule
		// lists.
		s.unresolved("zmodload, which loads builtins from a module")
	case name == "enable":
		for _, a := range args {
			if !a.known() {
				s.unresolved("enable with an argument named by an expansion")
				return
			}
			if strings.HasPrefix(a.text, "-") && strings.ContainsRune(a.text, 'f') {
				s.unresolved("enable -f, which loads a builtin from a file")
				return
			}
		}
	case name == "export" || name == "declare" || name == "typeset" || name == "local" || name == "readonly" || name == "nameref":
		// As the parser reads a declaration (governance/shellsyntax): a
		// nameref (declare -n, nameref) sets the variable its literal
		// target names, and with no literal target a later assignment
		// names it; an argument named by an expansion may be either.
		s.checkAssignWords(args)
		ref := name == "nameref"
		for _, a := range args {
			ref = ref || name != "export" && a.lit && strings.HasPrefix(a.text, "-") && strings.ContainsRune(a.text, 'n')
		}
		for _, a := range args {
			if !a.known() {
				s.unresolved(name + " with an argument named by an expansion")
				continue
			}
			if strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+") {
				continue
			}
			n, target, ok := strings.Cut(a.text, "=")
			if ref && !ok {
				s.unresolved("a nameref with no target (" + name + " -n " + n + "), which a later assignment names")
			} else if ref {
				s.checkAssign(target, "$?")
			}
			s.checkZshAssign(n, wrappers)
		}
	case assignsByName()[name]:
		if vf, ok := namingBuiltins[name]; ok {
			s.checkNamingBuiltin(name, vf, args, depth, wrappers)
		}
		// Builtins that set a variable named by an argument (read NAME,
		// printf -v NAME, mapfile NAME, zsh's set -A NAME, print -v NAME):
		// every word that is not an option may be the name, with a value
		// nobody knows before the shell runs.
		for _, a := range args {
			if a.lit && strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+") {
				continue
			}
			s.checkAssign(a.text, "$?")
			s.checkZshAssign(a.text, wrappers)
		}
	case name == "compgen":
		// compgen -C runs a command, and expands the words of -W as the
		// shell expands words, substitutions included.
		eachFlag(args, "oAGWFCXPSV", func(f byte, v word) {
			switch {
			case f == 'C':
				s.addNestedWord(v, depth, wrappers, name)
			case f == 'W' && (!v.known() || strings.ContainsAny(v.text, "$`")):
				s.unresolved("compgen -W, which expands its words as the shell does")
			}
		}, nil)
	case name == "fc" || name == "r" || name == "hist":
		// fc -s, fc -e, zsh's r and ksh's hist run commands from the
		// history list (history -s puts any text there); fc -l lists.
		list := false
		eachFlag(args, "e", func(f byte, _ word) { list = list || f == 'l' }, nil)
		if !list || name != "fc" {
			s.unresolved(name + ", which runs commands from the history list")
		}
	case name == "trap":
		ops := args
		for len(ops) > 0 && ops[0].lit && strings.HasPrefix(ops[0].text, "-") && ops[0].text != "-" {
			ops = ops[1:]
		}
		if len(ops) >= 2 && !(ops[0].lit && (ops[0].text == "-" || isDigits(ops[0].text))) {
			s.addNestedWord(ops[0], depth, wrappers, "trap")
		}
	case name == "git":
		s.checkGit(args, depth, wrappers)
	case name == "tar":
		s.checkTar(args)
	case name == "ssh" || name == "scp" || name == "sftp":
		s.checkSSH(name, args)
	case name == "rsync":
		for i, a := range args {
			switch {
			case (a.text == "-e" || a.text == "--rsh") && i+1 < len(args):
				s.addNestedWord(args[i+1], depth, wrappers, "rsync")
			case strings.HasPrefix(a.text, "--rsh="):
				s.addNested(a.text[len("--rsh="):], a.known(), depth, appendWrapper(wrappers, "rsync"), nil)
			}
		}
	case name == "sed":
		s.checkSed(args, depth, wrappers)
	case name == "man":
		// man -P runs its pager with the shell.
		eachFlag(args, "PMSCLmepRE", func(f byte, v word) {
			if f == 'P' {
				s.addNestedWord(v, depth, wrappers, "man")
			}
		}, nil)
		eachLong(args, "pager", func(v word) { s.addNestedWord(v, depth, wrappers, "man") })
	case name == "zip":
		for _, a := range args {
			if a.text == "-TT" || strings.HasPrefix(a.text, "--unzip-command") {
				s.unresolved("zip " + a.text + ", which runs a command")
				return
			}
		}
	default:
		if in, base, ok := interpreterOf(name); ok {
			s.checkInterpreter(base, in, args)
		}
	}
}
