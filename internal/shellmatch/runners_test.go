package shellmatch

import (
	"slices"
	"testing"
)

// TestParse_ProgramsThatRunTheirOperandsAreNotMissed pins programs that
// run a command their operands or flags name: each ran rm past a deny
// list of rm, the matcher seeing the runner alone. Each must now either
// show rm or be unresolved (asked, or refused by a deny list).
func TestParse_ProgramsThatRunTheirOperandsAreNotMissed(t *testing.T) {
	for _, src := range []string{
		"ssh-agent rm -rf x",
		"ssh-agent -t 60 rm -rf x",
		"perf stat rm -rf x",
		"perf record -o p.data rm -rf x",
		"lldb -b -o run -- rm -rf x",
		"hyperfine 'rm -rf x'",
		"ip netns exec ns rm -rf x",
		"ip net exec ns rm -rf x",
		"ip -all netns exec rm -rf x",
		"ip vrf exec red rm -rf x",
		"ip -b cmds",
		"ip -force -batch -",
		"fd -x rm",
		"fd . -X rm -rf",
		"fd --exec rm",
		"fdfind --exec-batch rm",
		"nc -e /bin/rm host 1",
		"nc -lvc 'rm -rf x' -p 1",
		"ncat --sh-exec 'rm -rf x' host 1",
		"ncat --exec=/bin/rm host 1",
		"ncat --lua-exec x.lua host 1",
		"SUDO_EDITOR=rm sudoedit x",
		"npx rm -rf x",
		"bunx rm",
		"uvx rm",
		"uv run rm -rf x",
		"uv tool run rm",
		"poetry run rm -rf x",
		"pipx run rm",
		"pdm run rm",
		"hatch run rm",
		"conda run rm -rf x",
		"pixi run rm",
		"devbox run rm",
		"bundle exec rm -rf x",
		"npm exec rm",
		"npm x rm",
		"pnpm exec rm",
		"pnpm dlx rm",
		"yarn exec rm",
		"yarn dlx rm",
		"direnv exec . rm -rf x",
		"mise exec -- rm -rf x",
		"mise x -- rm",
		"asdf exec rm",
		"rbenv exec rm",
		"pyenv exec rm",
		"nix-shell -p x --run 'rm -rf x'",
		"nix shell nixpkgs#x -c rm -rf x",
		"nix develop -c rm -rf x",
		"nix run nixpkgs#x",
		"toolbox run rm -rf x",
		"distrobox enter box -- rm -rf x",
		"flatpak-spawn --host rm -rf x",
		// GLib takes an option's value as the next word too.
		"flatpak-spawn --directory /tmp rm -rf x",
		"flatpak-spawn --host --env FOO=1 rm -rf x",
		"flatpak-spawn --forward-fd 3 --sandbox-expose-path /x rm -rf x",
		"docker run -v /:/h img rm -rf /h",
		"docker exec c rm -rf /",
		"podman run img rm -rf x",
		"kubectl exec pod -- rm -rf /",
		"eatmydata rm -rf x",
		"setuidgid u rm -rf x",
		"envdir d rm -rf x",
		"gdb --args rm -rf x",
		"run0 rm -rf x",
		"coreutils --coreutils-prog=rm -rf x",
		"cpulimit -l 5 rm -rf x",
		"trickle -d 1 rm -rf x",
		"srun rm -rf x",
		"mpirun rm -rf x",
		"pipenv run rm -rf x",
		"rye run rm -rf x",
		"corepack pnpm exec rm -rf x",
		"apptainer exec img rm -rf x",
		"machinectl shell .host /bin/rm -rf x",
		"devcontainer exec rm -rf x",
		"lxc-attach -n c -- rm -rf x",
		"sbatch --wrap 'rm -rf x'",
	} {
		s := Parse(src)
		if !s.MayRun("rm") && s.Unresolved == "" {
			t.Errorf("%q: the matcher sees %q and nothing unresolved", src, programs(s))
		}
	}
	// Their other uses still resolve.
	for _, src := range []string{"ssh-agent -k", "ip addr show", "ip -br link", "fd -e go", "nc -zv host 22", "npm install", "uv pip install x", "docker ps", "git status"} {
		if s := Parse(src); s.Unresolved != "" || s.MayRun("rm") {
			t.Errorf("%q: unresolved %q", src, s.Unresolved)
		}
	}
}

// TestParse_ADirectRunnerShowsTheProgramItRuns pins the everyday forms of
// uv run, poetry run and bundle exec, which were unresolved (asked about
// under the default guards, refused without an approver) once runners
// were: the program right after the subcommand is read under the runner,
// so a deny rule of either matches and an allow list must admit both.
// Every other form of a runner stays unresolved.
func TestParse_ADirectRunnerShowsTheProgramItRuns(t *testing.T) {
	for _, tc := range []struct {
		src, program, runner string
	}{
		{"uv run pytest -q tests", "pytest", "uv"},
		{"uv run python -m pytest", "python", "uv"},
		{"uv run ./scripts/check.py --fix", "check.py", "uv"},
		{"poetry run pytest", "pytest", "poetry"},
		{"bundle exec rspec spec/x_spec.rb", "rspec", "bundle"},
		{"bundler exec rake test", "rake", "bundler"},
		{"uv run rm -rf x", "rm", "uv"},
		{"uv run uv run rm", "rm", "uv"},
		{"uv run sudo rm", "rm", "uv"},
	} {
		s := Parse(tc.src)
		if s.Unresolved != "" || !s.MayRun(tc.program) || !s.MayRun(tc.runner) {
			t.Errorf("%q: programs %q, unresolved %q; want %s under %s", tc.src, programs(s), s.Unresolved, tc.program, tc.runner)
			continue
		}
		only := func(allowed ...string) bool {
			return s.OnlyRuns(func(p string) bool { return slices.Contains(allowed, p) || p == "sudo" })
		}
		if only(tc.program) || !only(tc.program, tc.runner) {
			t.Errorf("%q: an allow list of %s alone admits it, or one of %s and %s does not", tc.src, tc.program, tc.program, tc.runner)
		}
	}
	for _, src := range []string{
		"uv run --with x rm -rf y",
		"uv run -- rm",
		"uv --directory d run rm",
		"uv run $CMD",
		"uv run FOO=1 rm",
		"uv run 'rm -rf x; ls'",
		"bundle exec 'rm -rf x;ls'",
		"poetry run -C d rm",
		"npx rm -rf x",
		"pdm run rm",
		"yarn exec rm",
		"docker run img rm",
	} {
		if s := Parse(src); s.Unresolved == "" {
			t.Errorf("%q: resolved to %q", src, programs(s))
		}
	}
}
