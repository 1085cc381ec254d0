package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sessiontest"
	"github.com/paigasus/helikon/session/sqlite"
)

func openDB(t testing.TB, opts ...sqlite.Option) *sql.DB {
	t.Helper()
	db, err := sqlite.OpenDB(context.Background(), filepath.Join(t.TempDir(), "sessions.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := sqlite.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestSession_Conformance(t *testing.T) {
	db := openDB(t)
	sessiontest.RunStore(t, func(t *testing.T, id string) helikon.Session {
		s, err := sqlite.OpenWithoutMigrate(db, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestOpenDB_DefaultsAreWALNormalAndBusyTimeout(t *testing.T) {
	db := openDB(t)
	for _, tc := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL
		{"busy_timeout", "5000"},
	} {
		var got string
		if err := db.QueryRow("PRAGMA " + tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
		}
	}
}

func TestOpenDB_RejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		path string
		opts []sqlite.Option
	}{
		{"in-memory", ":memory:", nil},
		{"in-memory URI", "file::memory:", nil},
		{"in-memory URI, escaped", "file:%3Amemory%3A", nil},
		{"temporary URI", "file:", nil},
		{"empty path", "", nil},
		{"query in path", filepath.Join(t.TempDir(), "x.db?mode=ro"), nil},
		{"zero busy timeout", filepath.Join(t.TempDir(), "x.db"), []sqlite.Option{sqlite.WithBusyTimeout(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if db, err := sqlite.OpenDB(t.Context(), tc.path, tc.opts...); err == nil {
				db.Close()
				t.Fatal("OpenDB succeeded, want an error")
			}
		})
	}
}

// TestOpenDB_PathIsTheFileNameOnBothDrivers: the DSN's parameters follow
// the path, so '&', '%', ';' and spaces in a plain path stay in the file's
// name, and a "file:" path is a URI, on modernc and on go-sqlite3 alike.
func TestOpenDB_PathIsTheFileNameOnBothDrivers(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]string{
		filepath.Join(dir, "a b&c;d.db"):       "a b&c;d.db",
		filepath.Join(dir, "%41.db"):           "%41.db",
		"file:" + filepath.Join(dir, "u.db"):   "u.db",
		"file:" + filepath.Join(dir, "%42.db"): "B.db",
	} {
		db, err := sqlite.OpenDB(t.Context(), path)
		if err != nil {
			t.Fatalf("OpenDB(%q): %v", path, err)
		}
		db.Close()
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("OpenDB(%q) created no %s: %v", path, want, err)
		}
	}
}

func TestOpen_EmptyIDRejected(t *testing.T) {
	db := openDB(t)
	if _, err := sqlite.Open(t.Context(), db, ""); !errors.Is(err, sqlite.ErrEmptyID) {
		t.Fatalf("Open with an empty id = %v, want ErrEmptyID", err)
	}
	if _, err := sqlite.OpenWithoutMigrate(db, ""); !errors.Is(err, sqlite.ErrEmptyID) {
		t.Fatalf("OpenWithoutMigrate with an empty id = %v, want ErrEmptyID", err)
	}
}

func TestMigrate_IdempotentAndPersistsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	db, err := sqlite.OpenDB(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(t.Context(), db, "user-42")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "remember me"})); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := sqlite.Migrate(t.Context(), db); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
	}
	db.Close()

	db, err = sqlite.OpenDB(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err = sqlite.Open(t.Context(), db, "user-42")
	if err != nil {
		t.Fatal(err)
	}
	items, err := s.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Text() != "remember me" {
		t.Fatalf("after reopening, Snapshot = %+v", items)
	}
}

// A writer holding the write lock longer than the busy timeout makes an
// append fail with ErrBusy; nothing is stored and the session works once
// the lock is released.
func TestAppend_BusyTimeoutFailsCleanlyAndSessionStaysUsable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	ctx := t.Context()
	db, err := sqlite.OpenDB(ctx, path, sqlite.WithBusyTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := sqlite.Open(ctx, db, "busy")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, session.UserMessage(helikon.TextPart{Text: "before"})); err != nil {
		t.Fatal(err)
	}

	// Another process's writer, modelled by a second pool on the same file.
	other, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	holder, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}

	err = s.Append(ctx, session.UserMessage(helikon.TextPart{Text: "blocked 1"}), session.UserMessage(helikon.TextPart{Text: "blocked 2"}))
	if !errors.Is(err, sqlite.ErrBusy) {
		t.Fatalf("Append while locked = %v, want ErrBusy", err)
	}
	evs, err := s.Events(ctx, helikon.Beginning) // WAL readers do not wait for writers
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 {
		t.Fatalf("after the failed append the log holds %d events, want 1", len(evs))
	}

	if _, err := holder.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, session.UserMessage(helikon.TextPart{Text: "after"})); err != nil {
		t.Fatalf("Append after the lock was released: %v", err)
	}
	evs, err = s.Events(ctx, helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[1].Seq != 1 || evs[1].Content[0].(helikon.TextPart).Text != "after" {
		t.Fatalf("log after recovery = %+v", evs)
	}
}

