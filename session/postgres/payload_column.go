package postgres

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"weak"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// convertLimit is the largest session_events table, in rows, that
// [Migrate] converts to a json payload column by itself. Converting
// rewrites the table under an exclusive lock: 200,000 events took 0.72 s
// on the machine the package is tested on, so a table of this size blocks
// the sessions for a few seconds once.
var convertLimit int64 = 1_000_000

// payloadColumnSQL reads the type of session_events.payload, as the
// session's search_path resolves the table.
const payloadColumnSQL = `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = 'session_events'::regclass AND attname = 'payload' AND NOT attisdropped`

// convertSQL gives session_events a json payload column. Wrapped payloads
// stay wrapped, as jsonb rendered them; reads unwrap both forms.
const convertSQL = `ALTER TABLE session_events ALTER COLUMN payload TYPE json USING payload::json`

// leftJSONB holds the pools whose table Migrate found too large to
// convert, so that later calls ([Open] runs Migrate every time) neither
// count its rows again nor warn again. It holds them weakly, each entry
// deleted once its pool is collected, so that a process opening pools
// one after another does not keep them all alive.
var leftJSONB sync.Map // weak.Pointer[pgxpool.Pool] → struct{}

// leaveJSONB records that pool's table is left jsonb, and reports whether
// it was already.
func leaveJSONB(pool *pgxpool.Pool) (already bool) {
	key := weak.Make(pool)
	if _, already = leftJSONB.LoadOrStore(key, struct{}{}); !already {
		runtime.AddCleanup(pool, func(k weak.Pointer[pgxpool.Pool]) { leftJSONB.Delete(k) }, key)
	}
	return already
}

// convertSmallPayloadColumn converts a jsonb payload column (the layout
// before json) when the table holds at most convertLimit rows, and warns,
// once a pool, when it leaves a larger one to [ConvertPayloadColumn].
//
// The column is json because reading a log is mostly the server sending
// payloads: json is sent as stored, where jsonb is rendered anew for every
// row, which took half of a cold load's time (docs/sessions.md). The
// package never needed jsonb's indexing, and json keeps the -> and ->>
// operators for ad-hoc queries.
func convertSmallPayloadColumn(ctx context.Context, pool *pgxpool.Pool, tx pgx.Tx) error {
	if _, left := leftJSONB.Load(weak.Make(pool)); left {
		return nil
	}
	var typ string
	if err := tx.QueryRow(ctx, payloadColumnSQL).Scan(&typ); err != nil || typ != "jsonb" {
		return err
	}
	var rows int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM session_events LIMIT $1) AS t`, convertLimit+1).Scan(&rows); err != nil {
		return err
	}
	if rows > convertLimit {
		if !leaveJSONB(pool) {
			slog.WarnContext(ctx, "postgres: session_events.payload is still jsonb: the table is too large to rewrite during Migrate; "+
				"loads read about half as fast until postgres.ConvertPayloadColumn runs",
				slog.Int64("rows_over", convertLimit))
		}
		return nil
	}
	// The rewrite waits for every transaction that touched the table, and
	// while it waits every read and append queues behind it: a replica
	// starting beside one long query would stall the fleet. So it waits
	// at most convertLockWait, in a savepoint, and on a timeout leaves the
	// conversion to the next Migrate.
	return pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
		if _, err := sp.Exec(ctx, `SET LOCAL lock_timeout = '`+convertLockWait+`'`); err != nil {
			return err
		}
		_, err := sp.Exec(ctx, convertSQL)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == lockNotAvailable {
			slog.WarnContext(ctx, "postgres: session_events.payload is still jsonb: the table was busy for "+convertLockWait+
				"; the next Migrate tries again", slog.String("error", pgErr.Message))
			return errLeftForLater
		}
		return err
	})
}

// convertLockWait is how long Migrate's conversion waits for the table, a
// PostgreSQL interval; a variable for tests.
var convertLockWait = "5s"

// lockNotAvailable is the SQLSTATE of a lock_timeout.
const lockNotAvailable = "55P03"

// errLeftForLater rolls back the savepoint of a conversion that timed out;
// Migrate itself succeeds.
var errLeftForLater = errors.New("postgres: conversion left for later")

// ConvertPayloadColumn converts the payload column of session_events
// from jsonb, the layout before this version, to json, whatever the
// table's size. [Migrate] does it itself for tables of up to a million
// events; a larger table is left to this call, because the conversion
// rewrites the table under an exclusive lock that blocks every session
// while it runs (about 3.6 s per million events where the package is
// tested). Sessions keep working on either column type, so it can wait
// for a quiet hour. It is a no-op on a json column.
func ConvertPayloadColumn(ctx context.Context, pool *pgxpool.Pool) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, migrationLockSQL); err != nil {
			return err
		}
		var typ string
		if err := tx.QueryRow(ctx, payloadColumnSQL).Scan(&typ); err != nil || typ != "jsonb" {
			return err
		}
		_, err := tx.Exec(ctx, convertSQL)
		return err
	})
	if err != nil {
		return wrap("convert the payload column", err)
	}
	leftJSONB.Delete(weak.Make(pool))
	return nil
}
