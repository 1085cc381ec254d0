package sqliteindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/paigasus/helikon/server"
)

// Index is a [server.RunIndex] in a SQLite database.
type Index struct {
	db *sql.DB
}

var _ server.RunIndex = (*Index)(nil)

const schema = `CREATE TABLE IF NOT EXISTS helikon_runs (
	id         TEXT PRIMARY KEY,
	owner      TEXT NOT NULL,
	agent      TEXT NOT NULL,
	session_id TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	info       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS helikon_runs_owner_created ON helikon_runs (owner, created_at DESC, id DESC)`

// New returns an index on db, creating its table if needed. The caller
// closes db.
func New(ctx context.Context, db *sql.DB) (*Index, error) {
	if db == nil {
		return nil, errors.New("sqliteindex: db is required")
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("sqliteindex: create table: %w", err)
	}
	return &Index{db: db}, nil
}

// Put stores the run's record, replacing the one under its id.
func (x *Index) Put(ctx context.Context, info server.RunInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("sqliteindex: put %s: %w", info.ID, err)
	}
	_, err = x.db.ExecContext(ctx, `INSERT INTO helikon_runs (id, owner, agent, session_id, created_at, info)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET info = excluded.info`,
		info.ID, info.Owner, info.Agent, info.SessionID, info.CreatedAt.UnixNano(), string(data))
	if err != nil {
		return fmt.Errorf("sqliteindex: put %s: %w", info.ID, err)
	}
	return nil
}

// Run returns the record of runID.
func (x *Index) Run(ctx context.Context, runID string) (server.RunInfo, error) {
	var data string
	err := x.db.QueryRowContext(ctx, `SELECT info FROM helikon_runs WHERE id = ?`, runID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return server.RunInfo{}, fmt.Errorf("%w: %s", server.ErrRunNotFound, runID)
	}
	if err != nil {
		return server.RunInfo{}, fmt.Errorf("sqliteindex: read %s: %w", runID, err)
	}
	return decode(data)
}

// Runs returns the records q selects, newest first.
func (x *Index) Runs(ctx context.Context, q server.RunQuery) ([]server.RunInfo, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = server.DefaultRunListLimit
	}
	all := 0
	if q.AllOwners {
		all = 1
	}
	rows, err := x.db.QueryContext(ctx, `SELECT info FROM helikon_runs
		WHERE (? = 1 OR owner = ?) AND (? = '' OR agent = ?) AND (? = '' OR session_id = ?)
		ORDER BY created_at DESC, id DESC LIMIT ?`,
		all, q.Owner, q.Agent, q.Agent, q.SessionID, q.SessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("sqliteindex: list runs: %w", err)
	}
	defer rows.Close()
	var out []server.RunInfo
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("sqliteindex: list runs: %w", err)
		}
		info, err := decode(data)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqliteindex: list runs: %w", err)
	}
	return out, nil
}

func decode(data string) (server.RunInfo, error) {
	var info server.RunInfo
	if err := json.Unmarshal([]byte(data), &info); err != nil {
		return server.RunInfo{}, fmt.Errorf("sqliteindex: a stored record is not JSON: %w", err)
	}
	return info, nil
}
