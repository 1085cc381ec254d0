package governance

import (
	"context"
	"fmt"
	"github.com/paigasus/helikon"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// redRow is one red-team command: the configuration it is judged under,
// the verdict the permission pipeline must give, and what the command does
// in real bash, which the sandbox checks.
type redRow struct {
	// cfg: 'D' deny rules DenyBash(rm, curl, wget, nc) and the default
	// guards; 'G' the default guards alone.
	cfg byte
	// want: "deny" (a deny rule matched), "guard" (a guard asked), "ask"
	// (the matcher could not resolve something and asked), "allow".
	want string
	// bash lists what the command does in bash, blank-separated: "rm" (the
	// fake rm ran), "cp:/etc" (fake cp ran with an argument holding /etc),
	// "W:/etc/hosts" (it wrote or tried to write under /etc/hosts), "-"
	// (no fake ran). The fakes named must be exactly the fakes that ran.
	bash string
	cmd  string
}

// rowApprover refuses every request and remembers the prompt, so a test
// can tell a guard's ask from the matcher's.
type rowApprover struct{ prompt string }

func (a *rowApprover) Decide(_ context.Context, _ helikon.PermissionRequest, prompt string) helikon.ApprovalOutcome {
	a.prompt = prompt
	return helikon.ApprovalOutcome{Reason: "refused by the red-team approver"}
}

// judge runs cmd through the permission pipeline under cfg and names the
// outcome, with the reason or prompt behind it.
func judge(cfg byte, cmd string) (outcome, why string) {
	h := &rowApprover{}
	opts := []helikon.ContextOption{helikon.WithApprovalHandler(h)}
	if cfg == 'D' {
		opts = append(opts, WithDenyRules(DenyBash("rm"), DenyBash("curl"), DenyBash("wget"), DenyBash("nc")))
	}
	a := authorize(helikon.NewRunContext(opts...), context.Background(), bash(cmd))
	switch {
	case a.allowed:
		return "allow", ""
	case strings.HasPrefix(a.reason, "deny rule "):
		return "deny", a.reason
	case strings.HasPrefix(h.prompt, "guard "):
		return "guard", h.prompt
	case strings.HasPrefix(h.prompt, "the shell matcher cannot resolve "):
		return "ask", h.prompt
	}
	return "other", a.reason
}

func TestRedTeam_EveryRowGetsItsVerdict(t *testing.T) {
	counts := map[string]int{}
	for _, r := range redTeamCorpus() {
		got, why := judge(r.cfg, r.cmd)
		counts[got]++
		if got != r.want {
			t.Errorf("[%c] %q: %s (%s), want %s", r.cfg, r.cmd, got, why, r.want)
		}
	}
	t.Logf("corpus: %d rows; deny rule %d, guard %d, fail-closed ask %d, allow %d",
		len(redTeamCorpus()), counts["deny"], counts["guard"], counts["ask"], counts["allow"])
}

// optionalPrograms are programs some rows need that a machine may lack;
// such a row's bash meaning is checked only where the program is installed.
var optionalPrograms = []string{"zsh", "ksh", "mksh", "tcsh", "csh", "fish", "yash", "posh", "busybox", "ruby", "php",
	"lua5.4", "node", "perl", "python3", "sudo", "gawk", "mawk", "git", "su", "runuser", "strace", "setarch", "nsenter",
	"unshare", "chroot", "flock", "setpriv", "script", "sg", "rbash", "dash", "chrt", "ionice", "taskset", "watch",
	"lksh", "rksh", "ksh93", "mksh-static", "zsh5", "rzsh"}

func missingProgram(cmd string) string {
	for _, p := range optionalPrograms {
		if !containsWord(cmd, p) {
			continue
		}
		if _, err := exec.LookPath(p); err != nil {
			return p
		}
	}
	return ""
}

func containsWord(s, w string) bool {
	for i := strings.Index(s, w); i >= 0; {
		end := i + len(w)
		before := i == 0 || strings.IndexByte(" |;&(`'\"=\n/", s[i-1]) >= 0
		after := end == len(s) || strings.IndexByte(" |;&)`'\"\n", s[end]) >= 0
		if before && after {
			return true
		}
		j := strings.Index(s[end:], w)
		if j < 0 {
			break
		}
		i = end + j
	}
	return false
}

func TestRedTeam_BashMeaningOfEveryRow(t *testing.T) {
	// It checks the corpus itself (each row's meaning in real bash, in a
	// sandbox), not the matcher the other red-team tests hold to it, and
	// took 12–57 s of the README's test command on the loaded 2-core
	// machine: CI runs it, a plain go test ./... does not.
	if os.Getenv("HELIKON_SLOW_TESTS") != "1" && os.Getenv("CI") != "true" {
		t.Skip("verifies every corpus row in real bash (12–57 s): set HELIKON_SLOW_TESTS=1 (CI=true and .ci/run do)")
	}
	rows := redTeamCorpus()
	var cmds []string
	var idx []int
	skipped := map[string]int{}
	for i, r := range rows {
		if p := missingProgram(r.cmd); p != "" {
			skipped[p]++
			continue
		}
		cmds = append(cmds, r.cmd)
		idx = append(idx, i)
	}
	got := runInSandbox(t, cmds)
	for k, m := range got {
		r := rows[idx[k]]
		if err := checkMeaning(r.bash, m); err != "" {
			t.Errorf("[%c %s] %q in bash: %s (ran %q, wrote %q, stderr %q)", r.cfg, r.want, r.cmd, err, m.calls, m.writes, m.stderr)
		}
	}
	t.Logf("bash-verified %d of %d rows; not installed here: %v", len(cmds), len(rows), skipped)
	if len(skipped) > 0 && os.Getenv("CI") == "true" {
		t.Errorf("CI verifies every row: install %v (.ci/run installs them with apt-get)", skipped)
	}
}

// checkMeaning compares what a row did in bash with its bash field.
func checkMeaning(want string, m bashMeaning) string {
	var fakes []string
	for _, tok := range strings.Fields(want) {
		switch {
		case tok == "-":
		case strings.HasPrefix(tok, "W:"):
			if !m.wroteUnder(tok[2:]) {
				return "did not write " + tok[2:]
			}
		default:
			name, sub, hasSub := strings.Cut(tok, ":")
			sub = strings.ReplaceAll(sub, "_", " ")
			fakes = append(fakes, name)
			if !hasSub {
				continue
			}
			found := false
			for _, c := range m.calls {
				n, args, _ := strings.Cut(c, " ")
				found = found || n == name && strings.Contains(args, sub)
			}
			if !found {
				return fmt.Sprintf("%s did not run with %s", name, sub)
			}
		}
	}
	slices.Sort(fakes)
	fakes = slices.Compact(fakes)
	if ran := m.ran(); !slices.Equal(ran, fakes) {
		return fmt.Sprintf("fakes ran %q, want %q", ran, fakes)
	}
	return ""
}
