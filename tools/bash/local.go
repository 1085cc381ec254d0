package bash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/paigasus/helikon/tools/sandbox"
)

// DefaultTimeout bounds a command whose request and backend set none.
const DefaultTimeout = 2 * time.Minute

// local runs commands as child processes of this one. HostBackend and
// OsSandboxBackend are configurations of it.
type local struct {
	shell string
	dir   string
	// sb is the workspace dir names, through which the permission
	// rules resolve the paths a command names.
	sb      *sandbox.Sandbox
	env     []string
	timeout time.Duration
	// prefix is the text that sets the resource limits, put before
	// the command (see [Limits.prefix]).
	prefix string
	// confine, when set, is applied to the thread that starts the
	// command (see startConfined).
	confine *confineSpec
	// cgroups, when set, is where each call gets a cgroup that is
	// killed whole when the call ends; without it the call's process
	// group is.
	cgroups *cgroups
	// maxProcs caps the processes of a call in its pids cgroup, when
	// cgroups has one (0: no cap).
	maxProcs int
	// procCap is the process cap the OS sandbox asked for, however it
	// is enforced.
	procCap uint64
	// maxMem caps the memory of a call in its memory cgroup, when
	// cgroups has one (0: no cap).
	maxMem uint64
	// memCap is the memory cap asked for, whether or not a memory
	// cgroup enforces it.
	memCap uint64
	// cred, when set, is the unprivileged user the shell runs as.
	cred *credential
	// noPIDNS says why the calls of a confined backend have no PID
	// namespace of their own, when they have none.
	noPIDNS string
}

// sweeps reports whether a call ends by killing every process of cred's
// uid (see sweepUser), its calls one at a time: a privileged OS sandbox
// without a cgroup or a PID namespace, whose command's processes can
// leave every group but not their uid. It is derived, not stored, so a
// backend that loses its namespaces in construction cannot be left
// without the sweep.
func (l *local) sweeps() bool { return l.cgroups == nil && l.cred != nil && !l.pidNS() }

// goAheadFD is the descriptor from which the shell reads one byte before
// anything else, once the backend has moved it into the call's cgroup:
// nothing the command starts can be forked outside it.
const goAheadFD = 4

// goAheadPrefix is what the shell runs first when the call has a cgroup.
// Without the byte (the backend closed the pipe) it exits before the
// command.
var goAheadPrefix = fmt.Sprintf("read -rn1 _ <&%d || exit 125; exec %d<&-; ", goAheadFD, goAheadFD)

// lifetime names how the backend ends every process of a call, for the
// guarantees label.
func (l *local) lifetime() string {
	if l.cgroups != nil {
		return "every process killed through a cgroup v2 per call"
	}
	if l.pidNS() {
		return "every process killed with the call's PID namespace (no cgroup here)"
	}
	if l.sweeps() {
		return fmt.Sprintf("every process of uid %d killed when the call ends (no cgroup or PID namespace here: its calls run one at a time)", l.cred.Uid)
	}
	return "the process group killed (a process that leaves it may outlive the call)"
}

// processCap names the process cap and what enforces it, for the
// guarantees label. RLIMIT_NPROC counts every process of the sandbox
// user, so its calls running at once share it; only a pids cgroup caps a
// call on its own.
func (l *local) processCap() string {
	rlimit := strings.Contains(l.prefix, " -u ")
	switch {
	case l.maxProcs > 0 && rlimit:
		return fmt.Sprintf("at most %d processes a call (pids cgroup) and as many for the sandbox user's calls together (RLIMIT_NPROC)", l.procCap)
	case l.maxProcs > 0:
		return fmt.Sprintf("at most %d processes a call (pids cgroup)", l.procCap)
	case rlimit:
		return fmt.Sprintf("at most %d processes for the sandbox user's calls together (RLIMIT_NPROC; no pids cgroup here to cap a call)", l.procCap)
	}
	return "no process cap"
}

// memoryCap names the memory cap and what enforces it, for the
// guarantees label.
func (l *local) memoryCap() string {
	switch {
	case l.memCap == 0:
		return "no memory cap"
	case l.maxMem == 0:
		return "no memory cap (no memory cgroup here)"
	case l.cgroups.swapCapped:
		return fmt.Sprintf("at most %s of memory a call (memory cgroup, no swap)", byteSize(l.maxMem))
	}
	return fmt.Sprintf("at most %s of memory a call (memory cgroup; swap not capped)", byteSize(l.maxMem))
}

