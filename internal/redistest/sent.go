package redistest

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Sent is a client hook that counts the commands the client sends Redis
// (a pipeline counts once), but PING, which probes, and HELLO and
// CLIENT, which open a connection: what a test counts is the writes and
// reads of the code under test.
type Sent struct{ n atomic.Int64 }

// Count returns the commands counted so far.
func (s *Sent) Count() int64 { return s.n.Load() }

func counted(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "ping", "hello", "client":
		return false
	}
	return true
}

// DialHook counts nothing: a dial is no command.
func (s *Sent) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook counts cmd.
func (s *Sent) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if counted(cmd) {
			s.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook counts the pipeline once.
func (s *Sent) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if slices.ContainsFunc(cmds, counted) {
			s.n.Add(1)
		}
		return next(ctx, cmds)
	}
}
