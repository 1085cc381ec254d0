package shellmatch

import (
	"slices"
	"strings"
	"testing"
)

// programs lists the programs of s, one per command, marked "?" when
// dynamic, and "-" for a redirect-only one.
func programs(s *Script) string {
	var out []string
	for _, c := range s.Commands {
		switch {
		case c.Program != "" && c.Dynamic:
			out = append(out, c.Program+"?")
		case c.Program != "":
			out = append(out, c.Program)
		case c.Dynamic:
			out = append(out, "?")
		default:
			out = append(out, "-")
		}
	}
	return strings.Join(out, " ")
}

func TestParse_FindsEveryProgramTheStringRuns(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"plain", "git status", "git"},
		{"and", "echo ok && rm -rf .", "echo rm"},
		{"or", "false || rm x", "false rm"},
		{"semicolon", "ls; rm x", "ls rm"},
		{"pipe", "cat f | rm x", "cat rm"},
		{"pipe stderr", "cat f |& rm x", "cat rm"},
		{"background", "sleep 1 & rm x", "sleep rm"},
		{"newline", "ls\nrm x", "ls rm"},
		{"sudo", "sudo rm -rf /", "rm"},
		{"sudo with user", "sudo -u root -E rm -rf /", "rm"},
		{"sudo cluster value", "sudo -iu root rm x", "rm"},
		{"timeout", "timeout -s KILL 10 rm x", "rm"},
		{"nice", "nice -n 5 nohup rm x", "rm"},
		{"stdbuf", "stdbuf -oL rm x", "rm"},
		{"env assigns", "env -i FOO=1 BAR=2 rm x", "rm"},
		{"env split string", "env -S 'rm -rf /'", "rm"},
		// env runs the split words with the operands after them.
		{"env split string then operands", "env -S env rm -rf /", "rm"},
		{"env split strings chained", "env -S 'env -S env' --split-string=env rm x", "rm"},
		{"command", "command rm x", "rm"},
		{"doas", "doas -u root rm x", "rm"},
		{"exec", "exec rm x", "rm"},
		{"absolute program", "/bin/rm -rf /", "rm"},
		{"quoted program", "'r'\"m\" -rf /", "rm"},
		{"escaped program", `\rm -rf /`, "rm"},
		{"ansi-c program", `$'\x72m' -rf /`, "rm"},
		{"bash -c", "bash -c 'rm -rf /'", "rm"},
		{"sh -lc", "sh -lc 'echo hi; rm -rf /'", "echo rm"},
		{"nested shells", `bash -c "sh -c 'rm -rf /'"`, "rm"},
		{"su -c", "su root -c 'rm -rf /'", "rm"},
		{"eval", "eval rm -rf /", "rm"},
		{"command substitution", "echo $(rm -rf /)", "echo? rm"},
		{"backticks", "echo `rm -rf /`", "echo? rm"},
		{"process substitution", "diff <(rm -rf /) x", "diff? rm"},
		{"subshell", "(cd /; rm -rf .)", "cd rm"},
		{"block", "{ rm x; }", "rm"},
		{"if", "if true; then rm x; fi", "true rm"},
		{"for", "for f in a b; do rm $f; done", "rm?"},
		{"function body", "f() { rm x; }; f", "rm f"},
		{"assignment value", "X=$(rm -rf /) ls", "ls rm"},
		{"export value", "export X=$(rm -rf /)", "rm"},
		{"redirect word", "echo hi > $(rm -rf /)", "echo rm"},
		{"time keyword", "time rm x", "rm"},
		{"negation", "! rm x", "rm"},
		// The operands xargs appends and find's {} are its input's.
		{"xargs", "find . | xargs -n 1 rm -f", "find rm?"},
		{"find exec", `find . -name x -exec rm -rf {} \;`, "rm? find"},
		{"dynamic program", "$CMD -rf /", "?"},
		{"dynamic nested string keeps its loose form", `bash -c "rm -rf $DIR"`, "rm?"},
		{"dynamic eval", `eval "rm $X"`, "rm?"},
		{"shell from stdin", "curl x | sh", "curl sh?"},
		{"redirect only", "> out.txt", "-"},
		{"empty", "", ""},
		{"unparsable falls back", "echo 'unterminated && rm -rf /", "echo rm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := programs(Parse(tt.src)); got != tt.want {
				t.Errorf("Parse(%q) programs = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestParse_RecordsWrappersAndWrites(t *testing.T) {
	s := Parse("sudo timeout 5 tee /etc/hosts > /dev/null 2>&1 && echo x >> ~/log")
	if len(s.Commands) != 2 {
		t.Fatalf("got %d commands: %+v", len(s.Commands), s.Commands)
	}
	c := s.Commands[0]
	if c.Program != "tee" || !slices.Equal(c.Wrappers, []string{"sudo", "timeout"}) || !slices.Equal(c.Args, []string{"/etc/hosts"}) {
		t.Errorf("first command = %+v", c)
	}
	if !slices.Equal(c.Writes, []string{"/dev/null"}) {
		t.Errorf("writes = %q, want /dev/null only (2>&1 duplicates a descriptor)", c.Writes)
	}
	if w := s.Commands[1].Writes; !slices.Equal(w, []string{"~/log"}) {
		t.Errorf("second writes = %q", w)
	}
}

func TestParse_LooseFormKeepsParameters(t *testing.T) {
	tests := []struct {
		src     string
		args    []string
		dynArgs uint64
	}{
		{`rm -rf "$DIR"`, []string{"-rf", "$DIR"}, 0b10},
		{`rm -rf "$(pwd)"/x`, []string{"-rf", "$?/x"}, 0b10},
		// $HOME stands for the home directory: the guards resolve it.
		{`rm -rf "$HOME"`, []string{"-rf", "$HOME"}, 0},
		{`rm -rf "${HOME:?}"/`, []string{"-rf", "$HOME/"}, 0},
		{`rm -rf /{bin,etc}`, []string{"-rf", "/{bin,etc}"}, 0b10},
	}
	for _, tt := range tests {
		c := Parse(tt.src).Commands[0]
		if !slices.Equal(c.Args, tt.args) || c.DynArgs != tt.dynArgs {
			t.Errorf("%s: args %q dyn %b, want %q dyn %b", tt.src, c.Args, c.DynArgs, tt.args, tt.dynArgs)
		}
	}
}

func TestParse_DepthIsBounded(t *testing.T) {
	src := "rm x"
	for range MaxDepth + 2 {
		src = "sh -c " + quote(src)
	}
	s := Parse(src)
	if !s.Truncated {
		t.Errorf("nesting %d deep not marked truncated: %+v", MaxDepth+2, s)
	}
	src = "rm x"
	for range MaxDepth {
		src = "sh -c " + quote(src)
	}
	if s := Parse(src); s.Truncated || programs(s) != "rm" {
		t.Errorf("nesting %d deep: %+v", MaxDepth, s)
	}
	// Runners whose command is words, not a string, nest too: each level
	// is bounded as a string's is, not followed thousands deep.
	for _, runner := range []string{"git bisect run ", "find . -exec "} {
		src := strings.Repeat(runner, 1000) + "rm x"
		if s := Parse(src); !s.Truncated || len(s.Commands) > 2*MaxDepth+2 {
			t.Errorf("%q 1000 deep: Truncated %v, %d commands", runner, s.Truncated, len(s.Commands))
		}
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestFastSplit_AgreesWithParser(t *testing.T) {
	for _, src := range []string{
		"git status", "ls -la /tmp", "rm -rf ~", "timeout 10 rm x", "a  b\tc", "sudo -u root rm /",
		"git status && ls -la src | grep -v tmp > /dev/null", "make 2>&1 | tail -20", "go test ./... ; echo done &",
		`git commit -m "fix: a bug" && git push`, "echo 'a b'c > out.txt 2>> err.log", "cat < in.txt |& tee -a log",
		"ls *.go && rm -f a?.o", "cmd &> all.log", "cmd >| clobber >&2",
	} {
		if _, ok := fastSplit(src); !ok {
			t.Errorf("%q: fast path declined", src)
		}
		fast := &Script{}
		fast.add(src, 0, nil)
		slow := &Script{}
		slow.addParsed(src, 0, nil)
		if !equalScripts(fast, slow) {
			t.Errorf("%q: fast %+v, parser %+v", src, fast, slow)
		}
	}
}

func equalScripts(a, b *Script) bool {
	if a.Approx != b.Approx || a.Truncated != b.Truncated || len(a.Commands) != len(b.Commands) {
		return false
	}
	for i := range a.Commands {
		x, y := a.Commands[i], b.Commands[i]
		if x.Program != y.Program || x.Dynamic != y.Dynamic || !slices.Equal(x.Args, y.Args) ||
			!slices.Equal(x.Writes, y.Writes) || !slices.Equal(x.Wrappers, y.Wrappers) {
			return false
		}
	}
	return true
}

func TestScript_DenyListAnyAllowListEvery(t *testing.T) {
	allow := func(p string) bool { return p == "git" || p == "ls" }
	tests := []struct {
		src          string
		mayRunRM     bool
		onlyGitAndLs bool
	}{
		{"git status && ls", false, true},
		{"git status && rm x", true, false},
		{"sudo git push", false, false},
		{"sudo ls", false, false},
		{"timeout 5 git fetch", false, true},
		{"$GIT status", false, false},
		{"git log $(rm x)", true, false},
		{"git status '", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		s := Parse(tt.src)
		if got := s.MayRun("rm"); got != tt.mayRunRM {
			t.Errorf("%q: MayRun(rm) = %v", tt.src, got)
		}
		if got := s.OnlyRuns(allow); got != tt.onlyGitAndLs {
			t.Errorf("%q: OnlyRuns(git, ls) = %v", tt.src, got)
		}
	}
	if !Parse("sudo ls").MayRun("sudo") {
		t.Error("a wrapper is not matched by MayRun")
	}
}

// BenchmarkParse measures resolution without the cache: a plain list takes
// the fast path, the others the parser.
func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"fast_path", "git status && ls -la src | grep -v tmp > /dev/null"},
		{"parser_substitution", `echo "$(git rev-parse HEAD)" && make test 2>&1 | tee log`},
		{"parser_nested_shell", `sudo bash -c 'cd /srv && for f in *.log; do gzip "$f"; done'`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := &Script{}
				s.add(bc.src, 0, nil)
			}
		})
	}
}

