package compaction_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/compaction"
)

func ExampleNew() {
	ctx := context.Background()
	// Any model summarises; a scripted one stands in here.
	summariser := mock.Scripted(mock.Text("User is tracking a $500 dining budget; $412.50 spent so far."))
	sess, err := compaction.New(helikon.NewMemorySession(), summariser, 50)
	if err != nil {
		log.Fatal(err)
	}

	long := strings.Repeat("Tell me about every dining purchase this month. ", 5)
	if err := sess.Append(ctx,
		session.UserMessage(helikon.TextPart{Text: long}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "You spent $412.50 across 14 purchases."}}, "budget"),
	); err != nil {
		log.Fatal(err)
	}

	history, err := sess.Snapshot(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range history {
		fmt.Printf("%s: %s\n", it.Role, it.Text())
	}
	// Output:
	// system: User is tracking a $500 dining budget; $412.50 spent so far.
}

// With a keep-recent window the newest turns stay verbatim after the
// summary.
func ExampleWithKeepRecentTurns() {
	ctx := context.Background()
	summariser := mock.Scripted(mock.Text("Earlier: the user set a $500 dining budget."))
	sess, err := compaction.New(helikon.NewMemorySession(), summariser, 25,
		compaction.WithKeepRecentTurns(1))
	if err != nil {
		log.Fatal(err)
	}
	turns := []string{
		"Set my dining budget to $500 for this month, and remind me when I pass 80%.",
		"How am I doing?",
	}
	for _, q := range turns {
		if err := sess.Append(ctx,
			session.UserMessage(helikon.TextPart{Text: q}),
			session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "Noted: 82% used."}}, "budget"),
		); err != nil {
			log.Fatal(err)
		}
	}
	history, _ := sess.Snapshot(ctx)
	for _, it := range history {
		fmt.Printf("%s: %s\n", it.Role, it.Text())
	}
	// Output:
	// system: Earlier: the user set a $500 dining budget.
	// user: How am I doing?
	// assistant: Noted: 82% used.
}
