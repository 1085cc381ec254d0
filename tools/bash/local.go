package bash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// DefaultTimeout bounds a command whose request and backend set none.
const DefaultTimeout = 2 * time.Minute

// local runs commands as child processes of this one. HostBackend and
// OsSandboxBackend are configurations of it.
type local struct {
	shell   string
	dir     string
	env     []string
	timeout time.Duration
	// prefix is the text that sets the resource limits, put before
	// the command (see [Limits.prefix]).
	prefix string
	// confine, when set, is applied to the thread that starts the
	// command (see startConfined).
	confine *confineSpec
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
	cmd := exec.Command(l.shell, "-c", l.prefix+req.Command)
	cmd.Env = l.env
	var status *os.File
	if l.prefix != "" {
		r, w, err := os.Pipe()
		if err != nil {
			return Result{}, fmt.Errorf("bash: %w", err)
		}
		defer r.Close()
		defer w.Close()
		status = r
		cmd.ExtraFiles = []*os.File{w} // limitStatusFD
	}
	cmd.Dir = l.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, stderr := newCapture(limit), newCapture(limit)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A background child holding the pipes must not keep Wait blocked
	// once the group is killed.
	cmd.WaitDelay = time.Second
	closeInheritedOnExec()
	start := cmd.Start
	if l.confine != nil {
		start = func() error { return startConfined(cmd, l.confine) }
	}
	if err := start(); err != nil {
		return Result{}, fmt.Errorf("bash: start: %w", err)
	}
	if status != nil {
		cmd.ExtraFiles[0].Close() // the shell holds the only write end now
	}
	pgid := cmd.Process.Pid
	killGroup := func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var err error
	timedOut := false
	select {
	case err = <-done:
	case <-timer.C:
		timedOut = true
		killGroup()
		err = <-done
	case <-ctx.Done():
		killGroup()
		<-done
		return Result{}, ctx.Err()
	}
	// Whatever the shell left running in the background goes with it.
	killGroup()
	if status != nil {
		// Every process that held the write end is dead or closed it
		// before the command ran; the deadline only guards the read.
		_ = status.SetReadDeadline(time.Now().Add(time.Second))
		if b, _ := io.ReadAll(io.LimitReader(status, 4096)); len(b) > 0 {
			return Result{}, fmt.Errorf("bash: set the resource limits, so the command did not run: %s", strings.TrimSpace(string(b)))
		}
	}
	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), TimedOut: timedOut}
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
