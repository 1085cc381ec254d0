// Package shellmatch resolves a Bash command string into the simple
// commands it would run, for permission rules that match on programs and on
// the files a command writes.
//
// The string is parsed with a real shell parser (mvdan.cc/sh/v3/syntax, in
// a program that links governance/shellsyntax; see internal/shellstmt), so
// every simple command is found wherever it sits: behind &&, ||, ;, |, |&, &
// and newlines, inside subshells, blocks, loops and functions, inside command
// substitution ($(…) and backticks), process substitution and the words of
// redirects and assignments. Each command is then resolved to the program it
// really runs: wrappers such as sudo, timeout or env are stripped with their
// flags, words are unquoted, and the command strings of sh -c, bash -c, su
// -c, env -S and eval, and the commands of find -exec and xargs, are parsed
// in turn, to a bounded depth.
package shellmatch

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/paigasus/helikon/internal/shellstmt"
)

// MaxDepth bounds how many nested command strings (sh -c, eval, …) are
// followed. A script nested deeper is marked Truncated.
const MaxDepth = 4

// Command is one simple command as it would run.
type Command struct {
	// Program is the base name of the program after wrappers are stripped
	// ("rm" for `sudo /bin/rm -rf /`). It is empty when the program word is
	// not a plain literal ($CMD, $(…)) or when the command is only
	// redirections.
	Program string
	// Path is the program word as written, unquoted ("./x.sh",
	// "/bin/rm", "rm"), when it is a plain literal; a word with a "/"
	// runs that file rather than one found on $PATH.
	Path string
	// Args are the arguments after the program, unquoted. A word that is not
	// a plain literal keeps a loose form: $NAME for a parameter, "" for
	// anything else.
	Args []string
	// Writes are the targets of the command's output redirections (>, >>,
	// &>, >|, <>, >& file), unquoted, in the same loose form as Args.
	Writes []string
	// Wrappers are the base names of the wrappers and shells the command
	// ran under, outermost first ("sudo", "timeout", "bash"). "$SHELL"
	// stands for a shell the words do not name: the login shell of su -c,
	// the $SHELL of script -c and flock -c.
	Wrappers []string
	// Dynamic reports that the program or an argument is not a plain
	// literal, so the command may run something its words do not show.
	Dynamic bool
	// DynArgs has bit i set when Args[i] is not known before the shell runs:
	// a parameter (other than $HOME), a substitution, a brace expansion.
	DynArgs uint64
	// GlobArgs has bit i set when Args[i] holds unquoted glob characters.
	GlobArgs uint64
	// DynWrites has bit i set when Writes[i] is not known before the shell
	// runs.
	DynWrites uint64
}

// ArgDynamic reports whether argument i is not known before the shell
// runs. Past the 64th argument it answers Dynamic.
func (c *Command) ArgDynamic(i int) bool {
	if i >= 64 {
		return c.Dynamic
	}
	return c.DynArgs&(1<<i) != 0
}

// ArgGlob reports whether argument i holds unquoted glob characters. Past
// the 64th argument it answers true.
func (c *Command) ArgGlob(i int) bool { return i >= 64 || c.GlobArgs&(1<<i) != 0 }

// WriteDynamic reports whether write target i is not known before the
// shell runs.
func (c *Command) WriteDynamic(i int) bool { return i >= 64 || c.DynWrites&(1<<i) != 0 }

// Script is what a command string runs.
type Script struct {
	Commands []Command
	// Approx reports that the string did not parse as Bash; Commands then
	// come from a plain tokenizer that splits on operators and blanks.
	Approx bool
	// Truncated reports that nested command strings went deeper than
	// MaxDepth and were not followed.
	Truncated bool
	// Unresolved names the first construct whose program or target the
	// matcher cannot determine before the shell runs (a dynamic command
	// word, a shell reading its standard input, inline interpreter code, a
	// command past the size or nesting bound, …), or is "" when it
	// resolved everything. Rules fail closed on it.
	Unresolved string

	argArena []string // backs the Args of commands, to allocate once
}

// takeArgs returns room for n arguments.
func (s *Script) takeArgs(n int) []string {
	if cap(s.argArena)-len(s.argArena) < n {
		return make([]string, n)
	}
	l := len(s.argArena)
	s.argArena = s.argArena[:l+n]
	return s.argArena[l : l+n : l+n]
}

// Parse resolves src. Results are cached: the returned Script is shared and
// must not be modified.
func Parse(src string) *Script {
	if s := cache.get(src); s != nil {
		return s
	}
	s := &Script{}
	if why := checkBounds(src); why != "" {
		s.Unresolved = why
		return s
	}
	s.add(src, 0, nil)
	cache.put(src, s)
	return s
}