// TestParse_ShellsByOtherNamesAndLanguages pins how a shell the corpus
// cannot run everywhere is read: a known shell under another name or a
// version suffix is followed into its -c string, a shell of another
// language runs inline code, and a program run through /proc/…/exe or an
// open file is unresolved.
func TestParse_ShellsByOtherNamesAndLanguages(t *testing.T) {
	for _, tt := range []struct {
		src, why string // why: a substring of Unresolved, "" for none
		mayRunRM bool
	}{
		{"bash5.2 -c 'rm x'", "", true},
		{"zsh-5.9 -c 'rm x'", "", true},
		{"osh -c 'rm x'", "", true},
		{"hush -c 'rm x'", "", true},
		{"rsh host 'rm x'", "", false}, // the remote shell, no shell here
		{"elvish -c 'rm x'", "elvish -c", false},
		{"nu --commands 'rm x'", "nu --commands", false},
		{"xonsh -c 'rm x'", "xonsh -c", false},
		{"/proc/self/exe -c 'rm x'", `"/proc/self/exe"`, false},
		{"/proc/1/exe -c 'rm x'", `"/proc/1/exe"`, false},
		{"/dev/fd/3 x", `"/dev/fd/3"`, false},
	} {
		s := Parse(tt.src)
		if tt.why == "" && s.Unresolved != "" || !strings.Contains(s.Unresolved, tt.why) {
			t.Errorf("%q: Unresolved %q, want %q", tt.src, s.Unresolved, tt.why)
		}
		if s.MayRun("rm") != tt.mayRunRM {
			t.Errorf("%q: MayRun(rm) = %v", tt.src, s.MayRun("rm"))
		}
	}
}

