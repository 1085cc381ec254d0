package cli

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/sqliteindex"
	"github.com/paigasus/helikon/session/sqlite"
)

// serveDB opens the SQLite file of serve --db: the sessions live there,
// and the index of runs beside them, so a restarted serve lists the runs
// of the one before. The caller closes the returned database.
func serveDB(ctx context.Context, path string) (*sql.DB, server.SessionProvider, []server.Option, error) {
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := sqlite.Migrate(ctx, db); err != nil {
		db.Close()
		return nil, nil, nil, fmt.Errorf("serve --db %s: %w", path, err)
	}
	idx, err := sqliteindex.New(ctx, db)
	if err != nil {
		db.Close()
		return nil, nil, nil, fmt.Errorf("serve --db %s: %w", path, err)
	}
	sessions := server.SessionFunc(func(ctx context.Context, id string) (helikon.Session, error) {
		if id == "" {
			return helikon.NewMemorySession(), nil
		}
		return sqlite.OpenWithoutMigrate(db, id)
	})
	return db, sessions, []server.Option{server.WithSessionProvider(sessions), server.WithRunIndex(idx)}, nil
}