// unresolved records why the script cannot be fully resolved; the first
// reason found is kept.
func (s *Script) unresolved(why string) {
	if s.Unresolved == "" {
		s.Unresolved = why
	}
}

// add appends the commands of src, run under wrappers, at nesting depth.
func (s *Script) add(src string, depth int, wrappers []string) {
	if depth > MaxDepth {
		s.Truncated = true
		s.unresolved(fmt.Sprintf("command strings nested more than %d deep", MaxDepth))
		return
	}
	if strings.IndexByte(src, '\\') >= 0 && under(wrappers, "fish") {
		// fish reads \x72m as rm where Bash reads x72m.
		s.unresolved("a backslash escape in a command string fish may run (fish -c, or the shell of su -c, script -c, flock -c), which fish reads unlike Bash")
	}
	if cmds, ok := fastSplit(src); ok {
		s.Commands = slices.Grow(s.Commands, len(cmds))
		n := 0
		for _, c := range cmds {
			n += len(c.words)
		}
		s.argArena = make([]string, 0, n)
		for _, c := range cmds {
			s.resolve(c.words, depth, wrappers, c.writes, 0)
		}
		return
	}
	s.addParsed(src, depth, wrappers)
}

// addParsed is add through the parser the program links
// (shellstmt.Parser). Without one, src is resolved as a string that does
// not parse, and marked unresolved: the rules fail closed on it.
func (s *Script) addParsed(src string, depth int, wrappers []string) {
	if !utf8.ValidString(src) {
		// Bash runs bytes the parser rejects; only words matter here.
		src = strings.ToValidUTF8(src, "\uFFFD")
	}
	parse := shellstmt.Parser
	if parse == nil {
		s.approximate(src, depth, wrappers, NoParser)
		return
	}
	stmts, err := parse(src)
	if err != nil {
		s.approximate(src, depth, wrappers, "a command that does not parse as Bash")
		return
	}
	for i := range stmts {
		st := &stmts[i]
		if st.Unresolved != "" {
			s.unresolved(st.Unresolved)
		}
		for _, a := range st.Assigns {
			s.checkAssign(a.Name, a.Value)
			s.checkZshAssign(a.Name, wrappers)
		}
		if len(st.Words) == 0 {
			if len(st.Writes) > 0 {
				s.Commands = append(s.Commands, Command{Writes: st.Writes, Wrappers: wrappers, DynWrites: st.DynWrites})
			}
			continue
		}
		ws := make([]word, len(st.Words))
		for j, w := range st.Words {
			ws[j] = word{text: w.Text, lit: w.Lit, home: w.Home, glob: w.Glob, brace: w.Brace}
		}
		s.resolve(ws, depth, wrappers, st.Writes, st.DynWrites)
	}
}

// NoParser is the Unresolved reason of a command string the fast reader
// cannot split in a program that links no shell parser.
const NoParser = "a command line only a shell parser reads, and this program links none (import github.com/paigasus/helikon/governance/shellsyntax)"

// approximate resolves src, which the parser could not read, from a plain
// tokenizer's split, marking the script Approx and unresolved for why.
func (s *Script) approximate(src string, depth int, wrappers []string, why string) {
	s.Approx = true
	s.unresolved(why)
	for _, words := range tokenize(src) {
		s.resolve(words, depth, wrappers, nil, 0)
	}
}

// word is a command word: its unquoted text, and whether that text is
// exactly what the shell would pass.
type word struct {
	text string
	lit  bool
	// home: the text is exact but for $HOME, which stands for the home
	// directory ("${HOME:?}/x").
	home bool
	// glob and brace: unquoted glob characters, the shape of a brace
	// expansion; the shell expands both after the matcher has looked.
	glob, brace bool
}

// known reports whether the shell passes the word as its text says, up to
// glob expansion.
func (w word) known() bool { return (w.lit || w.home) && !w.brace }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxWrappers bounds how many wrappers one command may run under; each
// costs a copy of the list, and no real command needs more.
const maxWrappers = 16

// resolve strips wrappers off words, follows nested command strings, and
// appends the command that remains.
func (s *Script) resolve(words []word, depth int, wrappers []string, writes []string, dynWrites uint64) {
	s.resolveInput(words, depth, wrappers, writes, dynWrites, input{})
}

// input is what a runner (xargs, find -exec) puts into the command it
// runs: the replacement text it substitutes (xargs -I R, find's {}), or,
// for xargs without -I, words it appends.
type input struct {
	by      string // "xargs", "find -exec"
	repl    string
	appends bool
}

