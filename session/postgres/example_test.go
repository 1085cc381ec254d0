package postgres_test

import (
	"context"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/postgres"
)

// This example needs a PostgreSQL server, so it is compiled but not run.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://postgres@127.0.0.1:5432/test")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	// Once at startup: idempotent, and safe from every replica at once.
	if err := postgres.Migrate(ctx, pool); err != nil {
		log.Fatal(err)
	}
	// Per request: no I/O.
	sess, err := postgres.OpenWithoutMigrate(pool, "user-42")
	if err != nil {
		log.Fatal(err)
	}
	if err := sess.Append(ctx, session.UserMessage(helikon.TextPart{Text: "How am I doing on dining?"})); err != nil {
		log.Fatal(err)
	}
	history, err := sess.Snapshot(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(history), "messages")
}
