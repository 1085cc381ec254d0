package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/postgres"
	"github.com/paigasus/helikon/session/sessiontest"
)

var schemaCounter atomic.Int64

// jsonbSchemaPool returns a pool whose search_path is a new schema holding
// the tables as the migrations before the json payload column left them
// (payload jsonb), with those migrations recorded as applied. The schema
// is dropped when the test ends.
func jsonbSchemaPool(t *testing.T) *pgxpool.Pool {
	pool, _ := jsonbSchema(t)
	return pool
}

// jsonbSchema is [jsonbSchemaPool], and returns the schema's name too.
func jsonbSchema(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	shared := testPool(t)
	schema := fmt.Sprintf("helikon_jsonb_%d_%d", time.Now().UnixNano(), schemaCounter.Add(1))
	if _, err := shared.Exec(t.Context(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := shared.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	cfg, err := pgxpool.ParseConfig(testURL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for _, name := range []string{"0001_session_events.sql", "0002_session_snapshots.sql"} {
		body, err := os.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(t.Context(), string(body)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := pool.Exec(t.Context(), `CREATE TABLE helikon_session_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
		INSERT INTO helikon_session_migrations (version) VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	if got := payloadColumnType(t, pool); got != "jsonb" {
		t.Fatalf("the earlier layout's payload column is %s, want jsonb", got)
	}
	return pool, schema
}

func payloadColumnType(t testing.TB, pool *pgxpool.Pool) string {
	t.Helper()
	var typ string
	if err := pool.QueryRow(t.Context(), postgres.PayloadColumnSQL).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	return typ
}

// loggedEvents is what the log tests append: every kind, and events whose
// JSON holds NUL characters (stored wrapped).
func loggedEvents() []helikon.SessionEvent {
	return append(sessiontest.AllKinds(),
		session.UserMessage(helikon.TextPart{Text: "before\x00after"}),
		session.ToolCalled("c\x001", "t", json.RawMessage(`{"q":"nul \u0000 here"}`)),
	)
}

func appendAndRead(t *testing.T, pool *pgxpool.Pool, id string, evs []helikon.SessionEvent) []helikon.SessionEvent {
	t.Helper()
	s, err := postgres.OpenWithoutMigrate(pool, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	return readAll(t, pool, id)
}

func readAll(t *testing.T, pool *pgxpool.Pool, id string) []helikon.SessionEvent {
	t.Helper()
	s, err := postgres.OpenWithoutMigrate(pool, id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// numbered returns evs as a log read back holds them from position from on.
func numbered(from int, evs ...helikon.SessionEvent) []helikon.SessionEvent {
	out := make([]helikon.SessionEvent, len(evs))
	for i, ev := range evs {
		ev.Seq = helikon.SequenceID(from + i)
		out[i] = ev
	}
	return out
}

func sameEvents(t *testing.T, what string, want, got []helikon.SessionEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i := range want {
		if d := sessiontest.DiffEvent(want[i], got[i]); d != "" {
			t.Errorf("%s: event %d: %s", what, i, d)
		}
	}
}

func TestMigrate_GivesANewDatabaseAJSONPayloadColumn(t *testing.T) {
	if got := payloadColumnType(t, testPool(t)); got != "json" {
		t.Fatalf("payload column after Migrate is %s, want json", got)
	}
}

func TestSession_ConformanceOnTheEarlierJSONBColumn(t *testing.T) {
	pool := jsonbSchemaPool(t)
	sessiontest.RunStore(t, func(t *testing.T, id string) helikon.Session {
		s, err := postgres.OpenWithoutMigrate(pool, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestMigrate_ConvertsAJSONBColumnAndEveryEventReadsAsItDidBefore(t *testing.T) {
	pool := jsonbSchemaPool(t)
	id := sessiontest.UniqueID(t)
	logged := loggedEvents()
	before := appendAndRead(t, pool, id, logged)
	sameEvents(t, "on jsonb", numbered(0, logged...), before)
	if err := postgres.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	if got := payloadColumnType(t, pool); got != "json" {
		t.Fatalf("payload column after Migrate is %s, want json", got)
	}
	sameEvents(t, "after the conversion", before, readAll(t, pool, id))
	// Events appended after the conversion follow on, and the wrapped
	// payloads of both forms (jsonb's rendering, this package's) unwrap.
	more := loggedEvents()
	after := appendAndRead(t, pool, id, more)
	sameEvents(t, "appended after the conversion", append(before, numbered(len(before), more...)...), after)
}

func TestMigrate_LeavesALargeJSONBColumnToConvertPayloadColumn(t *testing.T) {
	pool := jsonbSchemaPool(t)
	id := sessiontest.UniqueID(t)
	before := appendAndRead(t, pool, id, loggedEvents())
	defer postgres.SetConvertLimit(int64(len(before) - 1))()
	var logged bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	for range 3 { // as Open would, on every call
		if err := postgres.Migrate(t.Context(), pool); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logged.String(), "still jsonb"); n != 1 {
		t.Fatalf("three Migrate calls on a large jsonb table warned %d times, want once:\n%s", n, logged.String())
	}
	if got := payloadColumnType(t, pool); got != "jsonb" {
		t.Fatalf("payload column of a table over the limit is %s after Migrate, want jsonb left as it was", got)
	}
	if err := postgres.ConvertPayloadColumn(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	if got := payloadColumnType(t, pool); got != "json" {
		t.Fatalf("payload column after ConvertPayloadColumn is %s, want json", got)
	}
	sameEvents(t, "after ConvertPayloadColumn", before, readAll(t, pool, id))
	if err := postgres.ConvertPayloadColumn(t.Context(), pool); err != nil {
		t.Fatalf("ConvertPayloadColumn on a json column = %v, want a no-op", err)
	}
}

// During a rolling upgrade the previous version still writes (a jsonb
// cast, which the json column takes by assignment) and reads (->> on the
// column) beside this one.
func TestPayloadColumn_ThePreviousVersionReadsAndWritesBesideThisOne(t *testing.T) {
	pool := testPool(t)
	id := sessiontest.UniqueID(t)
	t.Cleanup(func() { deleteSession(t, pool, id) })
	ours := appendAndRead(t, pool, id, loggedEvents())
	// The previous version's append, as it was.
	previous := loggedEvents()
	for i, ev := range previous {
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		stored := string(payload)
		if strings.Contains(stored, `\u0000`) {
			w, _ := json.Marshal(map[string]string{"helikon_payload": stored})
			stored = string(w)
		}
		if _, err := pool.Exec(t.Context(), `INSERT INTO session_events (session_id, sequence, kind, ts, payload) VALUES ($1, $2, $3, now(), $4::jsonb)`,
			id, len(ours)+i, string(ev.Kind), stored); err != nil {
			t.Fatalf("the previous version's insert: %v", err)
		}
	}
	want := append(ours, numbered(len(ours), previous...)...)
	sameEvents(t, "this version reading both", want, readAll(t, pool, id))
	old, err := legacyEvents(t.Context(), pool, id)
	if err != nil {
		t.Fatalf("the previous version's read: %v", err)
	}
	sameEvents(t, "the previous version reading both", want, old)
}

// Every connection of a pool prepares the read for itself, so after the
// column changes type each one is stale until its next read fails once:
// reads retry past as many stale connections as the pool has, whatever
// order they meet them in.
func TestEvents_ReadPastEveryStaleConnectionOfThePool(t *testing.T) {
	pool := jsonbSchemaPool(t)
	id := sessiontest.UniqueID(t)
	want := appendAndRead(t, pool, id, loggedEvents())
	conns := int(pool.Config().MaxConns)
	readAtOnce := func() error {
		var wg sync.WaitGroup
		errs := make(chan error, conns)
		for range conns {
			wg.Go(func() {
				s, err := postgres.OpenWithoutMigrate(pool, id)
				if err == nil {
					var got []helikon.SessionEvent
					if got, err = s.Events(t.Context(), helikon.Beginning); err == nil && len(got) != len(want) {
						err = fmt.Errorf("read %d events, want %d", len(got), len(want))
					}
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		var all []error
		for err := range errs {
			all = append(all, err)
		}
		return errors.Join(all...)
	}
	for round, typ := range []string{"json", "jsonb", "json", "jsonb", "json", "jsonb", "json", "jsonb"} {
		if err := readAtOnce(); err != nil { // every connection prepares the read
			t.Fatalf("round %d, before the change: %v", round, err)
		}
		if _, err := pool.Exec(t.Context(), `ALTER TABLE session_events ALTER COLUMN payload TYPE `+typ+` USING payload::`+typ); err != nil {
			t.Fatal(err)
		}
		if err := readAtOnce(); err != nil {
			t.Fatalf("round %d, after the column became %s: %v", round, typ, err)
		}
	}
}

// A conversion that would wait behind a long transaction on the table
// gives up after its lock wait instead of stalling every session behind
// it: Migrate succeeds, warns, leaves the column jsonb, and converts it
// once the table is free.
func TestMigrate_LeavesTheConversionForLaterWhenTheTableIsBusy(t *testing.T) {
	pool := jsonbSchemaPool(t)
	id := sessiontest.UniqueID(t)
	before := appendAndRead(t, pool, id, loggedEvents())
	defer postgres.SetConvertLockWait("100ms")()
	var logged bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))

	busy, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Rollback(context.Background())
	if _, err := busy.Exec(t.Context(), `SELECT count(*) FROM session_events`); err != nil {
		t.Fatal(err)
	}
	if err := postgres.Migrate(t.Context(), pool); err != nil {
		t.Fatalf("Migrate beside a busy table = %v, want it to leave the conversion for later", err)
	}
	if got := payloadColumnType(t, pool); got != "jsonb" || !strings.Contains(logged.String(), "busy") {
		t.Fatalf("beside a busy table the column is %s, log %q; want jsonb and a warning", got, logged.String())
	}
	if err := busy.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := postgres.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	if got := payloadColumnType(t, pool); got != "json" {
		t.Fatalf("once the table is free the column is %s, want json", got)
	}
	sameEvents(t, "after the later conversion", before, readAll(t, pool, id))
}

// Migrate remembers the pools whose table it left jsonb without keeping
// them alive: a pool closed and dropped leaves the memo.
func TestMigrate_ForgetsAPoolLeftJSONBOnceItIsGone(t *testing.T) {
	pool, schema := jsonbSchema(t)
	appendAndRead(t, pool, sessiontest.UniqueID(t), loggedEvents())
	defer postgres.SetConvertLimit(1)()
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	before := postgres.LeftJSONBPools()
	func() {
		cfg, err := pgxpool.ParseConfig(testURL())
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.RuntimeParams["search_path"] = schema
		p, err := pgxpool.NewWithConfig(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if err := postgres.Migrate(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if n := postgres.LeftJSONBPools(); n != before+1 {
			t.Fatalf("Migrate left a large table jsonb and remembers %d pools, want %d", n, before+1)
		}
	}()
	for range 100 {
		runtime.GC()
		if postgres.LeftJSONBPools() == before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("a dropped pool is still remembered (%d pools, want %d)", postgres.LeftJSONBPools(), before)
}
