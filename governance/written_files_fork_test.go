package governance_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session"
)

// A checkpoint taken after a compaction holds the summary, not the calls
// it replaced; forked into a new session, neither the fork's conversation
// nor its session's log holds the write of x.sh. The fork, and a later run
// on the fork's session, must not take that for a history without writes:
// a run of a file asks.
func TestWrittenFileGuard_AForkOfACompactedConversationAsks(t *testing.T) {
	ctx := context.Background()
	orig := helikon.NewMemorySession()
	rec := &recorder{output: "ok"}
	agent, _ := helikon.NewAgent("ops", mock.Scripted(writeCall("w1", "x.sh"), mock.Text("written")),
		helikon.WithTools(rec.bashTool(), rec.writeTool()))
	rc := helikon.NewRunContext(helikon.WithSession(orig), governance.WithWrittenFileGuard())
	if _, err := runner.New().Run(ctx, agent, rc, helikon.UserText("write it")); err != nil {
		t.Fatal(err)
	}
	evs, _ := orig.Events(ctx, helikon.Beginning)
	if err := orig.Append(ctx, session.Compacted("the user asked for a file", len(evs))); err != nil {
		t.Fatal(err)
	}

	// A later run on the compacted session; its first model call's
	// checkpoint is the fork point.
	var point []byte
	agent, _ = helikon.NewAgent("ops", mock.Scripted(mock.Text("fine")), helikon.WithTools(rec.bashTool(), rec.writeTool()))
	rc = helikon.NewRunContext(helikon.WithSession(orig), governance.WithWrittenFileGuard(),
		helikon.WithModelCallObserver(func(_ context.Context, c *helikon.ModelCall) {
			if point == nil {
				point, _ = json.Marshal(c.Checkpoint)
			}
		}))
	if _, err := runner.New().Run(ctx, agent, rc, helikon.UserText("how is it going")); err != nil {
		t.Fatal(err)
	}
	var cp helikon.Checkpoint
	if err := json.Unmarshal(point, &cp); err != nil {
		t.Fatal(err)
	}

	fork := helikon.NewMemorySession()
	agent, _ = helikon.NewAgent("ops", mock.Scripted(bashCallID("b1", "bash x.sh"), mock.Text("done")),
		helikon.WithTools(rec.bashTool(), rec.writeTool()))
	rc = helikon.NewRunContext(helikon.WithSession(fork), governance.WithWrittenFileGuard())
	res, err := runner.New().Fork(ctx, agent, rc, &cp, runner.ForkEdit{})
	if !errors.Is(err, helikon.ErrPaused) || !pausedOn(res, "guard "+governance.GuardRunWrittenFile) {
		t.Fatalf("fork: err %v, ran %q; want bash x.sh asked about", err, rec.ran)
	}
	if slices.Contains(rec.ran, "bash x.sh") {
		t.Fatalf("bash x.sh ran in the fork: %q", rec.ran)
	}
	laterRunIsAsked(t, ctx, fork, rec, "b2", rec.writeTool())
}

// The summary rule spares a compacted session whose log holds the calls
// before the compaction: with no write among them, a run of a file the
// run did not write passes the guard, and a compacted pause resumed
// without its session (nothing to explain the summary) asks.
func TestWrittenFileGuard_ASummaryAsksOnlyWhenTheLogDoesNotExplainIt(t *testing.T) {
	ctx := context.Background()
	sess := helikon.NewMemorySession()
	rec := &recorder{output: "ok"}
	agent, _ := helikon.NewAgent("ops", mock.Scripted(bashCallID("l1", "ls"), mock.Text("listed")),
		helikon.WithTools(rec.bashTool(), rec.writeTool()))
	if _, err := runner.New().Run(ctx, agent, helikon.NewRunContext(helikon.WithSession(sess), governance.WithWrittenFileGuard()),
		helikon.UserText("look around")); err != nil {
		t.Fatal(err)
	}
	evs, _ := sess.Events(ctx, helikon.Beginning)
	if err := sess.Append(ctx, session.Compacted("the user looked around", len(evs))); err != nil {
		t.Fatal(err)
	}
	history, _ := sess.Snapshot(ctx)
	if len(history) == 0 || history[0].Role != helikon.RoleSystem {
		t.Fatalf("history %v does not open with the summary", history)
	}
	for _, tt := range []struct {
		name  string
		sess  helikon.Session
		asked bool
	}{
		{"the log holds the compaction", sess, false},
		{"no session", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var opts []helikon.ContextOption
			if tt.sess != nil {
				opts = append(opts, helikon.WithSession(tt.sess))
			}
			rc := helikon.NewRunContext(append(opts, governance.WithWrittenFileGuard())...)
			agent, _ := helikon.NewAgent("ops", mock.Scripted(bashCallID("b1", "bash ci.sh"), mock.Text("done")), helikon.WithTools(rec.bashTool()))
			res, err := helikon.Collect(agent.Run(ctx, rc, append(history, helikon.UserText("run ci")...)))
			if asked := errors.Is(err, helikon.ErrPaused) && pausedOn(res, "guard "+governance.GuardRunWrittenFile); asked != tt.asked {
				t.Fatalf("err %v, ran %q: asked %v, want %v", err, rec.ran, asked, tt.asked)
			}
		})
	}
}
