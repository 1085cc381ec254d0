//go:build unix

package bash

import (
	"context"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/tools/sandbox"
)

func TestHost_ExitCodeStdoutStderrAndCwd(t *testing.T) {
	sb := openSandbox(t)
	b := hostTool(t, sb, nil)
	r, err := runTool(t, t.Context(), b, Args{Command: "pwd; echo oops >&2; exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 3 || r.Stdout != sb.Dir()+"\n" || r.Stderr != "oops\n" || r.TimedOut {
		t.Fatalf("result %+v", r)
	}
}

func TestHost_EnvironmentIsScrubbedToTheAllowlist(t *testing.T) {
	t.Setenv("HELIKON_TEST_SECRET", "s3cret")
	t.Setenv("HELIKON_TEST_OK", "fine")
	sb := openSandbox(t)
	b := hostTool(t, sb, []HostOption{WithEnvAllowlist("PATH", "HELIKON_TEST_OK")})
	r, err := runTool(t, t.Context(), b, Args{Command: "env"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Stdout, "s3cret") || !strings.Contains(r.Stdout, "HELIKON_TEST_OK=fine") || !strings.Contains(r.Stdout, "SHELL="+b.backend.(*HostBackend).l.shell+"\n") {
		t.Fatalf("env:\n%s", r.Stdout)
	}
}

func TestHost_ResourceLimitsAreSetHardInTheCommand(t *testing.T) {
	sb := openSandbox(t)
	b := hostTool(t, sb, []HostOption{WithLimits(Limits{CPUSeconds: 7, FileSizeBytes: 64 << 10, AddressSpaceBytes: 2 << 30, Processes: 4096})})
	r, err := runTool(t, t.Context(), b, Args{Command: "ulimit -Ht; ulimit -Hf; ulimit -Hv; ulimit -Hu"})
	if err != nil {
		t.Fatal(err)
	}
	// bash reports -f and -v in 1024-byte blocks.
	if r.Stdout != "7\n64\n2097152\n4096\n" {
		t.Fatalf("hard limits:\n%s%s", r.Stdout, r.Stderr)
	}
	r, err = runTool(t, t.Context(), b, Args{Command: "head -c 1000000 /dev/zero > big; echo $?; stat -c %s big"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout != "153\n65536\n" { // 128+SIGXFSZ, and the file stopped at the cap
		t.Fatalf("a write past the file-size cap: %+v", r)
	}
	r, err = runTool(t, t.Context(), b, Args{Command: "ulimit -t 100"}) // raising the cap fails
	if err != nil || r.ExitCode == 0 {
		t.Fatalf("raising the CPU cap succeeded: %+v, %v", r, err)
	}
}

func TestHost_ResourceLimitsStopARunawayCommand(t *testing.T) {
	sb := openSandbox(t)
	cases := []struct {
		name   string
		limits Limits
		cmd    string
		want   string
	}{
		// The busy loop runs in a child shell so the parent can report
		// how it ended: 137 is 128+SIGKILL, which the kernel sends at the
		// hard limit (the soft one, equal, would send SIGXCPU).
		{"cpu seconds", Limits{CPUSeconds: 1}, "bash -c 'while :; do :; done'; echo $?", "137\n"},
		// 153 is 128+SIGXFSZ, and the file stops at the cap.
		{"file size", Limits{FileSizeBytes: 64 << 10}, "head -c 1000000 /dev/zero > big; echo $?; stat -c %s big", "153\n65536\n"},
		// A shell told to hold 300 MB in a variable under a 128 MiB
		// address space fails to allocate it and dies.
		{"address space", Limits{AddressSpaceBytes: 128 << 20}, "bash -c 'v=$(head -c 300000000 /dev/zero | tr \"\\0\" x); echo ${#v}' 2>/dev/null; echo $?", "2\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := hostTool(t, sb, []HostOption{WithLimits(c.limits)})
			r, err := runTool(t, t.Context(), b, Args{Command: c.cmd, TimeoutMS: 120000})
			if err != nil {
				t.Fatal(err)
			}
			if r.Stdout != c.want || r.TimedOut {
				t.Fatalf("%+v, want stdout %q", r, c.want)
			}
		})
	}
}

// alive reports whether pid is still a live process (a zombie counts as
// dead: it runs nothing).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d outlived the command", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func childPid(t *testing.T, dir string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "pid"))
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never wrote its child's pid")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// forkSleeper forks a sleeping grandchild, records its pid, and waits.
const forkSleeper = "sleep 300 & echo $! > pid; wait"

func TestHost_TimeoutKillsTheProcessGroupWithNoOrphans(t *testing.T) {
	sb := openSandbox(t)
	b := hostTool(t, sb, nil)
	r, err := runTool(t, t.Context(), b, Args{Command: "echo started; " + forkSleeper, TimeoutMS: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.Stdout != "started\n" {
		t.Fatalf("result %+v", r)
	}
	waitDead(t, childPid(t, sb.Dir()))
}

func TestHost_CancellationKillsTheProcessGroupWithNoOrphans(t *testing.T) {
	sb := openSandbox(t)
	b := hostTool(t, sb, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		childPid(t, sb.Dir())
		cancel()
	}()
	_, err := runTool(t, ctx, b, Args{Command: forkSleeper})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	waitDead(t, childPid(t, sb.Dir()))
}

func TestHost_BackgroundChildrenDieWithTheCommand(t *testing.T) {
	sb := openSandbox(t)
	b := hostTool(t, sb, nil)
	r, err := runTool(t, t.Context(), b, Args{Command: "sleep 300 >/dev/null 2>&1 & echo $! > pid"})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("%+v, %v", r, err)
	}
	waitDead(t, childPid(t, sb.Dir()))
}

func TestHost_OutputIsCappedHeadAndTail(t *testing.T) {
	sb := openSandbox(t)
	b := hostTool(t, sb, nil, WithOutputLimit(100))
	r, err := runTool(t, t.Context(), b, Args{Command: "echo BEGIN; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Stdout, "BEGIN\nxxx") || !strings.HasSuffix(r.Stdout, "xxx\nEND\n") || !strings.Contains(r.Stdout, "bytes elided") || len(r.Stdout) > 200 {
		t.Fatalf("stdout %q", r.Stdout)
	}
}

func TestHostBackend_WithoutLimitsTheCommandRunsAsGiven(t *testing.T) {
	sb := openSandbox(t)
	be, err := NewHostBackend(sb, WithLimits(Limits{}))
	if err != nil {
		t.Fatal(err)
	}
	if be.l.prefix != "" {
		t.Fatalf("a backend without limits prefixes %q", be.l.prefix)
	}
	r, err := be.Run(t.Context(), Request{Command: "echo hi; test -e /proc/$$/fd/3 && echo fd 3 open"})
	if err != nil || r.Stdout != "hi\n" {
		t.Fatalf("%+v, %v", r, err)
	}
}

func TestHost_TheLimitsPrefixIsInvisibleToTheCommand(t *testing.T) {
	b := hostTool(t, openSandbox(t), nil)
	// The status descriptor is closed before the command runs, there
	// are no arguments, and the first line of the command is still
	// line 1.
	r, err := runTool(t, t.Context(), b, Args{Command: "test -e /proc/$$/fd/3 && echo fd 3 open; echo $# $LINENO; nosuchcommand-helikon\necho $LINENO"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout != "0 1\n2\n" || !strings.Contains(r.Stderr, "line 1: nosuchcommand-helikon") {
		t.Fatalf("%+v", r)
	}
}

func TestHost_LimitsThatCannotBeSetFailTheCallBeforeTheCommandRuns(t *testing.T) {
	sb := openSandbox(t)
	be, err := NewHostBackend(sb)
	if err != nil {
		t.Fatal(err)
	}
	// As root every real limit can be set, so break the ulimit itself.
	be.l.prefix = strings.Replace(be.l.prefix, "ulimit -t 300", "ulimit -t lots", 1)
	r, err := be.Run(t.Context(), Request{Command: "touch ran"})
	if err == nil || !strings.Contains(err.Error(), "resource limits") || !strings.Contains(err.Error(), "lots") {
		t.Fatalf("%+v, %v; want an error naming the limits", r, err)
	}
	if _, err := os.Stat(filepath.Join(sb.Dir(), "ran")); err == nil {
		t.Error("the command ran without its limits")
	}
}

func TestNewHostBackend_RefusesVariablesThatRunCodeAtStartup(t *testing.T) {
	for _, name := range []string{"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "BASH_FUNC_ulimit%%"} {
		_, err := NewHostBackend(openSandbox(t), WithEnvAllowlist("PATH", name))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want one naming it", name, err)
		}
	}
}

func TestBash_BadInputAndOptions(t *testing.T) {
	sb := openSandbox(t)
	b := hostTool(t, sb, nil)
	for _, args := range []string{`{"command":""}`, `{"command":"   "}`, `{}`, `{"command":1}`, `{"command":"ls","timeout_ms":-1}`, `{"command":"ls","timeout_ms":6000000}`, `{"command":`} {
		_, err := b.Call(helikon.NewToolContext(t.Context(), nil, "c", "Bash"), []byte(args))
		var te *helikon.ToolError
		if !errors.As(err, &te) || te.Kind != helikon.ToolInvalidArgs {
			t.Errorf("%s: err = %v, want InvalidArgs", args, err)
		}
	}
	be, _ := NewHostBackend(sb)
	for name, opt := range map[string]Option{"zero timeout": WithCallTimeout(0), "huge timeout": WithCallTimeout(time.Hour), "tiny output": WithOutputLimit(1)} {
		if _, err := New(be, opt); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := New(nil); err == nil {
		t.Error("New(nil): no error")
	}
	if _, err := NewHostBackend(nil); err == nil {
		t.Error("NewHostBackend(nil): no error")
	}
	if _, err := NewHostBackend(sb, WithTimeout(-1)); err == nil {
		t.Error("negative backend timeout: no error")
	}
}

func TestBash_AllowAndDenyListsReuseTheShellMatcher(t *testing.T) {
	sb := openSandbox(t)
	deny := hostTool(t, sb, nil, WithDenyCommands("rm", "curl"))
	allow := hostTool(t, sb, nil, WithAllowCommands("echo", "ls"))
	cases := []struct {
		tool   *Bash
		cmd    string
		denied bool
	}{
		{deny, "echo hi", false},
		{deny, "echo hi && rm -rf x", true},
		{deny, "sudo /bin/rm x", true},
		{deny, "bash -c 'curl example.com'", true},
		{deny, "$CMD x", true}, // unresolvable: fail closed
		{allow, "echo hi; ls", false},
		{allow, "echo hi | cat", true},
		{allow, "eval \"$X\"", true},
	}
	for _, c := range cases {
		_, err := runTool(t, t.Context(), c.tool, Args{Command: c.cmd})
		if got := errors.Is(err, helikon.ErrToolDenied); got != c.denied {
			t.Errorf("%q: denied = %v (%v), want %v", c.cmd, got, err, c.denied)
		}
	}
}

func TestBash_DeclaresShellToolEffectAndLabel(t *testing.T) {
	b := hostTool(t, openSandbox(t), nil)
	var st governance.ShellTool = b
	if cmd, err := st.ShellCommand([]byte(`{"command":"rm -rf /"}`)); err != nil || cmd != "rm -rf /" {
		t.Errorf("ShellCommand = %q, %v", cmd, err)
	}
	for _, bad := range []string{`{}`, `nope`} {
		if _, err := st.ShellCommand([]byte(bad)); err == nil {
			t.Errorf("ShellCommand(%s) did not fail closed", bad)
		}
	}
	if helikon.EffectOf(b) != helikon.SideEffect {
		t.Error("effect is not SideEffect")
	}
	want := "host (no containment; " + b.backend.(*HostBackend).l.lifetime() + ")"
	if !strings.Contains(b.Description(), want) {
		t.Errorf("description %q does not show the label %q", b.Description(), want)
	}
	if g := b.Guarantees(); g != (Guarantees{Label: want}) {
		t.Errorf("guarantees %+v", g)
	}
}

func TestSandboxTools_ASymlinkPlantedByBashDoesNotLeadOut(t *testing.T) {
	sb := openSandbox(t)
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := hostTool(t, sb, nil)
	r, err := runTool(t, t.Context(), b, Args{Command: "ln -s " + outside + " link && ln -s " + filepath.Dir(outside) + " dir"})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("%+v, %v", r, err)
	}
	read, err := sandbox.NewRead(sb)
	if err != nil {
		t.Fatal(err)
	}
	edit, err := sandbox.NewEdit(sb)
	if err != nil {
		t.Fatal(err)
	}
	tc := helikon.NewToolContext(t.Context(), nil, "c", "Read")
	for _, c := range []struct {
		tool helikon.Tool
		args string
	}{
		{read, `{"file_path":"link"}`},
		{read, `{"file_path":"dir/secret"}`},
		{edit, `{"file_path":"link","old_string":"s3cret","new_string":"pwned"}`},
	} {
		out, err := c.tool.Call(tc, []byte(c.args))
		if !errors.Is(err, helikon.ErrToolDenied) || strings.Contains(string(out.Content), "s3cret") {
			t.Errorf("%s %s: %s, %v; want Denied", c.tool.Name(), c.args, out.Content, err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "s3cret" {
		t.Errorf("the outside file changed: %q", b)
	}
}

func TestBash_BadCommandsEndInATypedErrorOrABoundedResult(t *testing.T) {
	sb := openSandbox(t)
	b := hostTool(t, sb, nil)
	for name, cmd := range map[string]string{
		"a NUL byte":           "echo a\x00b",
		"past MaxCommandBytes": "echo " + strings.Repeat("x", MaxCommandBytes),
	} {
		_, err := runTool(t, t.Context(), b, Args{Command: cmd})
		var te *helikon.ToolError
		if !errors.As(err, &te) || te.Kind != helikon.ToolInvalidArgs {
			t.Errorf("%s: err = %v, want InvalidArgs", name, err)
		}
	}

	// 1 GiB of output: the call returns the head and the tail, and this
	// process's heap does not grow with the output.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := runTool(t, t.Context(), b, Args{Command: "head -c 1073741824 /dev/zero; echo done >&2", TimeoutMS: 120000})
	runtime.ReadMemStats(&after)
	if err != nil || r.ExitCode != 0 || r.TimedOut {
		t.Fatalf("1 GiB: %.200v, %v", r, err)
	}
	if len(r.Stdout) > DefaultOutputLimit+100 || !strings.Contains(r.Stdout, fmt.Sprintf("[… %d bytes elided …]", 1<<30-DefaultOutputLimit)) || r.Stderr != "done\n" {
		t.Errorf("1 GiB: stdout of %d bytes, stderr %q", len(r.Stdout), r.Stderr)
	}
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 32<<20 {
		t.Errorf("1 GiB of output grew the heap by %d MiB", grew>>20)
	}

	// A command that never exits and ignores every signal it can: the
	// timeout ends it, with what it printed so far.
	start := time.Now()
	r, err = runTool(t, t.Context(), b, Args{Command: "trap '' TERM INT HUP QUIT; echo spinning; while :; do :; done", TimeoutMS: 500})
	if err != nil || !r.TimedOut || r.Stdout != "spinning\n" || time.Since(start) > 30*time.Second {
		t.Errorf("never exits: %+v, %v after %v", r, err, time.Since(start))
	}

	// A command that waits for input gets end of file, not a hang.
	r, err = runTool(t, t.Context(), b, Args{Command: "cat; read x; echo $?", TimeoutMS: 30000})
	if err != nil || r.TimedOut || r.Stdout != "1\n" {
		t.Errorf("reads stdin: %+v, %v", r, err)
	}
}

// A descriptor this process inherited open (here one opened without
// close-on-exec, as a parent's lock file would be) does not reach the
// command, with or without limits.
func TestHostBackend_ADescriptorTheProcessInheritedDoesNotReachTheCommand(t *testing.T) {
	fd, err := syscall.Open(filepath.Join(t.TempDir(), "inherited"), syscall.O_CREAT|syscall.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	for _, limits := range []bool{true, false} {
		sb := openSandbox(t)
		opts := []HostOption{}
		if !limits {
			opts = append(opts, WithLimits(Limits{}))
		}
		be, err := NewHostBackend(sb, opts...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := be.Run(t.Context(), Request{Command: fmt.Sprintf("{ : >&%d; } 2>/dev/null && echo open; echo done", fd)})
		if err != nil || r.Stdout != "done\n" {
			t.Fatalf("limits %v: descriptor %d: %+v, %v; want it closed in the command", limits, fd, r, err)
		}
	}
}
