package redis_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/sessiontest"
)

// bareXAdd is the baseline: one XADD per event with an auto-generated ID,
// no script and no counter.
func bareXAdd(b *testing.B) sessiontest.Baseline {
	client := testClient(b)
	key := "helikon:bench:{" + sessiontest.UniqueID(b) + "}:baseline"
	b.Cleanup(func() { deleteKeys(b, client, key) })
	ts := time.Now().UnixNano()
	return func(ctx context.Context, i int, payload []byte) error {
		return client.XAdd(ctx, &redis.XAddArgs{
			Stream: key,
			Values: []any{"seq", i, "kind", "user_message", "ts", ts, "payload", payload},
		}).Err()
	}
}

func BenchmarkAppendOne(b *testing.B) {
	sessiontest.BenchAppend(b, openSession(b, sessiontest.UniqueID(b)), 1, bareXAdd(b))
}

func BenchmarkAppendBatch10(b *testing.B) {
	sessiontest.BenchAppend(b, openSession(b, sessiontest.UniqueID(b)), 10, bareXAdd(b))
}

func BenchmarkSnapshot1000(b *testing.B) {
	sessiontest.BenchSnapshot(b, openSession(b, sessiontest.UniqueID(b)), 1000)
}

func BenchmarkConcurrentWriters(b *testing.B) {
	b.Run("8-writers-one-session", func(b *testing.B) {
		s := openSession(b, sessiontest.UniqueID(b))
		sessiontest.BenchConcurrentWriters(b, 8, 50, func(int) helikon.Session { return s })
	})
	b.Run("8-writers-8-sessions", func(b *testing.B) {
		sessiontest.BenchConcurrentWriters(b, 8, 50, func(w int) helikon.Session {
			return openSession(b, fmt.Sprintf("%s-%d", sessiontest.UniqueID(b), w))
		})
	})
}