// TestParse_GitSubcommandsAndManRunTheirCommands pins that the command
// strings git's subcommands and man's pager flag run are followed: a rule
// on the program sees them.
func TestParse_GitSubcommandsAndManRunTheirCommands(t *testing.T) {
	for _, tt := range []struct {
		src      string
		mayRunRM bool
	}{
		{"git rebase -x 'rm -rf build' --root", true},
		{"git rebase --exec='rm x' main", true},
		{"git -C repo submodule foreach --recursive 'rm -rf build'", true},
		{"git bisect run rm -rf build", true},
		{"git filter-branch --tree-filter 'rm -rf build' HEAD", true},
		{"git difftool --extcmd='rm x'", true},
		{"git grep -O'rm x' foo", true},
		{"git fetch --upload-pack 'rm x' origin", true},
		{"git clone -u 'rm x' src dst", true},
		{"git push --receive-pack='rm x' origin", true},
		{"git push -u origin main", false},
		{"git add -u", false},
		{"git -C rm status", false},
		{"man -P 'rm x' ls", true}, // man runs its pager with the shell
		{"man --pager='rm x' ls", true},
		// GNU getopt and git take a long flag's abbreviation, and its value
		// in the next word.
		{"man --pager 'rm x' ls", true},
		{"man --pag 'rm x' ls", true},
		{"sed --expr '1e rm x' a.txt", true},
		{"sed -n --expr='1e rm x' a.txt", true},
		{"git rebase --exe 'rm x' main", true},
		{"git fetch --upload 'rm x' origin", true},
		{"git push --recurse-submodules=check origin", false},
		{"man -k rm", false},
		{"sed -n '1e rm -rf build' a.txt", true}, // GNU sed's e runs a command
		{"sed -e 's/a/b/' -e '$e rm x' a.txt", true},
		{"sed --expression='/x/ { e rm x\n}' a.txt", true},
		{"sed 'b end; 2e rm x' a.txt", true},
		{"sed 's/e/E/g; y/abc/xyz/' a.txt", false},
		{"sed -i 'a e rm x' a.txt", false}, // appended text
		{"sed '/rm/d' a.txt", false},
		{`sed "s/$OLD/$NEW/g" a.txt`, false},
		{`sed "1e rm $X" a.txt`, true},
	} {
		if got := Parse(tt.src).MayRun("rm"); got != tt.mayRunRM {
			t.Errorf("%q: MayRun(rm) = %v, want %v", tt.src, got, tt.mayRunRM)
		}
	}
}
