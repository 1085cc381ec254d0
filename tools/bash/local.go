package bash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// DefaultTimeout bounds a command whose request and backend set none.
const DefaultTimeout = 2 * time.Minute

// local runs commands as child processes of this one, directly or through
// the launcher. HostBackend and OsSandboxBackend are configurations of it.
type local struct {
	shell   string
	dir     string
	env     []string
	timeout time.Duration
	limits  Limits
	confine *confineSpec
}

// viaLauncher reports whether commands need the re-executed launcher.
func (l *local) viaLauncher() bool { return !l.limits.zero() || l.confine != nil }

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
	args := []string{l.shell, "-c", req.Command}
	var cmd *exec.Cmd
	var status *os.File
	if l.viaLauncher() {
		self, err := os.Executable()
		if err != nil {
			return Result{}, fmt.Errorf("bash: find the launcher: %w", err)
		}
		spec, err := json.Marshal(launchSpec{Shell: l.shell, Args: args, Env: l.env, Dir: l.dir, Limits: l.limits, Confine: l.confine})
		if err != nil {
			return Result{}, err
		}
		r, w, err := os.Pipe()
		if err != nil {
			return Result{}, err
		}
		defer r.Close()
		status = r
		cmd = exec.Command(self)
		cmd.Env = append([]string{launchEnv + "=" + string(spec)}, l.env...)
		cmd.ExtraFiles = []*os.File{w}
		defer w.Close()
	} else {
		cmd = exec.Command(l.shell, args[1:]...)
		cmd.Env = l.env
	}
	cmd.Dir = l.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, stderr := newCapture(limit), newCapture(limit)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A background child holding the pipes must not keep Wait blocked
	// once the group is killed.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("bash: start: %w", err)
	}
	pgid := cmd.Process.Pid
	killGroup := func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
	var launchErr string
	if status != nil {
		cmd.ExtraFiles[0].Close()
		b, _ := io.ReadAll(io.LimitReader(status, 4096))
		launchErr = string(b)
	}
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
	if launchErr != "" {
		return Result{}, fmt.Errorf("bash: %s", launchErr)
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
