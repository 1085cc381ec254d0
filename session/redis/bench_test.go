package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	rsession "github.com/paigasus/helikon/session/redis"
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
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			sessiontest.BenchAppend(b, openSession(b, sessiontest.UniqueID(b), l.opts...), 1, bareXAdd(b))
		})
	}
}

func BenchmarkAppendBatch10(b *testing.B) {
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			sessiontest.BenchAppend(b, openSession(b, sessiontest.UniqueID(b), l.opts...), 10, bareXAdd(b))
		})
	}
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

// BenchmarkRunnerS1RedisHistory is S1 through the runner on a Redis
// session holding h earlier runs, paired with h=0 in every iteration, and
// a cold run paired with the pre-issue-22 load of the same history.
func BenchmarkRunnerS1RedisHistory(b *testing.B) {
	sessiontest.BenchRunnerHistory(b, historyStore(b))
}

// BenchmarkLoadRedisHistory is a cold load of h earlier S1 runs paired
// with the pre-issue-22 load of the same log.
func BenchmarkLoadRedisHistory(b *testing.B) {
	sessiontest.BenchLoadHistory(b, historyStore(b))
}

// BenchmarkLoadRedisStreamHistory is BenchmarkLoadRedisHistory for a
// session stored as a stream (WithStreamLayout).
func BenchmarkLoadRedisStreamHistory(b *testing.B) {
	sessiontest.BenchLoadHistory(b, historyStore(b, rsession.WithStreamLayout()))
}

// legacyEvents reads the log as Events did before issue 22: the same
// XRANGE (of the stream in that version's layout, legacyLayout), every
// payload through the general decoder.
func legacyEvents(ctx context.Context, client *redis.Client, stream string) ([]helikon.SessionEvent, error) {
	msgs, err := client.XRange(ctx, stream, "-", "+").Result()
	if err != nil {
		return nil, err
	}
	events := make([]helikon.SessionEvent, 0, len(msgs))
	for _, m := range msgs {
		seqField, _ := m.Values["seq"].(string)
		payload, _ := m.Values["payload"].(string)
		seq, err := strconv.ParseInt(seqField, 10, 64)
		if err != nil {
			return nil, err
		}
		var ev helikon.SessionEvent
		if err := json.Unmarshal([]byte(payload), &ev); err != nil {
			return nil, err
		}
		ev.Seq = helikon.SequenceID(seq)
		events = append(events, ev)
	}
	return events, nil
}

// historyStore is the Redis store of the history benchmarks, its sessions
// opened with opts.
func historyStore(b *testing.B, opts ...rsession.Option) sessiontest.HistoryStore {
	client := testClient(b)
	keys := func(id string) []string {
		return []string{"helikon:session:{" + id + "}:events", "helikon:session:{" + id + "}:seq", "helikon:session:{" + id + "}:snapshot"}
	}
	return sessiontest.HistoryStore{
		Open: func(tb testing.TB, id string) helikon.Session {
			s, err := rsession.New(client, id, opts...)
			if err != nil {
				tb.Fatal(err)
			}
			return s
		},
		Clone: func(ctx context.Context, from, to string) error {
			src, dst := keys(from), keys(to)
			for i := range src {
				if err := client.Copy(ctx, src[i], dst[i], 0, false).Err(); err != nil {
					return err
				}
			}
			return nil
		},
		Drop: func(ctx context.Context, id string) error { return client.Del(ctx, keys(id)...).Err() },
		OpenSnapshotting: func(tb testing.TB, id string) helikon.Session {
			s, err := rsession.New(client, id, append(opts, rsession.WithSnapshotEvery(400))...)
			if err != nil {
				tb.Fatal(err)
			}
			return s
		},
		SaveSnapshot: func(ctx context.Context, id string) error {
			s, err := rsession.New(client, id, opts...)
			if err != nil {
				return err
			}
			return s.SaveSnapshot(ctx)
		},
		LegacyEvents: func(ctx context.Context, id string) ([]helikon.SessionEvent, error) {
			return legacyEvents(ctx, client, keys(id)[0])
		},
		LegacyLayout: func(ctx context.Context, id string) error { return legacyLayout(ctx, client, keys(id)[0]) },
	}
}