// check notes a program word or a command string that holds what the
// runner substitutes: the runner's input decides what runs.
func (in input) check(s *Script, text, of string) bool {
	if in.repl == "" || !strings.Contains(text, in.repl) {
		return false
	}
	if of == "" {
		s.unresolved(in.by + " running a program named by its input")
	} else {
		s.unresolved(in.by + " substituting its input into the command string of " + of)
	}
	return true
}

// operands marks the arguments of the command the runner runs that its
// input fills, as not known before the shell runs: those holding the
// replacement text, and a last one standing for the words xargs appends.
// A guard that reads operands then asks, as for rm -rf "$DIR".
func (in input) operands(words []word) []word {
	out := make([]word, len(words), len(words)+1)
	copy(out, words)
	for i := 1; i < len(out); i++ {
		if in.repl != "" && strings.Contains(out[i].text, in.repl) {
			out[i].lit, out[i].home = false, false
		}
	}
	if in.appends {
		out = append(out, word{text: "$?"})
	}
	return out
}

// resolveInput is resolve for words a runner fills from its input.
func (s *Script) resolveInput(words []word, depth int, wrappers []string, writes []string, dynWrites uint64, in input) {
	stdin := false
	zsh := under(wrappers, "zsh")
	for len(words) > 0 {
		if zsh {
			s.checkZshQualifiers(words)
		}
		if !words[0].known() || words[0].glob || in.check(s, words[0].text, "") {
			break
		}
		if t := words[0].text; len(t) > 1 && t[0] == '=' {
			// zsh runs =rm as the rm its $PATH finds; to bash it names
			// no program, and reading it as rm only asks more.
			w := words[0]
			w.text = t[1:]
			words = append([]word{w}, words[1:]...)
		}
		if len(wrappers) >= maxWrappers {
			s.unresolved(fmt.Sprintf("a command under more than %d wrappers", maxWrappers))
			break
		}
		name := path.Base(words[0].text)
		if p := words[0].text; strings.HasPrefix(p, "/") && (stdinLike(p) || procExe(p)) {
			// /dev/fd/3 after exec 3</bin/rm runs rm; /proc/self/exe is
			// the shell itself.
			s.unresolved("a program run through " + quoteWord(p) + ", an open file or a process's program")
			break
		}
		if dynamicLoader(name) {
			// ld-linux-x86-64.so.2 /bin/rm … runs rm, even a file
			// without the execute bit: a wrapper. Its flags that load
			// code of their own are not followed.
			name = "ld.so"
			for _, a := range words[1:] {
				if t := a.text; !strings.HasPrefix(t, "--") || t == "--" {
					break
				} else if f, _, _ := strings.Cut(t[2:], "="); f == "preload" || f == "audit" || f == "library-path" {
					s.unresolved("the dynamic loader loading the libraries --" + f + " names")
					break
				}
			}
		}
		if name == "nice" && len(words) > 1 && strings.HasPrefix(words[1].text, "+") {
			// tcsh's nice +N COMMAND.
			words = append([]word{words[0]}, words[2:]...)
		}
		if rest, ok := runnerCommand(name, words[1:]); ok {
			wrappers = appendWrapper(wrappers, name)
			words = rest
			continue
		}
		if why, ok := runsLater()[name]; ok {
			s.unresolved(name + ", which " + why)
		}
		if w, ok := wrapperSpecs()[name]; ok {
			if name == "builtin" && len(words) > 1 && strings.HasPrefix(words[1].text, "-") && strings.ContainsRune(words[1].text, 'f') {
				// ksh93's builtin -f LIB, bash's enable -f.
				s.unresolved("builtin -f, which loads a builtin from a file")
			}
			if w.assigns {
				s.checkAssignWords(words[1:])
			}
			rest, nested, nestedLit := w.strip(words[1:])
			if nested != nil {
				in.check(s, *nested, name)
				ws := appendWrapper(wrappers, name)
				if name == "script" || name == "flock" {
					ws = appendWrapper(ws, anyShell) // $SHELL -c runs it
				}
				s.addNested(*nested, nestedLit, depth, ws, writes)
				return
			}
			if name == "sudo" && len(rest) > 0 && (hasFlag(words[1:len(words)-len(rest)], "-s", "--shell") || hasFlag(words[1:len(words)-len(rest)], "-i", "--login")) {
				// sudo -s and -i escape the words of the command for the
				// shell they run it with, all but $: $CMD expands there.
				for _, r := range rest {
					if strings.IndexByte(r.text, '$') >= 0 {
						s.unresolved("sudo " + words[1].text + " passing a $ to the shell it runs the command with")
						break
					}
				}
			}
			if len(rest) == 0 {
				// A wrapper with nothing to run is itself the program,
				// or runs a shell on its standard input; under xargs,
				// the program is the first word xargs appends.
				if w.bareShell {
					s.unresolved(name + " with no command, which runs a shell reading its standard input")
				}
				if in.appends {
					s.unresolved(in.by + " running " + name + ", which runs a program named by its input")
				}
				break
			}
			if name == "xargs" {
				in = xargsInput(words[1:])
			}
			wrappers = appendWrapper(wrappers, name)
			words = rest
			continue
		}
		if name == "runuser" && !hasFlag(words[1:], "-c", "--command") && hasFlag(words[1:], "-u", "--user") {
			// runuser -u USER COMMAND runs COMMAND directly, like sudo.
			if rest, _, _ := runuserSpec.strip(words[1:]); len(rest) > 0 {
				wrappers = appendWrapper(wrappers, name)
				words = rest
				continue
			}
		}
		if sh, dialect, ok := shellOf(name); ok {
			if dialect == "fish" {
				// fish runs every -c string, and its -C strings first.
				if cmds := fishStrings(words[1:]); len(cmds) > 0 {
					for _, c := range cmds {
						in.check(s, c.text, name)
						s.addNested(c.text, c.known(), depth, appendWrapper(wrappers, name), writes)
					}
					return
				}
			}
			if cmd, lit, found := sh.commandString(words[1:]); found {
				in.check(s, cmd, name)
				ws := appendWrapper(wrappers, name)
				if sh.cTakesValue {
					// su and runuser run it with -s's shell or the login shell.
					ws = appendWrapper(ws, loginShell(words[1:]))
				}
				s.addNested(cmd, lit, depth, ws, writes)
				return
			}
			// A shell with no -c and no script operand runs whatever
			// arrives on its standard input: nothing its words show.
			stdin = !hasOperand(words[1:])
			s.checkShellScript(name, words[1:], stdin)
		}
		if name == "find" {
			s.findExec(words[1:], depth, wrappers)
		}
		break
	}
	if len(words) > 0 && (in.repl != "" || in.appends) {
		words = in.operands(words)
	}
	c := Command{Writes: writes, Wrappers: wrappers, Dynamic: stdin, DynWrites: dynWrites}
	if len(words) == 0 {
		s.Commands = append(s.Commands, c)
		return
	}
	w0 := words[0]
	switch {
	case w0.brace:
		s.unresolved("brace expansion in the command word " + quoteWord(w0.text))
	case w0.glob:
		s.unresolved("a glob in the command word " + quoteWord(w0.text))
	case !w0.known():
		s.unresolved("a dynamic command word " + quoteWord(w0.text))
	}
	if w0.known() {
		if w0.text != "" {
			c.Program = path.Base(w0.text)
			c.Path = w0.text
		}
	} else {
		c.Dynamic = true
	}
	if len(words) > 1 {
		c.Args = s.takeArgs(len(words) - 1)
		for i, w := range words[1:] {
			c.Args[i] = w.text
			if !w.known() {
				c.Dynamic = true
				if i < 64 {
					c.DynArgs |= 1 << i
				}
			}
			if w.glob && i < 64 {
				c.GlobArgs |= 1 << i
			}
		}
	}
	if c.Program != "" && !w0.glob {
		s.classify(&c, words[1:], depth, wrappers)
	}
	s.Commands = append(s.Commands, c)
}

