// Package sqlitesink records eval runs in a SQLite file, through the same
// driver the session backend uses (modernc.org/sqlite, pure Go, or
// go-sqlite3 with the sqlite_cgo build tag; see session/sqlite): tables
// eval_runs, eval_cases and eval_events, the events in the canonical
// [helikon.SessionEvent] form. The schema's migrations are embedded and
// applied on first use.
//
//	sink, err := sqlitesink.New("evals.db")
//	run, err := evals.NewRun(ds, evals.WithAgentFactory(f), evals.WithSinks(sink))
//
// Query it with any SQLite client:
//
//	SELECT case_id, status FROM eval_cases WHERE run_id = ? ORDER BY case_index;
package sqlitesink

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/session/sqlite"
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrRunRecorded reports a run id the database already holds.
var ErrRunRecorded = errors.New("sqlitesink: run already recorded")

// Sink records reports in the SQLite file at its path.
type Sink struct {
	path string
}

var _ evals.Sink = (*Sink)(nil)

// New returns a sink writing to the database file at path, created on
// first use.
func New(path string) (*Sink, error) {
	if path == "" {
		return nil, errors.New("sqlitesink: path is required")
	}
	return &Sink{path: path}, nil
}

// Path returns the database file's path.
func (s *Sink) Path() string { return s.path }

// Record writes the run, its cases and their events in one transaction,
// after bringing the schema up to date. A run id already recorded fails
// with [ErrRunRecorded] and writes nothing.
func (s *Sink) Record(ctx context.Context, rep *evals.Report) error {
	if rep.RunID == "" {
		return errors.New("sqlitesink: the report has no run id")
	}
	db, err := sqlite.OpenDB(ctx, s.path)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlitesink: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = ON"); err != nil {
		return fmt.Errorf("sqlitesink: %w", err)
	}
	// IMMEDIATE takes the write lock up front, so that two recorders never
	// deadlock upgrading read locks.
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("sqlitesink: %w", err)
	}
	if err := migrate(ctx, conn); err != nil {
		rollback(conn)
		return err
	}
	if err := write(ctx, conn, rep); err != nil {
		rollback(conn)
		return err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		rollback(conn)
		return fmt.Errorf("sqlitesink: commit: %w", err)
	}
	return nil
}

func migrate(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS helikon_eval_migrations (
		version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("sqlitesink: migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sqlitesink: migrate: %w", err)
	}
	for _, name := range names { // sorted; names start with a zero-padded version
		base := strings.TrimPrefix(name, "migrations/")
		version, err := strconv.Atoi(base[:strings.IndexByte(base, '_')])
		if err != nil {
			return fmt.Errorf("sqlitesink: migration %s: bad version: %w", base, err)
		}
		var applied int
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM helikon_eval_migrations WHERE version = ?`, version).Scan(&applied); err != nil {
			return fmt.Errorf("sqlitesink: migrate: %w", err)
		}
		if applied > 0 {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("sqlitesink: migration %s: %w", base, err)
		}
		if _, err := conn.ExecContext(ctx, string(body)); err != nil {
			return fmt.Errorf("sqlitesink: migration %s: %w", base, err)
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO helikon_eval_migrations (version, applied_at) VALUES (?, ?)`,
			version, time.Now().UnixNano()); err != nil {
			return fmt.Errorf("sqlitesink: migration %s: %w", base, err)
		}
	}
	return nil
}

func write(ctx context.Context, conn *sql.Conn, rep *evals.Report) error {
	var exists int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM eval_runs WHERE run_id = ?`, rep.RunID).Scan(&exists); err != nil {
		return fmt.Errorf("sqlitesink: %w", err)
	}
	if exists > 0 {
		return fmt.Errorf("%w: %q", ErrRunRecorded, rep.RunID)
	}
	sum := &rep.Summary
	if _, err := conn.ExecContext(ctx, `INSERT INTO eval_runs (run_id, dataset, started_at, duration_ns, evaluators,
		cases, passed, failed, errors, mean_score, input_tokens, output_tokens, cost, summary)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		rep.RunID, rep.Dataset, rep.StartedAt.UTC().Format(time.RFC3339Nano), int64(rep.Duration), mustJSON(rep.Evaluators),
		sum.Cases, sum.Passed, sum.Failed, sum.Errors, sum.MeanScore,
		sum.Usage.InputTokens, sum.Usage.OutputTokens, sum.Usage.Cost, mustJSON(sum)); err != nil {
		return fmt.Errorf("sqlitesink: insert run: %w", err)
	}
	caseStmt, err := conn.PrepareContext(ctx, `INSERT INTO eval_cases (run_id, case_index, case_id, line, input,
		expected, expected_tools, metadata, status, output, error, scores, input_tokens, output_tokens, cost,
		started_at, duration_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("sqlitesink: %w", err)
	}
	defer caseStmt.Close()
	evStmt, err := conn.PrepareContext(ctx, `INSERT INTO eval_events (run_id, case_index, sequence, kind, ts, payload)
		VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("sqlitesink: %w", err)
	}
	defer evStmt.Close()
	for i := range rep.Cases {
		c := &rep.Cases[i]
		var expected, tools, meta any
		if c.Case.Expected != nil {
			expected = string(c.Case.Expected)
		}
		if c.Case.ExpectedTools != nil {
			tools = mustJSON(c.Case.ExpectedTools)
		}
		if c.Case.Metadata != nil {
			meta = mustJSON(c.Case.Metadata)
		}
		var errText any
		if c.Error != "" {
			errText = c.Error
		}
		scores := c.Scores
		if scores == nil {
			scores = []evals.Score{}
		}
		if _, err := caseStmt.ExecContext(ctx, rep.RunID, c.Index, c.Case.ID, c.Case.Line, c.Case.Input,
			expected, tools, meta, string(c.Status()), c.Output, errText, mustJSON(scores),
			c.Usage.InputTokens, c.Usage.OutputTokens, c.Usage.Cost,
			c.StartedAt.UTC().Format(time.RFC3339Nano), int64(c.Duration)); err != nil {
			return fmt.Errorf("sqlitesink: insert case %s: %w", c.Case.ID, err)
		}
		for seq, ev := range c.Trace {
			ev.Seq = helikon.SequenceID(seq)
			payload, err := json.Marshal(ev)
			if err != nil {
				return fmt.Errorf("sqlitesink: case %s event %d: %w", c.Case.ID, seq, err)
			}
			if _, err := evStmt.ExecContext(ctx, rep.RunID, c.Index, seq, string(ev.Kind), ev.Time.UnixNano(), string(payload)); err != nil {
				return fmt.Errorf("sqlitesink: insert case %s event %d: %w", c.Case.ID, seq, err)
			}
		}
	}
	return nil
}

// mustJSON encodes values that always encode (strings, numbers, maps of
// decoded JSON).
func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(data)
}

// rollback ends a failed transaction on a context of its own, since the
// caller's may be what failed; a connection that cannot roll back is
// dropped from the pool.
func rollback(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}
