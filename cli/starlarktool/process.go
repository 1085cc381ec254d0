package starlarktool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// killGrace is how long past a run's time cap the host waits for the
// worker's own cancellation (which keeps the worker) before it kills the
// worker, stopping a built-in that does not look at the cap.
const killGrace = 20 * time.Millisecond

// startTimeout bounds a worker's start, up to its first frame.
const startTimeout = 10 * time.Second

// process is one worker process, seen from the host. One run at a time.
type process struct {
	cmd  *exec.Cmd
	in   *os.File // requests: the worker's stdin
	out  *os.File // frames: the worker's descriptor 3
	errs *os.File // the worker's stderr, read once it has ended
	spec workerSpec
	// loaded holds the programs whose top level ran in this worker.
	loaded map[string]bool
	cpu    time.Duration
	// dead is set once the worker is killed or found gone, reaped once
	// it has been waited for.
	dead, reaped bool
}

// startProcess re-executes this program as a worker under spec and waits
// for its hello.
func startProcess(ctx context.Context, spec workerSpec) (*process, error) {
	if err := platformErr(); err != nil {
		return nil, err
	}
	if !hookCalled.Load() {
		return nil, ErrNoWorker
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starlarktool: worker: %w", err)
	}
	rawSpec, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("starlarktool: worker: %w", err)
	}
	cmd := exec.Command(exe)
	// Only what the worker needs: a script reads no environment, and the
	// host's may hold secrets.
	cmd.Env = []string{workerEnv + "=" + string(rawSpec), "GOMAXPROCS=2", "GOTRACEBACK=none"}
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stderr, cmd.ExtraFiles = inR, errW, []*os.File{outW}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("starlarktool: start worker: %w", err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	p := &process{cmd: cmd, in: inW, out: outR, errs: errR, spec: spec, loaded: map[string]bool{}}
	var h hello
	err = p.exchange(ctx, time.Now().Add(startTimeout), func() error {
		_, err := readFrame(p.out, &h, maxRequestHeader, 0)
		return err
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("starlarktool: the worker did not start (is starlarktool.WorkerMain the first call in main?): %v%s", err, firstLine(p.kill()))
	case h.Version != wireVersion:
		p.kill()
		return nil, fmt.Errorf("starlarktool: the worker speaks version %d, not %d: was the program replaced on disk?", h.Version, wireVersion)
	case h.Err != "":
		p.kill()
		return nil, fmt.Errorf("starlarktool: the worker could not cap itself, so no script runs: %s", h.Err)
	}
	return p, nil
}

// exchange runs io against the worker's pipes until deadline or ctx
// ends, whichever is first.
func (p *process) exchange(ctx context.Context, deadline time.Time, fn func() error) error {
	p.in.SetWriteDeadline(deadline)
	p.out.SetReadDeadline(deadline)
	stop := context.AfterFunc(ctx, func() {
		p.in.SetWriteDeadline(time.Now())
		p.out.SetReadDeadline(time.Now())
	})
	err := fn()
	stop()
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("the call was cancelled: %w", context.Cause(ctx))
	}
	return err
}

// run sends req and payload and reads the answer, whose result is at most
// lim.MaxOutputBytes. An error means the worker is gone: it is killed and
// the error says which cap, if any, ended it.
func (p *process) run(ctx context.Context, req request, payload []byte, lim Limits) (response, []byte, error) {
	req.Steps, req.TimeoutNS, req.MaxOut = lim.MaxSteps, int64(lim.Timeout), lim.MaxOutputBytes
	var resp response
	var result []byte
	err := p.exchange(ctx, time.Now().Add(lim.Timeout+killGrace), func() error {
		if err := writeFrame(p.in, req, payload); err != nil {
			return err
		}
		var err error
		// An error's text is capped at MaxOutputBytes by the worker, but
		// JSON may escape each byte as six.
		result, err = readFrame(p.out, &resp, 6*lim.MaxOutputBytes+maxRequestHeader, lim.MaxOutputBytes)
		return err
	})
	if err == nil {
		p.cpu = time.Duration(resp.CPUNS)
		return resp, result, nil
	}
	// Killed at the time cap or on cancellation, the worker is reaped
	// later by its pool: the kernel takes tens of milliseconds to tear
	// down a large one, which the call need not wait for.
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil:
		p.stop()
		return resp, nil, &ScriptError{File: req.File, Limit: LimitTime,
			Msg: fmt.Sprintf("time cap of %v exceeded: a built-in was still running, so its worker was stopped", lim.Timeout)}
	case ctx.Err() != nil:
		p.stop()
		return resp, nil, err
	}
	stderr := p.kill()
	if se := deathCause(stderr, p.spec); se != nil {
		se.File = req.File
		return resp, nil, se
	}
	return resp, nil, fmt.Errorf("the script worker ended unexpectedly (%v): %v%s", p.cmd.ProcessState, err, firstLine(stderr))
}

// firstLine is the first line of a worker's stderr, short enough for an
// error message, after ": ".
func firstLine(stderr string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if line == "" {
		return ""
	}
	return ": " + cut(line, 256)
}

// deathCause reads which cap ended a worker from what the Go runtime or
// the worker printed on the way out.
func deathCause(stderr string, spec workerSpec) *ScriptError {
	mib := spec.MemoryBytes >> 20
	switch {
	case strings.Contains(stderr, "stack overflow"), strings.Contains(stderr, "stack exceeds"):
		return &ScriptError{Limit: LimitMemory, Msg: fmt.Sprintf(
			"memory cap of %d MiB exceeded: nesting too deep for the run's stack share of %d MiB", mib, stackShare(spec.MemoryBytes)>>20)}
	case strings.Contains(stderr, "out of memory"), strings.Contains(stderr, "cannot allocate memory"),
		strings.Contains(stderr, "failed to create new OS thread"), strings.Contains(stderr, "pthread_create failed"),
		// A -race build: the race detector's runtime, and Go's reserving
		// heap at the fixed addresses -race needs, which RLIMIT_AS refuses.
		strings.Contains(stderr, "ThreadSanitizer failed to allocate"),
		strings.Contains(stderr, "too many address space collisions for -race mode"),
		// The runtime faults in its own code when the kernel refuses it
		// memory it did not check for (seen in the collector's queues).
		strings.HasPrefix(stderr, "SIGSEGV: segmentation violation"):
		return &ScriptError{Limit: LimitMemory, Msg: fmt.Sprintf(
			"memory cap of %d MiB exceeded: the worker could not allocate more%s", mib, firstLine(stderr))}
	case strings.Contains(stderr, "CPU cap exceeded"):
		return &ScriptError{Limit: LimitCPU, Msg: "CPU cap exceeded: the run used more CPU time than its timeout and a second"}
	}
	return nil
}

// stop kills the worker without waiting for it to end.
func (p *process) stop() {
	if p.dead {
		return
	}
	p.dead = true
	p.in.Close()
	p.out.Close()
	p.cmd.Process.Kill()
}

// kill ends the worker, reaps it and returns the start of what it wrote
// to stderr, for the caller's error.
func (p *process) kill() string {
	p.stop()
	if p.reaped {
		return ""
	}
	p.reaped = true
	p.cmd.Wait()
	defer p.errs.Close()
	p.errs.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	b, _ := io.ReadAll(io.LimitReader(p.errs, 8<<10))
	return string(b)
}
