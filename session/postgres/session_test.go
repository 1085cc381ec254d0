package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/postgres"
	"github.com/paigasus/helikon/session/sessiontest"
)

// testURL is the server the tests use: the machine's PostgreSQL unless
// HELIKON_POSTGRES_URL names another.
func testURL() string {
	if u := os.Getenv("HELIKON_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test"
}

var (
	poolOnce   sync.Once
	shared     *pgxpool.Pool
	poolErr    error // the server did not answer
	migrateErr error // it answered, and the migrations failed
)

// testPool returns a migrated pool shared by the package's tests, or ends
// the test when the server does not answer. A failed migration is a test
// failure, never a skip.
func testPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	poolOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shared, poolErr = pgxpool.New(ctx, testURL())
		if poolErr != nil {
			return
		}
		if poolErr = shared.Ping(ctx); poolErr != nil {
			return
		}
		migrateErr = postgres.Migrate(ctx, shared)
	})
	if poolErr != nil {
		sessiontest.Unreachable(t, "PostgreSQL with a database named \"test\" is needed at "+testURL()+
			" (or set HELIKON_POSTGRES_URL): start the server with `pg_ctlcluster --skip-systemctl-redirect "+
			"$(ls /etc/postgresql | head -1) main start` and create the database with "+
			"`createdb -h 127.0.0.1 -U postgres test` ("+poolErr.Error()+")")
	}
	if migrateErr != nil {
		t.Fatalf("Migrate: %v", migrateErr)
	}
	return shared
}

// openSession opens id and deletes its rows when the test ends.
func openSession(t testing.TB, id string) *postgres.Session {
	t.Helper()
	pool := testPool(t)
	s, err := postgres.OpenWithoutMigrate(pool, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteSession(t, pool, id) })
	return s
}

func deleteSession(t testing.TB, pool *pgxpool.Pool, id string) {
	if _, err := pool.Exec(context.Background(), `DELETE FROM session_events WHERE session_id = $1`, id); err != nil {
		t.Errorf("cleanup of session %q: %v", id, err)
	}
}

func TestSession_Conformance(t *testing.T) {
	sessiontest.RunStore(t, func(t *testing.T, id string) helikon.Session { return openSession(t, id) })
}

func TestMigrate_ConcurrentCallersAllSucceed(t *testing.T) {
	pool := testPool(t)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() { errs[i] = postgres.Migrate(t.Context(), pool) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Migrate %d: %v", i, err)
		}
	}
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM helikon_session_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("helikon_session_migrations holds %d rows, want 1 per migration (2)", n)
	}
}

func TestOpen_EmptyIDRejected(t *testing.T) {
	pool := testPool(t)
	if _, err := postgres.Open(t.Context(), pool, ""); !errors.Is(err, postgres.ErrEmptyID) {
		t.Fatalf("Open with an empty id = %v, want ErrEmptyID", err)
	}
}

func TestOpen_MigratesAndOpens(t *testing.T) {
	pool := testPool(t)
	id := sessiontest.UniqueID(t)
	s, err := postgres.Open(t.Context(), pool, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteSession(t, pool, id) })
	if s.SessionID() != id {
		t.Fatalf("SessionID = %q, want %q", s.SessionID(), id)
	}
}