func (l *local) run(ctx context.Context, req Request) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = l.timeout
	}
	limit := req.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	if l.sweeps() {
		unlock, err := lockUser(ctx, l.cred.Uid)
		if err != nil {
			return Result{}, err
		}
		defer unlock()
	}
	script := l.prefix + req.Command
	// The child's descriptors 3 (limits status) and 4 (go-ahead); nil
	// leaves one closed.
	extra := make([]*os.File, 0, 2)
	var status, goAhead *os.File
	if l.prefix != "" {
		r, w, err := os.Pipe()
		if err != nil {
			return Result{}, fmt.Errorf("bash: %w", err)
		}
		defer r.Close()
		defer w.Close()
		status = r
		extra = append(extra, w) // limitStatusFD
	}
	var cg *callCgroup
	if l.cgroups != nil {
		var err error
		if cg, err = l.cgroups.newCall(l.maxProcs, l.maxMem); err != nil {
			return Result{}, err
		}
		defer cg.remove()
		r, w, err := os.Pipe()
		if err != nil {
			return Result{}, fmt.Errorf("bash: %w", err)
		}
		defer r.Close()
		defer w.Close()
		goAhead = w
		for len(extra) < goAheadFD-3 {
			extra = append(extra, nil)
		}
		extra = append(extra, r)
		script = goAheadPrefix + script
	}
	if l.pidNS() {
		script = pidNSPrefix + script
	}
	cmd := exec.Command(l.shell, "-c", script)
	cmd.Env = l.env
	cmd.ExtraFiles = extra
	cmd.Dir = l.dir
	// The shell has a process group of its own under every backend: the
	// call's processes are not in this process's group (a command's
	// kill 0 reaches its own), programs that signal their own group
	// (timeout(1)) signal the call's, and without a cgroup that group is
	// what ends the call.
	startInGroup(cmd, l.cred)
	stdout, stderr := newCapture(limit), newCapture(limit)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A process holding the pipes must not keep Wait blocked once it
	// is killed.
	cmd.WaitDelay = time.Second
	closeInheritedOnExec()
	start := cmd.Start
	if l.confine != nil {
		start = func() error { return startConfined(cmd, l.confine) }
	}
	if err := start(); err != nil {
		return Result{}, fmt.Errorf("bash: start: %w", err)
	}
	for _, f := range extra {
		if f != nil {
			f.Close() // the shell holds the only copy now
		}
	}
	pid := cmd.Process.Pid
	kill := func() { killGroup(pid) }
	if l.sweeps() {
		kill = func() {
			killGroup(pid)
			l.sweepUser()
		}
	}
	if l.pidNS() {
		// The shell is the namespace's first process: when it dies the
		// kernel kills every other process of the namespace, which none
		// can leave, and reports the shell's exit only once they are
		// all reaped. It is killed by pid, as a command may exec a
		// program that joins another group of the call.
		kill = func() {
			killProcess(pid)
			killGroup(pid)
		}
	}
	// oom is closed when the call goes out of memory where the kernel
	// does not end it whole itself (nil: never).
	var oom <-chan struct{}
	stopWatch := func() {}
	if cg != nil {
		kill = cg.kill
		err := cg.add(pid)
		if err == nil {
			oom, stopWatch, err = cg.watchOOM()
		}
		if err != nil {
			// The shell waits for the go-ahead: it has no child yet.
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return Result{}, err
		}
		defer stopWatch()
		if _, err := goAhead.Write([]byte{'g'}); err != nil {
			kill()
			_ = cmd.Wait()
			return Result{}, fmt.Errorf("bash: start: %w", err)
		}
		goAhead.Close()
	}
	// The shell is waited for without being reaped, so its pid (and
	// process group) stays taken until everything is killed.
	exited := make(chan struct{})
	var waitErr error
	reaped := false
	go func() {
		defer close(exited)
		if !waitExited(pid) {
			reaped, waitErr = true, cmd.Wait()
		}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	timedOut, cancelled := false, false
	select {
	case <-exited:
	case <-timer.C:
		timedOut = true
	case <-ctx.Done():
		cancelled = true
	case <-oom:
	}
	// Whatever the shell left running goes with it.
	kill()
	<-exited
	err := waitErr
	if !reaped {
		err = cmd.Wait()
	}
	outOfMemory := false
	if cg != nil {
		stopWatch()
		select {
		case <-oom:
			outOfMemory = true
		default:
		}
		// Read before the cgroup goes, once every process is dead.
		outOfMemory = outOfMemory || cg.oomKills() > 0
		if rerr := cg.remove(); rerr != nil && !cancelled {
			return Result{}, rerr
		}
	}
	if cancelled {
		return Result{}, ctx.Err()
	}
	if status != nil {
		// Every process that held the write end is dead or closed it
		// before the command ran; the deadline only guards the read.
		_ = status.SetReadDeadline(time.Now().Add(time.Second))
		if b, _ := io.ReadAll(io.LimitReader(status, 4096)); len(b) > 0 {
			return Result{}, fmt.Errorf("bash: set the resource limits, so the command did not run: %s", strings.TrimSpace(string(b)))
		}
	}
	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), TimedOut: timedOut, OutOfMemory: outOfMemory}
	if outOfMemory {
		// Said in the stream the model reads, not only in a field.
		if res.Stderr != "" && !strings.HasSuffix(res.Stderr, "\n") {
			res.Stderr += "\n"
		}
		res.Stderr += fmt.Sprintf("[the call reached its memory cap of %s: the kernel killed a process of it for memory, and the call was ended]\n", byteSize(l.maxMem))
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		res.ExitCode = cmd.ProcessState.ExitCode()
	default:
		return Result{}, fmt.Errorf("bash: wait: %w", err)
	}
	return res, nil
}
