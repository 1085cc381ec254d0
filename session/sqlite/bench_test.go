package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/sessiontest"
	"github.com/paigasus/helikon/session/sqlite"
)

func benchSession(b *testing.B, id string) *sqlite.Session {
	b.Helper()
	s, err := sqlite.OpenWithoutMigrate(openDB(b), id)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkAppendOne(b *testing.B) {
	sessiontest.BenchAppend(b, benchSession(b, "bench"), 1, nil)
}

func BenchmarkAppendBatch10(b *testing.B) {
	sessiontest.BenchAppend(b, benchSession(b, "bench"), 10, nil)
}

func BenchmarkSnapshot1000(b *testing.B) {
	sessiontest.BenchSnapshot(b, benchSession(b, "bench"), 1000)
}

func BenchmarkConcurrentWriters(b *testing.B) {
	b.Run("8-writers-one-session", func(b *testing.B) {
		s := benchSession(b, "shared")
		sessiontest.BenchConcurrentWriters(b, 8, 50, func(int) helikon.Session { return s })
	})
	b.Run("8-writers-8-sessions", func(b *testing.B) {
		db := openDB(b)
		sessiontest.BenchConcurrentWriters(b, 8, 50, func(w int) helikon.Session {
			s, err := sqlite.OpenWithoutMigrate(db, fmt.Sprintf("writer-%d", w))
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
}

// historyStore is the SQLite store of the history benchmarks.
func historyStore(b *testing.B) sessiontest.HistoryStore {
	db := openDB(b)
	return sessiontest.HistoryStore{
		Open: func(tb testing.TB, id string) helikon.Session { return benchSessionOn(tb, db, id) },
		Clone: func(ctx context.Context, from, to string) error {
			_, err := db.ExecContext(ctx, `INSERT INTO session_events (session_id, sequence, kind, ts, payload)
				SELECT ?, sequence, kind, ts, payload FROM session_events WHERE session_id = ?`, to, from)
			if err == nil {
				_, err = db.ExecContext(ctx, `INSERT INTO session_snapshots (session_id, sequence, payload)
					SELECT ?, sequence, payload FROM session_snapshots WHERE session_id = ?`, to, from)
			}
			return err
		},
		Drop: func(ctx context.Context, id string) error {
			_, err := db.ExecContext(ctx, `DELETE FROM session_events WHERE session_id = ?`, id)
			if err == nil {
				_, err = db.ExecContext(ctx, `DELETE FROM session_snapshots WHERE session_id = ?`, id)
			}
			return err
		},
		OpenSnapshotting: func(tb testing.TB, id string) helikon.Session {
			s, err := sqlite.OpenWithoutMigrate(db, id, sqlite.WithSnapshotEvery(400))
			if err != nil {
				tb.Fatal(err)
			}
			return s
		},
		SaveSnapshot: func(ctx context.Context, id string) error { return benchSessionOn(b, db, id).SaveSnapshot(ctx) },
		LegacyEvents: func(ctx context.Context, id string) ([]helikon.SessionEvent, error) { return legacyEvents(ctx, db, id) },
	}
}

// BenchmarkRunnerS1SQLiteHistory is S1 through the runner on a SQLite
// session holding h earlier runs, paired with h=0 in every iteration, and
// a cold run paired with the pre-issue-22 load of the same history.
func BenchmarkRunnerS1SQLiteHistory(b *testing.B) {
	sessiontest.BenchRunnerHistory(b, historyStore(b))
}

// BenchmarkLoadSQLiteHistory is a cold load of h earlier S1 runs paired
// with the pre-issue-22 load of the same log.
func BenchmarkLoadSQLiteHistory(b *testing.B) {
	sessiontest.BenchLoadHistory(b, historyStore(b))
}

// legacyEvents reads the log as Events did before issue 22: the same
// query, every payload through the general decoder.
func legacyEvents(ctx context.Context, db *sql.DB, id string) ([]helikon.SessionEvent, error) {
	rows, err := db.QueryContext(ctx,
		`SELECT sequence, payload FROM session_events WHERE session_id = ? AND sequence > ? ORDER BY sequence`, id, -1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	events := []helikon.SessionEvent{}
	for rows.Next() {
		var seq int64
		var payload sql.RawBytes
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

func benchSessionOn(tb testing.TB, db *sql.DB, id string) *sqlite.Session {
	s, err := sqlite.OpenWithoutMigrate(db, id)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