// The payload keeps the nanoseconds a timestamptz column rounds away.
func TestAppend_TimestampKeepsNanosecondsBeyondTimestamptz(t *testing.T) {
	s := openSession(t, sessiontest.UniqueID(t))
	ev := session.UserMessage(helikon.TextPart{Text: "t"})
	ev.Time = time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	if err := s.Append(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	var column time.Time
	if err := testPool(t).QueryRow(t.Context(), `SELECT ts FROM session_events WHERE session_id = $1`, s.SessionID()).Scan(&column); err != nil {
		t.Fatal(err)
	}
	if column.Nanosecond() != 123456000 {
		t.Fatalf("ts column = %v; expected microsecond rounding to show the payload is needed", column)
	}
	got, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Time.Equal(ev.Time) {
		t.Fatalf("Time = %v, want %v", got[0].Time, ev.Time)
	}
}

// A batch the server rejects (here: a NUL byte in the kind column, which a
// text column refuses) fails with the server's error, stores nothing, and
// the session (and its pool) keep working.
func TestAppend_ServerRejectionIsAtomicAndSessionUsable(t *testing.T) {
	s := openSession(t, sessiontest.UniqueID(t))
	bad := session.UserMessage(helikon.TextPart{Text: "fine"})
	bad.Kind = "user\x00message"
	err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "fine"}), bad)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22021" {
		t.Fatalf("Append with a NUL byte in a text column = %v, want PgError 22021", err)
	}
	if errors.Is(err, helikon.ErrSessionUnavailable) {
		t.Fatalf("a rejected payload must not read as an unavailable backend: %v", err)
	}
	evs, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 0 {
		t.Fatalf("a failed batch stored %d events", len(evs))
	}
	for range 3 { // more than once, so a connection left mid-transaction would show
		if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "ok"})); err != nil {
			t.Fatalf("Append after the failure: %v", err)
		}
	}
}

func TestAppend_UnreachableServerIsErrSessionUnavailable(t *testing.T) {
	pool, err := pgxpool.New(t.Context(), "postgres://postgres@127.0.0.1:1/test?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := postgres.OpenWithoutMigrate(pool, "x")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "lost?"}))
	if !errors.Is(err, helikon.ErrSessionUnavailable) {
		t.Fatalf("Append to a closed port = %v, want ErrSessionUnavailable", err)
	}
	if _, err := s.Events(t.Context(), helikon.Beginning); !errors.Is(err, helikon.ErrSessionUnavailable) {
		t.Fatalf("Events from a closed port = %v, want ErrSessionUnavailable", err)
	}
	if !strings.Contains(err.Error(), `session "x"`) {
		t.Fatalf("error %q does not name the session", err)
	}
}

func TestSession_SnapshotConformance(t *testing.T) {
	pool := testPool(t)
	sessiontest.RunSnapshots(t, func(t *testing.T, id string, every int) sessiontest.SnapshotSession {
		s, err := postgres.OpenWithoutMigrate(pool, id, postgres.WithSnapshotEvery(every))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			deleteSession(t, pool, id)
			if _, err := pool.Exec(context.Background(), `DELETE FROM session_snapshots WHERE session_id = $1`, id); err != nil {
				t.Errorf("cleanup of snapshot %q: %v", id, err)
			}
		})
		return s
	})
}

// Payloads are unwrapped by the reader: an event whose own text mentions
// the wrapper's key reads back as written, and so does one that was
// wrapped for its NUL characters.
func TestEvents_OnlyAWrappedPayloadIsUnwrapped(t *testing.T) {
	s := openSession(t, sessiontest.UniqueID(t))
	want := []helikon.SessionEvent{
		session.UserMessage(helikon.TextPart{Text: `{"helikon_payload":"not a wrapper"}`}),
		session.ToolCalled("c", "t", json.RawMessage(`{"helikon_payload":"an argument"}`)),
		session.UserMessage(helikon.TextPart{Text: "a NUL \x00 and the key helikon_payload"}),
	}
	if err := s.Append(t.Context(), want...); err != nil {
		t.Fatal(err)
	}
	got, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		g, _ := json.Marshal(helikon.SessionEvent{Kind: got[i].Kind, Content: got[i].Content, CallID: got[i].CallID, Name: got[i].Name, Args: got[i].Args})
		w, _ := json.Marshal(helikon.SessionEvent{Kind: want[i].Kind, Content: want[i].Content, CallID: want[i].CallID, Name: want[i].Name, Args: want[i].Args})
		if string(g) != string(w) {
			t.Errorf("event %d read back as %s, want %s", i, g, w)
		}
	}
}
