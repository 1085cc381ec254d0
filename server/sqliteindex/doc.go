// Package sqliteindex is a [server.RunIndex] in a SQLite database, such as
// the file a server's sessions live in (package session/sqlite), so that a
// restarted server lists the runs of the ones before it:
//
//	db, err := sqlite.OpenDB(ctx, "helikon.db")
//	if err != nil { … }
//	idx, err := sqliteindex.New(ctx, db)
//	if err != nil { … }
//	srv, err := server.New(agents, server.WithRunIndex(idx))
//
// The records live in the table helikon_runs, one row per run with the
// columns a listing filters on (owner, agent, session, creation time) and
// the record's JSON.
package sqliteindex