// legacyLayout rewrites the session log at key, a list or a stream, as
// the stream the pre-issue-22 append script wrote: seq, kind, ts (Unix
// nanoseconds) and payload per entry, under the IDs "<seq>-1".
func legacyLayout(ctx context.Context, client *redis.Client, key string) error {
	type event struct{ seq, payload string }
	var events []event
	typ, err := client.Type(ctx, key).Result()
	if err != nil {
		return err
	}
	switch typ {
	case "list":
		items, err := client.LRange(ctx, key, 0, -1).Result()
		if err != nil {
			return err
		}
		for _, it := range items {
			seq, payload, ok := strings.Cut(it, " ")
			if !ok {
				return fmt.Errorf("list item %.40q is not <seq> <payload>", it)
			}
			events = append(events, event{seq, payload})
		}
	case "stream":
		msgs, err := client.XRange(ctx, key, "-", "+").Result()
		if err != nil {
			return err
		}
		for _, m := range msgs {
			payload, _ := m.Values["payload"].(string)
			events = append(events, event{strings.TrimSuffix(m.ID, "-1"), payload})
		}
	default:
		return fmt.Errorf("%s is a %s", key, typ)
	}
	pipe := client.Pipeline()
	pipe.Del(ctx, key)
	// A stream's counter holds the number of ids handed out; a list has
	// none, so one is made.
	next := 0
	if len(events) > 0 {
		last, err := strconv.Atoi(events[len(events)-1].seq)
		if err != nil {
			return err
		}
		next = last + 1
	}
	pipe.Set(ctx, strings.TrimSuffix(key, ":events")+":seq", next, 0)
	for _, ev := range events {
		var head struct {
			Type string    `json:"type"`
			TS   time.Time `json:"ts"`
		}
		if err := json.Unmarshal([]byte(ev.payload), &head); err != nil {
			return err
		}
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, ID: ev.seq + "-1",
			Values: []any{"seq", ev.seq, "kind", head.Type, "ts", head.TS.UnixNano(), "payload", ev.payload}})
	}
	_, err = pipe.Exec(ctx)
	return err
}

// BenchmarkConvertToList converts a stream of n S1-sized events to a list,
// the stream rebuilt untimed before each iteration, and times in the same
// iterations a bare XRANGE of the whole stream as the yardstick: the
// conversion holds the server for its whole run.
func BenchmarkConvertToList(b *testing.B) {
	client := testClient(b)
	payload, err := json.Marshal(sessiontest.BenchEvent())
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{4_000, rsession.MaxConvertEvents} {
		b.Run(fmt.Sprint("events=", n), func(b *testing.B) {
			ctx := b.Context()
			id := sessiontest.UniqueID(b)
			s := openSession(b, id)
			stream := s.EventsKey()
			var bare time.Duration
			for b.Loop() {
				b.StopTimer()
				pipe := client.Pipeline()
				pipe.Del(ctx, stream)
				for i := range n {
					pipe.XAdd(ctx, &redis.XAddArgs{Stream: stream, ID: fmt.Sprint(i, "-1"), Values: []any{"payload", payload}})
				}
				pipe.Set(ctx, "helikon:session:{"+id+"}:seq", n, 0)
				if _, err := pipe.Exec(ctx); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if err := client.XRange(ctx, stream, "-", "+").Err(); err != nil {
					b.Fatal(err)
				}
				bare += time.Since(start)
				b.StartTimer()
				if err := s.ConvertToList(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "xrange-ns/op")
			b.ReportMetric(float64(b.Elapsed())/float64(bare), "x-xrange")
		})
	}
}