// checkZshQualifiers marks unresolved a command string zsh runs whose
// words hold what Bash reads as an extended glob (to zsh, *(e:…:) and
// *(+cmd) are glob qualifiers that run code for every file matched), or a
// $ Bash leaves literal (zsh's $=x splits x into a command and its words).
func (s *Script) checkZshQualifiers(words []word) {
	for _, w := range words {
		if w.glob && !w.lit && strings.IndexByte(w.text, '(') >= 0 {
			s.unresolved("a zsh glob qualifier in " + quoteWord(w.text) + ", which may run code")
			return
		}
		if w.lit && strings.IndexByte(w.text, '$') >= 0 {
			// Bash left the $ literal; zsh expands $=x, $~x, $^x.
			s.unresolved("a zsh expansion in " + quoteWord(w.text) + ", which Bash reads as literal text")
			return
		}
	}
}

// quoteWord renders a word for a reason, cut short.
func quoteWord(t string) string {
	if len(t) > 40 {
		t = t[:40] + "…"
	}
	return strconv.Quote(t)
}

// addNestedWord is addNested for the command string w that program (git
// rebase -x, man -P, trap, mapfile -C) runs, with no redirections of its own.
func (s *Script) addNestedWord(w word, depth int, wrappers []string, program string) {
	s.addNested(w.text, w.known(), depth, appendWrapper(wrappers, program), nil)
}

