package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sqlite"
)

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "helikon-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	db, err := sqlite.OpenDB(ctx, filepath.Join(dir, "sessions.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	sess, err := sqlite.Open(ctx, db, "user-42")
	if err != nil {
		log.Fatal(err)
	}

	err = sess.Append(ctx,
		session.UserMessage(helikon.TextPart{Text: "How am I doing on dining?"}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "82% of budget, with a week to go."}}, "budget-assistant"),
	)
	if err != nil {
		log.Fatal(err)
	}
	items, err := sess.Snapshot(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range items {
		fmt.Printf("%s: %s\n", it.Role, it.Text())
	}
	// Output:
	// user: How am I doing on dining?
	// assistant: 82% of budget, with a week to go.
}

// A server migrates once at startup, then opens sessions without the
// migration round trip on every request.
func ExampleOpenWithoutMigrate() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "helikon-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	db, err := sqlite.OpenDB(ctx, filepath.Join(dir, "sessions.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if err := sqlite.Migrate(ctx, db); err != nil {
		log.Fatal(err)
	}

	for _, id := range []string{"alice", "bob"} {
		sess, err := sqlite.OpenWithoutMigrate(db, id)
		if err != nil {
			log.Fatal(err)
		}
		if err := sess.Append(ctx, session.UserMessage(helikon.TextPart{Text: "hello from " + id})); err != nil {
			log.Fatal(err)
		}
	}
	bob, _ := sqlite.OpenWithoutMigrate(db, "bob")
	events, err := bob.Events(ctx, helikon.Beginning)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(events), events[0].Seq, events[0].Content[0].(helikon.TextPart).Text)
	// Output: 1 0 hello from bob
}
