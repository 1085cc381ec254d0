package bash

import (
	"context"
	"time"
)

// ExecutionBackend runs one shell command line. Implementations decide
// where and under what confinement; [Guarantees] says which.
//
// Run must kill everything the command started when ctx is done or the
// request's timeout passes, and must hold at most Request.OutputLimit
// bytes of each stream. A command that ran and exited non-zero is a
// [Result], not an error; an error means the command could not be run (or
// ctx was cancelled), and no result is reported.
type ExecutionBackend interface {
	Guarantees() Guarantees
	Run(ctx context.Context, req Request) (Result, error)
}

// Request is one command for an [ExecutionBackend].
type Request struct {
	// Command is the shell command line.
	Command string
	// Timeout bounds the run; zero means the backend's default.
	Timeout time.Duration
	// OutputLimit caps each of stdout and stderr; past it the head and
	// tail are kept and the middle elided with a marker. Zero means
	// [DefaultOutputLimit].
	OutputLimit int
}

// Result is how a command ended.
type Result struct {
	// ExitCode is the command's exit status; -1 when a signal ended it.
	// In the OS sandbox's PID namespace the shell stays the call's first
	// process and reports a last command a signal ended as bash does,
	// 128 plus the signal's number; -1 is then a shell a signal ended
	// (a timeout's kill, a CPU cap), or a command that replaced the shell
	// (exec) and was ended by a signal.
	ExitCode int `json:"exit_code"`
	// Stdout and Stderr are the command's output, capped.
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// TimedOut reports that the timeout ended the command.
	TimedOut bool `json:"timed_out,omitempty"`
	// OutOfMemory reports that the call reached its memory cap
	// ([Limits.MemoryBytes]): the kernel killed a process of it for
	// memory and every other process of the call was killed with it.
	// Stderr ends with a line saying so.
	OutOfMemory bool `json:"out_of_memory,omitempty"`
}