// Two pools on one file stand for two processes: their appends to one
// session serialise on the database's write lock.
func TestAppend_TwoPoolsOnOneFileStayContiguous(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	var sessions []*sqlite.Session
	for range 2 {
		db, err := sqlite.OpenDB(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := sqlite.Open(t.Context(), db, "shared")
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for range 50 {
				if err := sessions[w%2].Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "x"}), session.UserMessage(helikon.TextPart{Text: "y"})); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	evs, err := sessions[0].Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 800 {
		t.Fatalf("log holds %d events, want 800", len(evs))
	}
	for i, ev := range evs {
		if ev.Seq != helikon.SequenceID(i) {
			t.Fatalf("event %d has Seq %d", i, ev.Seq)
		}
		if want := []string{"x", "y"}[i%2]; ev.Content[0].(helikon.TextPart).Text != want {
			t.Fatalf("event %d = %q, want %q: a batch was interleaved", i, ev.Content[0].(helikon.TextPart).Text, want)
		}
	}
}

func TestSession_SnapshotConformance(t *testing.T) {
	db := openDB(t)
	sessiontest.RunSnapshots(t, func(t *testing.T, id string, every int) sessiontest.SnapshotSession {
		s, err := sqlite.OpenWithoutMigrate(db, id, sqlite.WithSnapshotEvery(every))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestOpen_SnapshotIntervalMustBePositive(t *testing.T) {
	db := openDB(t)
	for _, n := range []int{0, -1} {
		if _, err := sqlite.OpenWithoutMigrate(db, "x", sqlite.WithSnapshotEvery(n)); err == nil {
			t.Errorf("WithSnapshotEvery(%d) accepted", n)
		}
	}
}

// A load that folded the interval's worth of events stores a snapshot at
// the end of the log.
func TestSnapshot_LoadStoresTheProjectionEveryN(t *testing.T) {
	db := openDB(t)
	s, err := sqlite.OpenWithoutMigrate(db, "snap", sqlite.WithSnapshotEvery(3))
	if err != nil {
		t.Fatal(err)
	}
	stored := func() int64 {
		var seq int64 = -1
		_ = db.QueryRow(`SELECT sequence FROM session_snapshots WHERE session_id = 'snap'`).Scan(&seq)
		return seq
	}
	for i := range 2 {
		if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Snapshot(t.Context()); err != nil || stored() != -1 {
		t.Fatalf("after folding 2 of 3 events: %v, snapshot at %d, want none", err, stored())
	}
	if err := s.Append(t.Context(), session.UserMessage(helikon.TextPart{Text: "2"})); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(t.Context()); err != nil || stored() != 2 {
		t.Fatalf("after folding 3 events: %v, snapshot at %d, want 2", err, stored())
	}
}

// A row that is not one this package wrote (a payload that does not
// decode, a value of another type) is ErrSessionCorrupt, in a short read
// and in one long enough to decode on the second goroutine.
func TestEvents_AMalformedRowIsErrSessionCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name, payload string
		events        int
	}{
		{"JSON that does not decode, short read", `'{"type":'`, 5},
		{"JSON that does not decode, long read", `'{"type":'`, 2000},
		{"an integer payload", `42`, 5},
		{"a blob that is not JSON", `x'ff00'`, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			s, err := sqlite.OpenWithoutMigrate(db, "s")
			if err != nil {
				t.Fatal(err)
			}
			evs := make([]helikon.SessionEvent, tc.events)
			for i := range evs {
				evs[i] = session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i)})
			}
			if err := s.Append(t.Context(), evs...); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`UPDATE session_events SET payload = `+tc.payload+` WHERE sequence = ?`, tc.events-2); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Events(t.Context(), helikon.Beginning); !errors.Is(err, helikon.ErrSessionCorrupt) {
				t.Fatalf("Events over a malformed row = %v, want ErrSessionCorrupt", err)
			}
		})
	}
}
