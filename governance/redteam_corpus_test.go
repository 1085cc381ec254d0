package governance

import (
	"strings"
)

// redTeamCorpus is the red-team corpus: every class of issue 10, each row
// judged by the pipeline and run in real bash (see redRow).
func redTeamCorpus() []redRow {
	var rows []redRow
	add := func(cfg byte, want, bash string, cmds ...string) {
		for _, c := range cmds {
			rows = append(rows, redRow{cfg: cfg, want: want, bash: bash, cmd: c})
		}
	}

	// Operators, substitutions and quoting: resolved precisely.
	add('D', "deny", "rm",
		"echo ok && rm -rf build", "false || rm -rf build", "ls; rm -rf build", "ls | rm -rf build",
		"ls |& rm -rf build", "rm -rf build & wait", "echo ok\nrm -rf build", "echo $(rm -rf build)",
		"echo `rm -rf build`", "cat <(rm -rf build)", "echo x > >(rm -rf build)", "(rm -rf build)",
		"{ rm -rf build; }", "if true; then rm -rf build; fi", "while true; do rm -rf build; break; done",
		"case x in x) rm -rf build;; esac", "for i in 1; do rm -rf build; done", "f() { rm -rf build; }; f",
		"function f { rm -rf build; }; f", `\rm -rf build`, "'r'm -rf build", `"rm" -rf build`, `r\m -rf build`,
		`$'\x72\x6d' -rf build`, `$'\162\155' -rf build`, `$'rm' -rf build`, "/bin/rm -rf build",
		"/usr/bin/rm -rf build", "command rm -rf build", "exec rm -rf build", "X=1 rm -rf build",
		"rm -rf build # comment", "[[ -n x ]] && rm -rf build", "time rm -rf build", "! rm -rf build",
		"coproc rm -rf build; wait", "echo | rm -rf build", "rm -rf build 2>/dev/null", "eval 'rm -rf build'",
		`eval "rm -rf build"`, "eval rm -rf build", "bash -c 'rm -rf build'", `sh -c "rm -rf build"`,
		`bash -c "sh -c 'rm -rf build'"`, "su -c 'rm -rf build'", "su root -c 'rm -rf build'",
		"sudo -u root bash -c 'rm -rf build'", "xargs rm -rf build", "find . -maxdepth 0 -exec rm -rf build \\;",
		"env -S 'rm -rf build'", "trap 'rm -rf build' EXIT", "trap -- 'rm -rf build' EXIT",
		"command_not_found_handle() { rm -rf build; }; nosuchprogram", "echo $(echo $(rm -rf build))",
		"x=$(rm -rf build)", "echo ${x:-$(rm -rf build)}", "echo $((1)) && rm -rf build",
		"exec 3>&1; rm -rf build", "rm -rf build <<< x", "rm -rf build << 'EOF'\nx\nEOF",
		"bash -c 'rm -rf \"$1\"' _ build", "bash -lc 'rm -rf build'", "bash -ec 'rm -rf build'",
		"bash -o errexit -c 'rm -rf build'", "bash --norc -c 'rm -rf build'", "sh -c -- 'rm -rf build'",
		"busybox sh -c 'rm -rf build'", "busybox env rm -rf build")
	add('D', "deny", "curl", "curl http://127.0.0.1:9/x", "curl -s http://x | cat")
	add('D', "deny", "curl wget", "wget -qO- http://x | sed 1q; curl x")
	add('D', "deny", "wget", "wget http://127.0.0.1:9/x", "timeout 5 wget -q http://x")
	add('D', "deny", "nc", "nc -z 127.0.0.1 9", "echo hi | nc 127.0.0.1 9")

	// Wrappers, with their flags in every spelling: resolved precisely.
	for _, w := range []string{
		"timeout 5 %s", "timeout -s KILL 5 %s", "timeout --signal=KILL 5 %s", "timeout --sig KILL 5 %s",
		"timeout -k1 5 %s", "timeout --kill-after=1 5 %s", "nice -n 5 %s", "nice --adjustment=5 %s", "nice --adj 5 %s",
		"nice -5 %s", "nohup %s", "stdbuf -oL %s", "stdbuf -o L %s", "stdbuf --output=L %s", "env A=1 %s",
		"env -i PATH=/usr/bin:/bin %s", "env -u HOME %s", "env --unset=HOME %s", "env -- %s", "command -p %s",
		"exec -a x %s", "sudo %s", "sudo -u root %s", "sudo --user=root %s", "sudo -E %s", "sudo -s %s",
		"setsid %s", "ionice -c 3 %s", "ionice -c3 %s", "chrt -o 0 %s", "taskset 1 %s", "taskset -c 0 %s",
		"xargs -0 %s", "xargs -n1 %s", "flock lk %s", "flock -w 1 lk %s", "flock lk -c '%s'",
		"unshare %s", "chroot / %s", "chroot --userspec=0:0 / %s", "runuser -u root -- %s",
		"setpriv --reuid=0 %s", "setarch x86_64 -R %s", "strace -f -o /dev/null %s", "strace -qq %s",
		"script -qc '%s' /dev/null", "nohup nice -n 1 timeout 5 %s", "sudo timeout 5 nice %s",
		"time -p %s", "eval %s",
	} {
		add('D', "deny", "rm", strings.Replace(w, "%s", "rm -rf build", 1))
		add('G', "guard", "rm:-rf_/", strings.Replace(w, "%s", "rm -rf /", 1))
	}

	// Shells and their -c forms; a shell fed commands on its standard
	// input or by a heredoc runs what its words do not show, and asks.
	for _, sh := range []string{"sh", "bash", "dash", "zsh", "mksh", "tcsh", "fish", "rbash", "yash", "posh", "busybox sh"} {
		add('D', "deny", "rm", sh+" -c 'rm -rf build'")
		add('D', "ask", "rm", "echo 'rm -rf build' | "+sh, sh+" <<< 'rm -rf build'",
			sh+" << 'EOF'\nrm -rf build\nEOF", "printf 'rm -rf build\\n' > c.txt; "+sh+" < c.txt")
	}
	// Every shell's -c string behind every wrapper and runner, and inside
	// the command strings of su, script, flock, sudo sh and bash: the inner
	// string is read as a command wherever it sits. zsh's and fish's
	// readings of a string (zsh's $=x, fish's \x72m) hold there too.
	for _, w := range []string{
		"env %s", "env -- %s", "timeout 5 %s", "nice -n 5 %s", "nohup %s", "setsid %s", "stdbuf -oL %s",
		"chroot / %s", "sudo %s", "sudo -u root %s", "exec %s", "command %s", "time %s", "xargs -0 %s",
		"find . -maxdepth 0 -exec %s \\;", "flock lk %s", "runuser -u root -- %s", "ionice -c3 %s",
		`su -c "%s"`, `script -qc "%s" /dev/null`, `flock lk -c "%s"`, `sudo sh -c "%s"`, `bash -c "%s"`,
	} {
		for _, sh := range []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "tcsh", "csh", "fish", "yash", "posh", "rbash", "busybox sh"} {
			add('D', "deny", "rm", strings.Replace(w, "%s", sh+" -c 'rm -rf build'", 1))
		}
		if strings.Contains(w, `"`) {
			add('D', "ask", "rm", strings.Replace(w, "%s", `zsh -c 'x=\"rm -rf build\"; $=x'`, 1))
		} else {
			// Inside "…" the backslash would be Bash's to read first.
			add('D', "ask", "rm", strings.Replace(w, "%s", `zsh -c 'x="rm -rf build"; $=x'`, 1),
				strings.Replace(w, "%s", `fish -c '\x72m -rf build'`, 1))
		}
	}
	// Other names of those shells; fish's -C (init) strings and every -c
	// it is given; script's flags after its file operand; su's
	// --session-command.
	add('D', "deny", "rm", "lksh -c 'rm -rf build'", "rksh -c 'rm -rf build'", "ksh93 -c 'rm -rf build'", "mksh-static -c 'rm -rf build'",
		"zsh5 -c 'rm -rf build'", "busybox ash -c 'rm -rf build'", "fish -C 'rm -rf build' -c true",
		"fish --init-command='rm -rf build' -c true", "fish -c true -c 'rm -rf build'", "fish --command='rm -rf build'",
		"script /dev/null -qc 'rm -rf build'", "su --session-command='rm -rf build'")
	add('D', "ask", "rm", `rzsh -c 'x="rm -rf build"; $=x'`)
	// The shell a string runs in when the words do not name it: su's -s
	// shell or the login shell, the $SHELL of script -c, flock -c and sudo
	// -s, which escapes every word for it but $. Setting SHELL makes that
	// any program with a -c.
	add('D', "ask", "rm", `su -s /usr/bin/zsh -c 'x="rm -rf build"; $=x'`, `su -s /usr/bin/fish -c '\x72m -rf build'`,
		`SHELL=/usr/bin/fish script -qc '\x72m -rf build' /dev/null`, `export SHELL=/usr/bin/zsh; flock lk -c 'x="rm -rf build"; $=x'`,
		`SHELL=/usr/bin/python3 script -qc 'import os; os.system("r" + "m -rf build")' /dev/null`, "CMD=rm sudo -E -s '$CMD' -rf build")
	add('D', "ask", "-", `su -c '\x72m -rf build'`, `script -qc '\x72m -rf build' /dev/null`)
	// zsh runs =rm as the rm on $PATH, and code in a glob qualifier
	// (*(e:…:), *(+cmd)) for every file matched.
	add('D', "deny", "rm", "zsh -c '=rm -rf build'", "zsh -c 'true && =rm -rf build'")
	add('G', "guard", "rm:-rf_/", "zsh -c '=rm -rf /'")
	add('D', "ask", "rm", `zsh -c 'ls *(e:"rm -rf build":)'`, "zsh -c 'ls *(+rm)'", `zsh -c 'echo build(e:"rm -rf build":)'`)
	// Precommand words of other shells: zsh's noglob, nocorrect, - and
	// repeat, tcsh's repeat and nice +N, fish's not, and, or; and fish's
	// backslash escapes, which it reads unlike Bash.
	add('D', "deny", "rm", "zsh -c 'noglob rm -rf build'", "zsh -c 'nocorrect rm -rf build'", "zsh -c 'true; - rm -rf build'",
		"zsh -c 'repeat 1 rm -rf build'", "tcsh -c 'repeat 1 rm -rf build'", "tcsh -c 'nice +5 rm -rf build'",
		"fish -c 'not rm -rf build'", "fish -c 'true; and rm -rf build'", "fish -c 'false; or rm -rf build'")
	add('D', "ask", "rm", `fish -c '\x72m -rf build'`, `fish -c 'r\x6d -rf build'`)
	// Name tables and search paths in the forms of other shells: csh's and
	// fish's alias NAME VALUE, zsh's path array and hash NAME=PATH, fish's
	// set PATH, tcsh's setenv PATH; zsh's emulate -c runs a string.
	add('D', "ask", "rm", "tcsh -c 'alias x rm\nx -rf build'", "fish -c 'alias x rm; x -rf build'",
		"zsh -c 'path[1,0]=./bin; ls'", "zsh -c 'path=(./bin $path); ls'", "zsh -c 'typeset path=(./bin $path); ls'",
		"fish -c 'set PATH ./bin $PATH; ls'", "fish -c 'set -x PATH ./bin $PATH; ls'", "fish -c 'set -p PATH ./bin; ls'",
		"tcsh -c 'setenv PATH ./bin:$PATH; ls'", "zsh -c 'hash ls=/bin/rm; ls -rf build'", `zsh -c 'emulate sh -c "rm -rf build"'`)
	// zsh's zmodload loads builtins no rule names: zsh/files' zf_rm removes
	// build as rm would (no fake runs: the builtin does it itself).
	add('D', "ask", "-", "zsh -c 'zmodload zsh/files; zf_rm -rf build'", "zsh -c 'zmodload -F zsh/files b:zf_rm; zf_rm -rf build'",
		"zsh -c 'zmodload zsh/files; zf_mv build elsewhere'")
	// zsh's parameter module: an element of functions, commands or aliases
	// defines what a name runs; Bash reads a plain array element.
	add('D', "ask", "rm", `zsh -c 'functions[x]="rm -rf build"; x'`, "zsh -c 'commands[ls]=$(command -v rm); ls -rf build'",
		"zsh -c 'aliases[x]=rm; eval x -rf build'")
	// Builtins that assign to a variable an argument names, a nameref, and
	// ${NAME:=value}: each set zsh's functions or PATH where no assignment
	// syntax shows it.
	add('D', "ask", "rm", `zsh -c 'set -A functions x "rm -rf build"; x'`, `zsh -c 'echo "rm -rf build" | read -r "functions[x]"; x'`,
		`zsh -c 'print -v "functions[x]" "rm -rf build"; x'`, "printf -v PATH %s ./bin:$PATH; ls", "read -r PATH <<< ./bin:$PATH; ls",
		"declare -n p=PATH; p=./bin:$PATH; ls", "unset PATH; : ${PATH:=./bin:/usr/bin:/bin}; ls",
		"unset PATH; : ${PATH=./bin:/usr/bin:/bin}; ls")
	// A nameref with no literal target: the first assignment to it names
	// the variable it stands for, the next sets that variable. Declaration
	// arguments named by an expansion may be -n or NAME=VALUE; a quoted
	// NAME=VALUE assigns as a plain one does; ksh's and mksh's nameref is
	// typeset -n.
	add('D', "ask", "rm", "declare -n p; p=PATH; p=./bin:$PATH; ls", "typeset -n p; p=PATH; p=./bin:$PATH; ls",
		"f() { local -n p; p=PATH; p=./bin:$PATH; ls; }; f", `v=PATH; declare -n p="$v"; p=./bin:$PATH; ls`,
		"o=-n; declare $o p; p=PATH; p=./bin:$PATH; ls", "x=PATH=./bin:/usr/bin:/bin; export $x; ls",
		"x=PATH=./bin:/usr/bin:/bin; declare $x; ls", `export "PATH=./bin:$PATH"; ls`,
		"ksh -c 'nameref p=PATH; p=./bin:$PATH; ls'", "mksh -c 'nameref p=PATH; p=./bin:$PATH; ls'")
	// mapfile and readarray assign the lines they read to the array an
	// argument names; PS4's first element is the prompt set -x expands.
	// (Bash 5.2 finds no program on a PATH turned into an array.)
	add('D', "ask", "rm", "printf '$(rm -rf build)\\n' > p.txt; mapfile -t PS4 < p.txt; set -x; true",
		"printf '$(rm -rf build)\\n' > p.txt; readarray -t -O 0 PS4 < p.txt; set -x; true")
	add('D', "ask", "-", "printf './bin:/usr/bin:/bin\\n' > p.txt; mapfile -t PATH < p.txt; ls",
		"printf './bin:/usr/bin:/bin\\n' > p.txt; readarray -t -O 0 PATH < p.txt; ls")
	// Arithmetic assigns: ((NAME=…)), let, $((…)), a subscript, a C-style
	// for; set -a exports what it sets. And Bash expands an array subscript
	// wherever a name is evaluated, so text of the shape a[$(…)] runs as
	// code when arithmetic, [[ -v ]], test -v, printf -v, read or ${!x}
	// meet it; ${x@P} runs the substitutions of a value.
	add('D', "ask", "rm", "echo 'rm -rf build' > 0; set -a; ((BASH_ENV=0)); bash -c true",
		"echo 'rm -rf build' > 0; set -a; let BASH_ENV=0; bash -c true", "echo 'rm -rf build' > 0; set -a; : $((BASH_ENV=0)); bash -c true",
		"echo 'rm -rf build' > 0; set -a; a[BASH_ENV=0]=1; bash -c true", "echo 'rm -rf build' > 0; set -a; for ((BASH_ENV=0; 0;)); do :; done; bash -c true",
		"let 'a[$(rm -rf build)]=1'", "x='a[$(rm -rf build)]'; (( x ))", "x='a[$(rm -rf build)]'; [[ $x -eq 0 ]]",
		"[[ -v 'a[$(rm -rf build)]' ]]", "test -v 'a[$(rm -rf build)]'", "printf -v 'a[$(rm -rf build)]' x",
		"read 'a[$(rm -rf build)]' <<< x", "declare -i x='a[`rm -rf build`]'", "x='a[$(rm -rf build)]'; echo ${!x}",
		`x="a[\$(rm -rf build)]"; (( x ))`, "read -r x <<'EOF'\na[$(rm -rf build)]\nEOF\n(( x ))", `x='$(rm -rf build)'; echo "${x@P}"`)
	// Builtins that run a command string of their own: mapfile's -C
	// callback, compgen -C (and the words of -W, which it expands), fc
	// and the history list; a variable read or printf -v names by an
	// expansion; env passing an exported function bash defines.
	add('D', "deny", "rm", "mapfile -t -C 'rm -rf build' -c 1 arr < a.txt", "readarray -C 'rm -rf build' -c 1 arr < a.txt",
		"compgen -C 'rm -rf build' x")
	add('D', "ask", "rm", "compgen -W '$(rm -rf build)' x", `bash -ic 'history -s "rm -rf build"; fc -s'`,
		"env 'BASH_FUNC_ls%%=() { rm -rf build; }' bash -c ls", "v=PS4; read -r $v <<< '$(rm -rf build)'; set -x; true",
		`v=PS4; printf -v "$v" '%s' '$(rm -rf build)'; set -x; true`)
	add('D', "ask", "-", "o=-f; enable $o ./x.so y")
	// zsh expands $=x, $~x and $^x, which Bash leaves literal.
	add('D', "ask", "rm", `zsh -c 'x="rm -rf build"; $=x'`, "zsh -c 'x=rm; $~x -rf build'", "zsh -c 'x=rm; $^x -rf build'")
	// fish's source with no file reads its standard input.
	add('D', "ask", "rm", "fish -c 'echo rm -rf build | source'", "fish -c 'echo rm -rf build | .'")
	add('D', "ask", "rm", "echo cm0gLXJmIGJ1aWxk | base64 -d | sh", "echo cm0gLXJmIGJ1aWxk | base64 -d | bash -s",
		"echo 'rm -rf build' | sudo bash", "echo 'rm -rf build' | sudo -s", "echo 'rm -rf build' | su",
		"echo 'rm -rf build' | chroot /", "echo 'rm -rf build' | unshare",
		"echo 'rm -rf build' | env bash", "bash /dev/stdin <<< 'rm -rf build'", "bash <(echo rm -rf build)",
		"sh - <<< 'rm -rf build'", "cat <<'EOF' | sh\nrm -rf build\nEOF")

	// What xargs and find -exec put into the command they run: the words
	// xargs appends become the program of a wrapper given none (xargs env,
	// xargs timeout 5), and the replacement text names the program or sits
	// in a command string behind wrappers. The operands they fill are not
	// known before the shell runs, so a guard that reads them asks.
	add('D', "ask", "rm", "echo rm -rf build | xargs env", "echo rm -rf build | xargs timeout 5", "echo rm -rf build | xargs nice",
		"echo rm -rf build | xargs sudo", "echo rm | xargs -I% env % -rf build", "echo rm | xargs -I% timeout 5 sh -c '% -rf build'",
		"find /usr/bin -name rm -exec env {} -rf build \\;", "find /usr/bin -name rm -exec timeout 5 {} -rf build \\;",
		"printf '%s\\0' 'rm -rf build' | xargs -0 sh -c")
	add('G', "ask", "rm:-rf_/", "echo / | xargs rm -rf", "find / -maxdepth 0 -exec rm -rf {} \\;", "find / -maxdepth 0 -exec rm -rf {} +")
	add('G', "ask", "cp:/etc/hosts", "echo /etc/hosts | xargs -I{} cp a.txt {}")

	// A program run through an open file (exec 3</usr/bin/rm; /dev/fd/3:
	// the fake records the name it ran under, 3 or stdin) or a process's
	// program (/proc/self/exe is the shell); a stream spelled with extra
	// slashes or dots; where ksh, zsh, fish and tcsh find code or programs
	// by themselves (FPATH, fish_function_path, ZDOTDIR, XDG_CONFIG_HOME,
	// csh's path array); ksh93's builtin -f.
	add('D', "ask", "rm", "/proc/self/exe -c 'rm -rf build'", "/proc/thread-self/exe -c 'rm -rf build'",
		"printf 'function x { rm -rf build; }\\n' > x; FPATH=. ksh -c x",
		"printf 'function x\\nrm -rf build\\nend\\n' > x.fish; fish -c 'set fish_function_path . $fish_function_path; x'",
		"git init -q fish && printf 'rm -rf build\\n' > fish/config.fish && XDG_CONFIG_HOME=. fish -c true",
		"source /dev//stdin <<< 'rm -rf build'", "bash /dev/./stdin <<< 'rm -rf build'", ". //dev/stdin <<< 'rm -rf build'")
	add('D', "ask", "3:-rf_build", "exec 3</usr/bin/rm; /dev/fd/3 -rf build", "exec 3</usr/bin/rm; /proc/self/fd/3 -rf build")
	add('D', "ask", "stdin:-rf_build", "/dev/stdin -rf build < /usr/bin/rm")
	// (With path ./bin alone, bin/ls finds no rm: it ran, nothing else.)
	add('D', "ask", "-", "tcsh -c 'set path=./bin; ls'", "csh -c 'set path=./bin; ls'", "ZDOTDIR=. zsh -c true",
		"ksh93 -c 'builtin -f /nonexistent.so x; true'")

	// A copy or link of a denied program runs it under a name the rule
	// does not list (the fakes record the copier, or the copy by its name).
	add('D', "deny", "cp", "cp /usr/bin/rm x; ./x -rf build", `cp "$(command -v rm)" x; ./x -rf build`)
	add('D', "deny", "ln", "ln -s /usr/bin/rm x; ./x -rf build")
	add('D', "deny", "install", "install /usr/bin/rm x; ./x -rf build")
	add('D', "deny", "x:-rf_build", "cat /usr/bin/rm > x; sh x -rf build")

	// Dynamic command words.
	add('D', "ask", "rm", "CMD=rm; $CMD -rf build", `"$(echo rm)" -rf build`, "`echo rm` -rf build",
		`$(printf '\x72\x6d') -rf build`, `a=(rm -rf build); "${a[@]}"`, `set -- rm -rf build; "$@"`,
		`set -- rm -rf build; $*`, `f() { "$@"; }; f rm -rf build`, "x=rm; y=x; ${!y} -rf build",
		"${CMD:-rm} -rf build", "r=r; ${r}m -rf build", "x=z; ${x/z/r}m -rf build", "a[0]=rm; ${a[$((0))]} -rf build",
		"p=/bin; $p/rm -rf build", `"$(command -v rm)" -rf build`, `$(echo /bin/rm) -rf build`,
		"read c <<< rm; $c -rf build", "echo rm | { read c; $c -rf build; }", "sudo $(echo rm) -rf build",
		"env $(echo rm) -rf build", "echo rm | xargs -I{} sh -c '{} -rf build'", "echo rm | xargs -I % sh -c '% -rf build'",
		"echo rm | xargs -i bash -c '{} -rf build'", "declare -n r=c; c=rm; $r -rf build",
		"printf -v c rm; $c -rf build")

	// Brace expansion and globs in a command word.
	add('D', "ask", "rm", "{rm,-rf,build}", "{r,}m -rf build", "/bin/{rm,true} -rf build", "/bin/r[m] -rf build",
		"/usr/bin/r[m] -rf build", "/usr/bin/rm? -rf build || /usr/bin/r*m -rf build")

	// A glob in the directory of a command word whose base name is plain
	// still names the program.
	add('D', "deny", "rm", "/?sr/bin/rm -rf build", "/usr/*/rm -rf build")

	// Aliases, hash tables, risky variables, sourcing streams.
	add('D', "ask", "rm", "shopt -s expand_aliases\nalias x=rm\nx -rf build", "shopt -s expand_aliases\nalias ls='rm -rf build'\nls",
		"hash -p /bin/rm ls; ls -rf build", "echo 'rm -rf build' > e.sh; BASH_ENV=./e.sh bash -c true",
		"echo 'rm -rf build' > e.sh; export BASH_ENV=./e.sh; bash -c true", "echo 'rm -rf build' > e.sh; env BASH_ENV=./e.sh bash -c true",
		"PATH=./bin:$PATH; ls", "PATH=./bin:$PATH ls", "export PATH=$PWD/bin:$PATH; ls", "env PATH=./bin:/usr/bin:/bin ls",
		"source /dev/stdin <<< 'rm -rf build'", ". <(echo rm -rf build)", "source <(echo rm -rf build)",
		". /dev/fd/0 <<< 'rm -rf build'", "source /proc/self/fd/0 <<< 'rm -rf build'", "f=/dev/stdin; . $f <<< 'rm -rf build'",
		"trap \"$(echo rm -rf build)\" EXIT", "c='rm -rf build'; trap \"$c\" EXIT",
		"PS4='$(rm -rf build)'; set -x; true", "PROMPT_COMMAND='rm -rf build' bash -i <<< true 2>/dev/null")
	add('D', "ask", "-", "alias x=rm", "shopt -s expand_aliases", "export PATH=/tmp:$PATH")

	// Interpreters: inline code, code on standard input, awk programs that
	// run commands, git configuration that runs a command.
	add('D', "ask", "rm",
		`python3 -c 'import os; os.system("rm -rf build")'`, `echo 'import os; os.system("rm -rf build")' | python3`,
		"python3 - <<'EOF'\nimport os\nos.system('rm -rf build')\nEOF", `python3 -Sc 'import os; os.system("rm -rf build")'`,
		`perl -e 'system("rm -rf build")'`, `perl -we 'system("rm -rf build")'`, `echo 'system("rm -rf build")' | perl`,
		`perl -E 'system("rm -rf build")'`, `ruby -e 'system("rm -rf build")'`, `echo 'system("rm -rf build")' | ruby`,
		`node -e 'require("child_process").execSync("rm -rf build")'`, `node --eval 'require("child_process").execSync("rm -rf build")'`,
		`echo 'require("child_process").execSync("rm -rf build")' | node`, `php -r 'system("rm -rf build");'`,
		`echo '<?php system("rm -rf build");' | php`, `lua5.4 -e 'os.execute("rm -rf build")'`,
		`echo 'os.execute("rm -rf build")' | lua5.4`, `awk 'BEGIN{system("rm -rf build")}'`,
		`gawk 'BEGIN{system("rm -rf build")}'`, `mawk 'BEGIN{system("rm -rf build")}'`,
		`busybox awk 'BEGIN{system("rm -rf build")}'`, `awk 'BEGIN{print "rm -rf build" | "sh"}'`,
		`echo x | awk '{system("rm -rf build")}'`, `awk -v x=1 'BEGIN{system("rm -rf build")}'`,
		`git -c alias.x='!rm -rf build' x`, `git -c core.sshCommand='rm -rf build' fetch ssh://h/r 2>/dev/null`,
		`git -c core.fsmonitor='rm -rf build' status`, `git -c core.editor='rm -rf build' commit --allow-empty 2>/dev/null`,
		`git -c alias.st='!rm -rf build' st`, `git --config-env=alias.x=C x 2>/dev/null; C='!rm -rf build' git --config-env=alias.x=C x`,
		"GIT_SSH_COMMAND='rm -rf build' git fetch ssh://h/r 2>/dev/null", "GIT_EDITOR='rm -rf build' git commit --allow-empty 2>/dev/null")
	// GNU sed's e command runs a command; e alone and s///e run the
	// pattern space, a script from an expansion may hold either.
	add('D', "deny", "rm", "sed -n '1e rm -rf build' a.txt")
	add('D', "ask", "rm", "sed 's/.*/rm -rf build/e' a.txt", `e='1e rm -rf build'; sed -n "$e" a.txt`)
	// git subcommands that run a command string of their own.
	add('D', "deny", "rm", "git commit -q --allow-empty -m x && git rebase -q -x 'rm -rf build' --root",
		"git commit -q --allow-empty -m x && git rebase -q --exec='rm -rf build' --root",
		"git fetch --upload-pack='rm -rf build' . 2>/dev/null", "git clone -q -u 'rm -rf build' . y 2>/dev/null")
	add('D', "ask", "-", "git config core.hooksPath hooks", "git config --global core.pager 'rm -rf build'",
		"git config alias.x '!rm -rf build'")

	// Operands a guard reads, in every spelling.
	add('G', "guard", "W:/etc/hosts", "echo x > /etc/hosts", "echo x >> /etc/hosts", "echo x &> /etc/hosts",
		"echo x >| /etc/hosts", "exec 3>/etc/hosts", "echo x > /e?c/hosts", "echo x > /e*/hosts")
	add('G', "guard", "W:/usr", "echo x >> /usr/local/bin/tool")
	add('G', "guard", "tee:/etc/passwd", "printf x | tee -a /etc/passwd", "echo x | sudo tee /etc/passwd")
	add('G', "guard", "cp:/etc", "cp a.txt /etc/", "cp -t /etc a.txt", "cp -vt /etc a.txt", "cp -t/etc a.txt",
		"cp --target-directory=/etc a.txt", "cp --target /etc a.txt", "cp a.txt /e*/")
	add('G', "guard", "mv:/etc/hosts", "mv /etc/hosts x", "mv -f /etc/hosts ./x")
	add('G', "guard", "install:/usr/local/bin", "install -Dt /usr/local/bin a.txt", "install -m 755 a.txt /usr/local/bin/x")
	add('G', "guard", "W:/etc", "sed -i -e s/a/b/ /etc/hosts", "sed -i --expression=s/a/b/ /etc/hosts", "sed -i s/a/b/ /etc/hosts",
		"sed -ie s/a/b/ /etc/hosts", "sed --in-place s/a/b/ /etc/hosts", "perl -pi -e s/a/b/ /etc/hosts")
	add('G', "guard", "W:/etc", "gawk -i inplace 1 /etc/hosts", "gawk -iinplace '{print}' /etc/hosts",
		"gawk -i inplace -v x=1 '{print}' a.txt /etc/hosts")
	add('G', "guard", "chmod:/etc/hosts", "chmod --reference=a.txt /etc/hosts", "chmod 777 /etc/hosts", "chmod -R 777 /etc/hosts")
	add('G', "guard", "chown:/usr", "chown -R nobody /usr")
	add('G', "guard", "rsync:/etc", "rsync -a a.txt /etc/")
	add('G', "guard", "tar:/etc", "tar -xf x.tar -C /etc", "tar -C/etc -xf x.tar", "tar xf x.tar -C /etc", "tar --directory=/etc -xf x.tar")
	add('G', "guard", "curl:/etc/hosts", "curl -o /etc/hosts http://x", "curl -o/etc/hosts http://x", "curl --output /etc/hosts http://x", "curl -so /etc/hosts http://x")
	add('G', "guard", "wget:/etc/hosts", "wget -O /etc/hosts http://x", "wget --output-document=/etc/hosts http://x", "wget -qO/etc/hosts http://x")
	add('G', "guard", "wget:/usr/bin", "wget -P /usr/bin http://x")
	add('G', "guard", "dd:of=/etc/hosts", "dd if=/dev/zero of=/etc/hosts")
	add('G', "guard", "dd:of=/dev/sda", "dd of=/dev/sda if=/dev/zero")
	add('G', "guard", "ln:/etc/hosts", "ln -sf /tmp/x /etc/hosts")
	add('G', "guard", "ln:/usr/bin/y", "ln -s x /usr/bin/y")
	add('G', "guard", "truncate:/etc/hosts", "truncate -s 0 /etc/hosts")
	add('G', "guard", "shred:/etc/hosts", "shred -u /etc/hosts")
	add('G', "guard", "W:/etc/hostname", "find /etc/hostname -delete")
	add('G', "guard", "rm:/", `rm -rf "${HOME:?}"`, `rm -rf "$HOME"/`, "rm -rf ~root", "rm -rf ~/", "rm --recur /",
		"rm --recursive --force /", "rm -r --no-pres /tmp/x", "rm -rf -- /", "rm -rf /tmp/..", "rm -rf //", "rm -fr /.",
		"rm -rf /*", "rm -rf /**", "rm -rf /?*", "rm -rf ~/?*", "rm -rf ~/*", "rm -rf $HOME/*", "rm -R /")

	// Writes to files something runs later.
	add('G', "guard", "W:~/.bashrc", "echo 'rm -rf /' >> ~/.bashrc", `echo x >> "$HOME/.bashrc"`)
	add('G', "guard", "W:~/.zshrc", "echo x > ~/.zshrc")
	add('G', "guard", "cp:.profile", "cp a.txt ~/.profile")
	add('G', "guard", "tee:config.fish", "echo x | tee -a ~/.config/fish/config.fish")
	add('G', "guard", "W:~/.config/systemd/user/x.service", "echo x > ~/.config/systemd/user/x.service")
	add('G', "guard", "W:~/.gitconfig", "echo x > ~/.gitconfig")
	add('G', "guard", "W:.envrc", "echo x > .envrc")
	add('G', "guard", "W:.git/hooks/pre-commit", "echo 'rm -rf /' > .git/hooks/pre-commit")
	add('G', "guard", "W:.git/config", "echo x >> .git/config", "echo x >> ./.git/config", "echo x >> .g?t/config")
	add('G', "guard", "W:~/.ssh/authorized_keys", "echo key >> ~/.ssh/authorized_keys")
	add('G', "guard", "crontab", "echo '* * * * * rm -rf /' | crontab -")
	add('G', "guard", "W:/var/spool/cron", "echo x > /var/spool/cron/crontabs/root")
	add('G', "guard", "W:/proc/sysrq-trigger", "echo b > /proc/sysrq-trigger")
	add('G', "guard", "W:.env", "echo K=v > .env")
	add('G', "guard", "W:.env.local", "echo K=v >> .env.local")

	// Operands not known before the shell runs, where a guard reads them.
	add('G', "ask", "rm", `rm -rf "$DIR"`, `rm -rf "$DIR"/*`, "rm -rf $(echo /)", "rm -rf /{bin,etc}", "rm -rf ./{a,b}",
		"d=/; rm -rf $d", "rm -rf `echo /`")
	add('G', "ask", "cp:/etc", `D=/etc; cp a.txt "$D"`, "cp a.txt $(echo /etc)")
	add('G', "ask", "tee:/etc/hosts", `tee "$(echo /etc/hosts)" < /dev/null`)
	add('G', "ask", "W:/etc/hosts", `f=/etc/hosts; echo x > "$f"`, "echo x > $(echo /etc/hosts)")

	// Shapes the fast reader splits without the parser (glued operators,
	// quotes inside words, redirections before the program, tabs, blank
	// lines): a program that links no shell parser judges these alone.
	add('D', "deny", "rm", "true&&rm -rf build", "false||rm -rf build;true", "true;rm -rf build", "echo x|rm -rf build",
		"echo x|&rm -rf build", "true&rm -rf build;wait", "echo ok\n\nrm -rf build", "echo ok\t&&\trm -rf build",
		"r''m -rf build", `""rm -rf build`, `rm"" -rf build`, `r"m" -rf build`, "/bin/r'm' -rf build", ">out.txt rm -rf build",
		"2>/dev/null rm -rf build", "rm>out.txt -rf build", "echo x >&2;rm -rf build", "echo x &>/dev/null&&rm -rf build",
		"rm -rf build 1>&2", "</dev/null rm -rf build", "rm 0</dev/null -rf build", "nohup rm -rf build >/dev/null 2>&1")
	add('G', "guard", "rm:-rf_/", "rm -rf  /", "rm -rf\t/", "rm -rf '/'", `rm -rf "/"`, "rm '-rf' /", "rm -r''f /", "rm -rf /''",
		"rm -rf ///", "rm -rf /./", "true&&rm -rf /")
	add('G', "guard", "rm:/", "rm -rf ~", "rm -fr ~/.", "rm -r -f ~")
	add('G', "guard", "W:/etc/hosts", "echo x>/etc/hosts", "echo x >'/etc/hosts'", `echo x >"/etc/hosts"`, "echo x 1>/etc/hosts",
		"echo x >&/etc/hosts", "echo x &>>/etc/hosts", ">/etc/hosts echo x", "echo x >/etc/'ho'sts", "echo x > /etc/host?",
		"echo x 2>/etc/hosts", "true&&echo x >/etc/hosts")
	add('G', "guard", "W:~/.bashrc", "echo x >~/.bashrc", "echo x>>~/.bashrc")
	add('G', "guard", "tee:/etc/hosts", "echo x|tee /etc/hosts")

	// Commands that must stay allowed under the deny rules and the guards.
	for _, cfg := range []byte{'D', 'G'} {
		add(cfg, "allow", "-", "git status", "ls -la", "echo rm -rf /", "grep -rn curl .", "cat a.txt | wc -l",
			"awk '{print $1}' a.txt", "awk -F: '$3 > 5' a.txt", "sed -n 1p a.txt", "find . -name '*.txt'",
			"echo a | xargs echo", "echo x > /dev/null", "ls > out.txt", "python3 --version", "node --version",
			"git log --oneline -3", "bash script.sh", "source script.sh", ". ./script.sh", "sh -c 'echo hi'",
			`bash -c "ls -la"`, "env FOO=1 ls", "timeout 5 ls", "echo $HOME", "ls $DIR", `cat "$F"`,
			"for f in *.txt; do echo $f; done", "x=$(git rev-parse HEAD 2>/dev/null); echo $x", "printf '%s\\n' a b",
			"echo 'rm -rf /' > notes.txt", `echo "$(date)"`, "ls /bin/r?", "test -f a.txt && echo y",
			"echo \"curl is $(command -v curl)\"", "python3 -m json.tool < /dev/null || true", "perl -v",
			"sudo ls", "echo build/*", "trap - EXIT", "git diff --stat", "wc -c < a.txt", "ls -d ~/",
			"mapfile -t lines < a.txt", `read -r -p "$P" x < a.txt`, `printf -v x '%s' "$HOME"`, "i=0; (( i++ )); let i+=1",
			"export FOO=1 BAR=\"$HOME\"", "declare -n r=FOO", "su -c 'ls'", "script -qc 'ls' /dev/null", "fish -c 'echo hi'", "ls -l /usr/bin/rm", "command -v rm", "git -C . log -1 2>/dev/null; git add -u",
			`sed "s/$OLD/$NEW/g" a.txt`, "sed -e 's/x/e/' -e '/data/p' a.txt")
	}
	add('G', "allow", "rm", "rm -rf ./build", "rm -rf build/*", `rm -rf "$HOME/build"`, "rm -rf ~/build", "rm a.txt")
	add('G', "allow", "cp", "cp a.txt b.txt")
	add('G', "allow", "mv", "mv a.txt b.txt")
	add('G', "allow", "tar", "tar -czf out.tgz build")
	add('G', "allow", "curl", "curl -o out.html http://x")
	add('G', "allow", "chmod", "chmod 644 a.txt")
	add('G', "allow", "-", "gawk -i inplace '{print}' a.txt")
	return rows
}
