package starlarktool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"time"
)

// workerSpec is what a worker is started with: the caps that hold for its
// whole life. The per-run caps come with each request.
type workerSpec struct {
	MemoryBytes int64 `json:"memory_bytes"`
	// CPUSeconds is the worker's lifetime CPU cap; each run gets a share
	// of it (its timeout plus a second) as a soft limit.
	CPUSeconds uint64 `json:"cpu_seconds"`
}

// Frames a worker reads: a script's source or a call's arguments, capped
// well above MaxArgsBytes' default and any sidecar file.
const (
	maxRequestHeader  = 64 << 10
	maxRequestPayload = 64 << 20
)

// The descriptors a worker talks on: requests on stdin, frames out on fd 3,
// so nothing the program prints to stdout (an init function) can corrupt
// the stream.
const workerOutFD = 3

// serveWorker applies spec's caps to this process and serves requests on
// stdin until it closes.
func serveWorker(raw string) error {
	var spec workerSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	out := os.NewFile(workerOutFD, "starlarktool-out")
	if out == nil {
		return fmt.Errorf("no descriptor %d to answer on", workerOutFD)
	}
	if err := capProcess(spec); err != nil {
		// Fail closed: the host refuses a worker that says it is not capped.
		_ = writeFrame(out, hello{Version: wireVersion, Err: err.Error()}, nil)
		return err
	}
	exitOnCPUCap()
	if err := writeFrame(out, hello{Version: wireVersion}, nil); err != nil {
		return err
	}
	return serve(os.Stdin, out, spec)
}

// serve answers requests one at a time until in ends.
func serve(in *os.File, out *os.File, spec workerSpec) error {
	scripts := map[string]*script{}
	for {
		var req request
		payload, err := readFrame(in, &req, maxRequestHeader, maxRequestPayload)
		if err != nil {
			// The host closed the pipe: its pool let this worker go.
			return nil
		}
		lim := Limits{MaxSteps: req.Steps, Timeout: time.Duration(req.TimeoutNS), MaxOutputBytes: req.MaxOut}
		var resp response
		var result []byte
		if resp.Spent = !armCPU(lim.Timeout, spec.CPUSeconds); !resp.Spent {
			switch req.Op {
			case "load":
				var s *script
				if s, resp.Err = load(req.File, string(payload), lim); resp.Err == nil {
					scripts[req.Prog] = s
				}
			case "call":
				s, ok := scripts[req.Prog]
				if !ok {
					return fmt.Errorf("call of a program never loaded")
				}
				var res string
				res, resp.Err = s.call(context.Background(), string(payload), lim)
				result = []byte(res)
			default:
				return fmt.Errorf("unknown op %q", req.Op)
			}
		}
		if resp.Err != nil {
			resp.Err.capText(lim.MaxOutputBytes)
		}
		resp.CPUNS = cpuTime().Nanoseconds()
		if err := writeFrame(out, resp, result); err != nil {
			return err
		}
	}
}

// stackShare is the part of MemoryBytes a run's Go stack may use: deep
// nesting (json.decode of a million "[") ends the worker there instead of
// growing towards Go's 1 GB default.
func stackShare(memoryBytes int64) int { return int(memoryBytes / 8) }

// memoryBudget sets the Go runtime's own soft memory limit to half the
// cap, so its collector works harder well before the kernel's hard limit
// ends the worker: that limit counts the heap's address space, whole
// 64 MiB arenas and garbage not yet collected, not its live data, and
// with the soft limit at the cap a run with 16 MiB live (big-integer
// products, 2 MiB of garbage each) hit it on a loaded machine.
func memoryBudget(spec workerSpec) {
	debug.SetMaxStack(stackShare(spec.MemoryBytes))
	debug.SetMemoryLimit(spec.MemoryBytes / 2)
}
