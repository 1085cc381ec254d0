//go:build !nosqlite

package main

import (
	"context"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore"
	"github.com/paigasus/helikon/session/sqlite"
)

// sqliteSessions keeps each AgentCore session in one SQLite file.
func sqliteSessions(ctx context.Context, path string) (agentcore.SessionProvider, func(), error) {
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	return agentcore.SessionFunc(func(ctx context.Context, id string) (helikon.Session, error) {
		if id == "" {
			return helikon.NewMemorySession(), nil
		}
		return sqlite.Open(ctx, db, id)
	}), func() { db.Close() }, nil
}
