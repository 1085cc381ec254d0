package shellmatch

import (
	"strings"
	"sync"
)

// runsOperands are programs with a subcommand that runs the command its
// operands name, in an environment, a container or a pod the program sets
// up (uv run rm, bundle exec rm, docker run IMAGE rm, kubectl exec POD --
// rm). Their flags differ by program and version, so the command is not
// read out of their words: any of those subcommands among the operands
// leaves the command line unresolved, which asks more, never less.
var runsOperands = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"uv": {"run"}, "poetry": {"run"}, "pipx": {"run"}, "pdm": {"run"}, "hatch": {"run"},
		"conda": {"run"}, "mamba": {"run"}, "micromamba": {"run"}, "pixi": {"run", "exec"}, "devbox": {"run"},
		"bundle": {"exec"}, "bundler": {"exec"}, "npm": {"exec", "x"}, "pnpm": {"exec", "dlx"}, "yarn": {"exec", "dlx"},
		"bun": {"x"}, "direnv": {"exec"}, "mise": {"exec", "x"}, "rtx": {"exec", "x"}, "asdf": {"exec"},
		"rbenv": {"exec"}, "pyenv": {"exec"}, "nodenv": {"exec"}, "goenv": {"exec"},
		"nix": {"run", "shell", "develop"}, "toolbox": {"run"}, "distrobox": {"enter"},
		"docker": {"run", "exec", "create"}, "podman": {"run", "exec", "create"}, "nerdctl": {"run", "exec", "create"},
		"kubectl": {"exec", "run", "debug"},
		// pipenv and rye run a script of the project's file (a command
		// string) or the command their operands name; corepack runs the
		// package manager it names, whose runners are above; apptainer
		// and singularity run a command in a container image.
		"pipenv": {"run"}, "rye": {"run"}, "corepack": {"npm", "npx", "pnpm", "pnpx", "yarn"},
		"apptainer": {"exec", "run", "shell"}, "singularity": {"exec", "run", "shell"},
		// machinectl shell runs a command in a machine, the host (.host)
		// included, as the user it names; devcontainer exec in the
		// workspace's container.
		"machinectl": {"shell"}, "devcontainer": {"exec"},
	}
})

// directRunner returns the subcommand of a direct runner, or "": a runner
// whose subcommand execs the program named by the word right after it,
// with the words after that as its arguments and no shell between: uv
// run, poetry run, bundle exec (Ruby's exec, which starts a shell only for
// a single word with a shell's metacharacters, which runnerCommand does
// not read). Their everyday form, uv run pytest, is read as pytest under
// the runner, so a deny rule of either program matches it and an allow
// list must admit both (see [Script.OnlyRuns]); any other form is left to
// checkRunner, unresolved. The other runners of runsOperands are not
// read: their first operand names a package whose program may have
// another name (npx, pipx run), a task of a file in the workspace (pdm,
// hatch, pixi, devbox run), a shell string (yarn exec) or a container's
// command (docker run). A switch, not a map: every command word of every
// line passes through it.
func directRunner(name string) string {
	switch name {
	case "uv", "poetry":
		return "run"
	case "bundle", "bundler":
		return "exec"
	}
	return ""
}

// runnerCommand returns the words of the command a direct runner runs when
// its subcommand is its first word and a plain program name or path
// follows at once: a flag of the runner's in between may take a value,
// which the matcher would then read as the program.
func runnerCommand(name string, args []word) ([]word, bool) {
	sub := directRunner(name)
	if sub == "" || len(args) < 2 || !args[0].known() || args[0].text != sub || !args[1].lit || !plainProgram(args[1].text) {
		return nil, false
	}
	return args[1:], true
}

// plainProgram reports whether t is a program name or path of letters,
// digits and . _ + - /, not a flag: nothing a runner could read as an
// option, an assignment or a shell command.
func plainProgram(t string) bool {
	if t == "" || t[0] == '-' {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._+-/", c) >= 0) {
			return false
		}
	}
	return true
}

// checkRunner notes a program that runs a command its operands or one of
// its flags name, in a grammar of its own: the subcommands of
// runsOperands, ip netns exec and ip -batch, fd -x, netcat's -e and -c,
// nix-shell --run.
func (s *Script) checkRunner(name string, args []word) {
	if subs, ok := runsOperands()[name]; ok {
		for _, a := range args {
			for _, sub := range subs {
				if a.text == sub {
					s.unresolved(name + " " + sub + ", which runs the command its operands name")
					return
				}
			}
		}
		return
	}
	switch name {
	case "ip":
		s.checkIP(args)
	case "fd", "fdfind":
		for _, a := range args {
			t := a.text
			_, _, exec := longFlag(t, "exec")
			_, _, batch := longFlag(t, "exec-batch")
			if exec || batch || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t, "xX") {
				s.unresolved(name + " " + t + ", which runs a command for what it finds")
				return
			}
		}
	case "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd":
		for _, a := range args {
			t := a.text
			for _, f := range [...]string{"exec", "sh-exec", "lua-exec"} {
				if _, _, ok := longFlag(t, f); ok && len(t) > 3 {
					s.unresolved(name + " --" + f + ", which runs a command on the connection")
					return
				}
			}
			if len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t, "ec") {
				s.unresolved(name + " " + t + ", which runs a command on the connection")
				return
			}
		}
	case "nix-shell":
		for _, a := range args {
			_, _, run := longFlag(a.text, "run")
			_, _, command := longFlag(a.text, "command")
			if run || command {
				s.unresolved("nix-shell " + a.text + ", which runs a command string in the shell it builds")
				return
			}
		}
	}
}

// checkIP notes ip netns exec and ip vrf exec, which run the command after
// the name, and ip -batch, which runs the ip commands of a file. ip reads
// an object or a command abbreviated to any prefix (ip net exec is ip
// netns exec), and its options with one dash or two.
func (s *Script) checkIP(args []word) {
	object, exec := false, false
	for _, a := range args {
		t := a.text
		if strings.HasPrefix(t, "-") {
			// -b and every longer prefix of -batch (-br is -brief).
			if opt := strings.TrimPrefix(t[1:], "-"); opt != "" && strings.HasPrefix("batch", opt) {
				s.unresolved("ip " + t + ", which runs the ip commands of a file")
				return
			}
			continue
		}
		switch {
		case len(t) >= 3 && strings.HasPrefix("netns", t), t != "" && strings.HasPrefix("vrf", t):
			object = true
		case object && t != "" && strings.HasPrefix("exec", t):
			exec = true
		}
	}
	if object && exec {
		s.unresolved("ip netns exec or vrf exec, which runs the command after the name")
	}
}