// addNested adds the commands of a nested command string (sh -c, eval, env
// -S). A string that is not a plain literal is parsed in its loose form
// ($NAME kept), so `bash -c "rm -rf $DIR"` still shows rm, and every
// command it yields is marked Dynamic.
func (s *Script) addNested(src string, lit bool, depth int, wrappers, writes []string) {
	first := len(s.Commands)
	s.add(src, depth+1, wrappers)
	if !lit {
		if len(s.Commands) == first {
			s.Commands = append(s.Commands, Command{Wrappers: wrappers})
		}
		for i := first; i < len(s.Commands); i++ {
			s.Commands[i].Dynamic = true
		}
	}
	if len(writes) > 0 {
		s.Commands = append(s.Commands, Command{Writes: writes, Wrappers: wrappers, Dynamic: !lit})
	}
}

// appendWrapper appends without aliasing a slice shared by sibling commands.
func appendWrapper(ws []string, name string) []string {
	out := make([]string, len(ws), len(ws)+1)
	copy(out, ws)
	return append(out, name)
}

// findExec adds the commands find runs with -exec, -execdir, -ok and -okdir.
func (s *Script) findExec(args []word, depth int, wrappers []string) {
	for i := 0; i < len(args); i++ {
		if !args[i].lit {
			continue
		}
		switch args[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].lit && (args[j].text == ";" || args[j].text == "+")) {
			j++
		}
		if j > i+1 {
			if depth+1 > MaxDepth {
				s.Truncated = true
				s.unresolved(fmt.Sprintf("find -exec nested more than %d deep", MaxDepth))
				return
			}
			// find puts the file it found wherever {} stands, a program
			// word or a command string behind wrappers included.
			s.resolveInput(args[i+1:j], depth+1, appendWrapper(wrappers, "find"), nil, 0, input{by: "find " + args[i].text, repl: "{}"})
		}
		i = j
	}
}

// runuserSpec is runuser's -u form, a wrapper.
var runuserSpec = wrapperSpec{short: "ugGw", long: []string{"user", "group", "supp-group", "whitelist-environment"}}

// hasFlag reports whether args hold one of flags, alone, attached with "=",
// or (for a one-letter flag) at the start of a cluster.
func hasFlag(args []word, short, long string) bool {
	for _, a := range args {
		t := a.text
		if t == "--" {
			return false
		}
		if t == long || strings.HasPrefix(t, long+"=") || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.IndexByte(t[1:], short[1]) >= 0 {
			return true
		}
	}
	return false
}

// hasOperand reports whether args hold a word that is not a flag.
func hasOperand(args []word) bool {
	for _, a := range args {
		if !a.lit || a.text == "" || (a.text[0] != '-' && a.text[0] != '+') {
			return true
		}
	}
	return false
}

// privileged wrappers change who runs a command.
var privileged = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"sudo": true, "doas": true, "su": true}
})

// MayRun reports whether some command of s runs program or runs under a
// wrapper of that name, the test of a deny list. A script nested past
// MaxDepth may run anything, so it reports true. It answers only for what
// the matcher resolved: check Unresolved for what it could not.
func (s *Script) MayRun(program string) bool {
	if s.Truncated {
		return true
	}
	for i := range s.Commands {
		c := &s.Commands[i]
		if c.Program == program || slices.Contains(c.Wrappers, program) {
			return true
		}
	}
	return false
}

// OnlyRuns reports whether every command of s runs a program allowed
// admits, the test of an allow list. It fails closed: a script that did not
// parse, was nested past MaxDepth or runs nothing is not admitted, nor is a
// command whose program is not a plain literal, a shell running a dynamic
// command string or its standard input, or a command under sudo, doas or su
// or a direct runner (uv run, see directRunner) unless allowed admits that wrapper
// too: uv run may build and install the project before the program runs.
func (s *Script) OnlyRuns(allowed func(program string) bool) bool {
	if s.Approx || s.Truncated || s.Unresolved != "" || len(s.Commands) == 0 {
		return false
	}
	for i := range s.Commands {
		c := &s.Commands[i]
		if c.Program == "" || (c.Dynamic && IsShell(c.Program)) || !allowed(c.Program) {
			return false
		}
		for _, w := range c.Wrappers {
			if (privileged()[w] || directRunner(w) != "") && !allowed(w) {
				return false
			}
		}
	}
	return true
}
