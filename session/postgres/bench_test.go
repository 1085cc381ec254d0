package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/postgres"
	"github.com/paigasus/helikon/session/sessiontest"
)

// bareInsert is the baseline: one autocommitted INSERT per event into the
// same table, with the position given, so no lock and no MAX.
func bareInsert(b *testing.B) sessiontest.Baseline {
	pool := testPool(b)
	id := sessiontest.UniqueID(b) + "-baseline"
	b.Cleanup(func() { deleteSession(b, pool, id) })
	now := time.Now()
	return func(ctx context.Context, i int, payload []byte) error {
		_, err := pool.Exec(ctx,
			`INSERT INTO session_events (session_id, sequence, kind, ts, payload) VALUES ($1, $2, $3, $4, $5::jsonb)`,
			id, i, "user_message", now, string(payload))
		return err
	}
}

func BenchmarkAppendOne(b *testing.B) {
	sessiontest.BenchAppend(b, openSession(b, sessiontest.UniqueID(b)), 1, bareInsert(b))
}

func BenchmarkAppendBatch10(b *testing.B) {
	sessiontest.BenchAppend(b, openSession(b, sessiontest.UniqueID(b)), 10, bareInsert(b))
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

// BenchmarkRunnerS1PostgresHistory is S1 through the runner on a
// PostgreSQL session holding h earlier runs, paired with h=0 in every
// iteration, and a cold run paired with the pre-issue-22 load of the same
// history.
func BenchmarkRunnerS1PostgresHistory(b *testing.B) {
	sessiontest.BenchRunnerHistory(b, historyStore(b))
}

// BenchmarkLoadPostgresHistory is a cold load of h earlier S1 runs paired
// with the pre-issue-22 load of the same log.
func BenchmarkLoadPostgresHistory(b *testing.B) {
	sessiontest.BenchLoadHistory(b, historyStore(b))
}

// legacyEvents reads the log as Events did before issue 22: the same
// query, every payload through the general decoder.
func legacyEvents(ctx context.Context, pool *pgxpool.Pool, id string) ([]helikon.SessionEvent, error) {
	rows, err := pool.Query(ctx,
		`SELECT sequence, COALESCE(payload->>'helikon_payload', payload::text) FROM session_events WHERE session_id = $1 AND sequence > $2 ORDER BY sequence`,
		id, int64(-1))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	events := []helikon.SessionEvent{}
	var seq int64
	var payload []byte
	for rows.Next() {
		if err := rows.Scan(&seq, &payload); err != nil {
			return nil, err
		}
		var ev helikon.SessionEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return nil, err
		}
		ev.Seq = helikon.SequenceID(seq)
		events = append(events, ev)
	}
	return events, rows.Err()
}

// historyStore is the PostgreSQL store of the history benchmarks. Its
// LegacyLayout moves a log to a schema whose payload column is jsonb, as
// the code LegacyEvents stands for stored it.
func historyStore(b *testing.B) sessiontest.HistoryStore {
	pool := testPool(b)
	legacyPool, legacySchema := jsonbSchema(b)
	return sessiontest.HistoryStore{
		Open: func(tb testing.TB, id string) helikon.Session {
			s, err := postgres.OpenWithoutMigrate(pool, id)
			if err != nil {
				tb.Fatal(err)
			}
			return s
		},
		Clone: func(ctx context.Context, from, to string) error {
			_, err := pool.Exec(ctx, `INSERT INTO session_events (session_id, sequence, kind, ts, payload)
				SELECT $1, sequence, kind, ts, payload FROM session_events WHERE session_id = $2`, to, from)
			if err == nil {
				_, err = pool.Exec(ctx, `INSERT INTO session_snapshots (session_id, sequence, payload)
					SELECT $1, sequence, payload FROM session_snapshots WHERE session_id = $2`, to, from)
			}
			return err
		},
		Drop: func(ctx context.Context, id string) error {
			_, err := pool.Exec(ctx, `DELETE FROM session_events WHERE session_id = $1`, id)
			if err == nil {
				_, err = legacyPool.Exec(ctx, `DELETE FROM session_events WHERE session_id = $1`, id)
			}
			if err == nil {
				_, err = pool.Exec(ctx, `DELETE FROM session_snapshots WHERE session_id = $1`, id)
			}
			return err
		},
		OpenSnapshotting: func(tb testing.TB, id string) helikon.Session {
			s, err := postgres.OpenWithoutMigrate(pool, id, postgres.WithSnapshotEvery(400))
			if err != nil {
				tb.Fatal(err)
			}
			return s
		},
		SaveSnapshot: func(ctx context.Context, id string) error {
			s, err := postgres.OpenWithoutMigrate(pool, id)
			if err != nil {
				return err
			}
			return s.SaveSnapshot(ctx)
		},
		LegacyEvents: func(ctx context.Context, id string) ([]helikon.SessionEvent, error) {
			return legacyEvents(ctx, legacyPool, id)
		},
		LegacyLayout: func(ctx context.Context, id string) error {
			_, err := pool.Exec(ctx, `WITH moved AS (DELETE FROM session_events WHERE session_id = $1 RETURNING *)
				INSERT INTO `+legacySchema+`.session_events (session_id, sequence, kind, ts, payload)
				SELECT session_id, sequence, kind, ts, payload::jsonb FROM moved`, id)
			return err
		},
	}
}
