// Package postgres stores [helikon.Session] logs in PostgreSQL, through
// pgx/v5's connection pool. It is the durable, shared store: many
// sessions, in any number of processes, live in one session_events table
// with a json payload, told apart by id.
//
// The smallest use:
//
//	pool, err := pgxpool.New(ctx, "postgres://user:pass@localhost/app")
//	if err != nil {
//		return err
//	}
//	defer pool.Close()
//	session, err := postgres.Open(ctx, pool, "user-42") // migrates, then opens
//
// [Open] runs the migrations on every call. A server that opens many
// sessions calls [Migrate] once at startup and [OpenWithoutMigrate] on the
// hot path. Migrations are idempotent and serialised by an advisory lock,
// so every replica of a service may run them at startup.
//
// # Concurrency
//
// Writers to one session serialise on a transaction-scoped advisory lock
// keyed on hashtextextended(session_id, 0), a 64-bit key, so writers to
// different sessions practically never wait for each other. Under the lock
// the append takes COALESCE(MAX(sequence), -1) + 1 as its first sequence id
// and inserts the whole batch in one statement. The transaction, lock and
// insert travel in one round trip.
//
// # The payload column
//
// The payload column is json, not jsonb: a load is mostly the server
// sending payloads, and json is sent as stored where jsonb is rendered
// anew for every row, which was half of a cold load's time. The package
// never queries inside a payload; ad-hoc queries keep json's -> and ->>
// operators (jsonb's containment operators and GIN indexes need a cast).
//
// Tables made by earlier versions have a jsonb column. [Migrate] converts
// a table of up to a million events by itself, a rewrite that holds an
// exclusive lock (0.72 s for 200,000 events where the package is tested);
// a larger table is left as it is, with a warning, for
// [ConvertPayloadColumn] to convert at a quiet hour. Sessions read and
// write either column type meanwhile, and the previous version's reads and
// writes keep working on the json column during a rolling upgrade.
//
// # NUL characters
//
// jsonb cannot hold the NUL character (SQLSTATE 22P05), and json's ->>
// fails on any value of a payload that holds one. An event whose JSON
// holds one is stored as a JSON string inside {"helikon_payload": …},
// where the NUL stays an escape sequence, and reads unwrap it: the event
// comes back byte for byte, but ad-hoc queries see the wrapper for it.
package postgres
