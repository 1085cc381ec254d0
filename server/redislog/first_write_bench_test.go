package redislog_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon/internal/redistest"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/redislog"
)

// BenchmarkLog_FirstWriteToADeadRedis measures what the first write to a
// Redis that died (a refused dial) costs under the client's options: the
// write the circuit cannot spare, since the log learns Redis is
// unreachable only once the client gives up. The options are go-redis's
// defaults, the package's earlier advice (MaxRetries 1, DialTimeout 1 s)
// and that advice with DialerRetries 1: each dial go-redis makes retries
// DialerRetries times (default 5) with DialerRetryTimeout between
// (default 100 ms), for every attempt of the command.
func BenchmarkLog_FirstWriteToADeadRedis(b *testing.B) {
	for _, bc := range []struct {
		name string
		opt  redis.Options
	}{
		{"defaults", redis.Options{}},
		{"MaxRetries=1,DialTimeout=1s", redis.Options{MaxRetries: 1, DialTimeout: time.Second}},
		{"MaxRetries=1,DialTimeout=1s,DialerRetries=1", redis.Options{MaxRetries: 1, DialTimeout: time.Second, DialerRetries: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				addr, kill := redistest.Private(b)
				opt := bc.opt
				opt.Addr = addr
				client := redis.NewClient(&opt)
				l, err := redislog.New(context.Background(), client)
				if err != nil {
					b.Fatal(err)
				}
				kill()
				info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
				b.StartTimer()
				if err := l.Create(context.Background(), info); err == nil {
					b.Fatal("a create on a dead Redis succeeded")
				}
				b.StopTimer()
				_ = l.Close()
				_ = client.Close()
				b.StartTimer()
			}
		})
	}
}
