package governance_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sessioncache"
	"github.com/paigasus/helikon/session/sqlite"
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

// trimmedLog is a capped log whose front was trimmed: its first two
// events are gone (a Redis session's WithMaxLen).
type trimmedLog struct{ *helikon.MemorySession }

func (s trimmedLog) Events(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	evs, err := s.MemorySession.Events(ctx, max(after, 1))
	return evs, err
}

func (s trimmedLog) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	evs, err := s.Events(ctx, helikon.Beginning)
	return helikon.Project(evs), err
}

// A session behind a session cache is read through the cache's projection
// when that holds every call of the log; it must hold every write too: an
// earlier run's, one another handle appended after the cache loaded, and
// not when the projection cannot hold them (a compacted log, a trimmed
// one), where the log is read.
func TestRecall_ACachedSessionKeepsEveryWrite(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "cached.db")
	db, err := sqlite.OpenDB(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tt := range []struct {
		name string
		open func(t *testing.T, id string) helikon.Session
		// before writes x.sh into the session, behind the cache's back
		// where the case says so.
		before func(t *testing.T, s helikon.Session, cached helikon.Session)
	}{
		{"an earlier run's write", openSQLite(db), func(t *testing.T, _, cached helikon.Session) { writeRun(t, cached) }},
		{"a write another handle appended after the cache loaded", openSQLite(db), func(t *testing.T, s, cached helikon.Session) {
			if _, err := cached.(runner.SharedSnapshotter).SharedSnapshot(ctx); err != nil {
				t.Fatal(err)
			}
			writeRun(t, s)
		}},
		{"a compacted log", openSQLite(db), func(t *testing.T, s, cached helikon.Session) {
			writeRun(t, cached)
			evs, _ := s.Events(ctx, helikon.Beginning)
			if err := s.Append(ctx, session.Compacted("a file was written", len(evs))); err != nil {
				t.Fatal(err)
			}
		}},
		{"a trimmed log", func(*testing.T, string) helikon.Session { return trimmedLog{helikon.NewMemorySession()} }, func(t *testing.T, s, _ helikon.Session) {
			inner := s.(trimmedLog).MemorySession
			if err := inner.Append(ctx, session.ToolCalled("w1", "Write", []byte(`{"file_path":"x.sh","content":"rm -rf ~"}`)),
				session.ToolReturned("w1", helikon.TextPart{Text: "written"}), session.UserMessage(helikon.TextPart{Text: "later"})); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cache, err := sessioncache.New()
			if err != nil {
				t.Fatal(err)
			}
			s := tt.open(t, strings.ReplaceAll(tt.name, " ", "-"))
			cached := cache.Wrap("k", s)
			tt.before(t, s, cached)
			// What the log alone tells the record, without a conversation.
			rec := &recorder{output: "ok"}
			rc := helikon.NewRunContext(helikon.WithSession(cached), governance.WithWrittenFileGuard())
			rc.Authorizer().(helikon.Recaller).Recall(ctx, rc, nil, []helikon.Tool{rec.bashTool(), rec.writeTool()})
			args, _ := json.Marshal(bashArgs{Command: "bash x.sh"})
			if v := rc.Authorizer().Authorize(ctx, rc, helikon.PermissionRequest{Tool: "Bash", CallID: "b0", Args: args, Impl: rec.bashTool(), Effect: helikon.SideEffect}, deferAll{}); v.Allowed {
				t.Fatalf("bash x.sh allowed after a recall of the log alone (%s)", v.Reason)
			}
			laterRunIsAsked(t, ctx, cached, rec, "b1", rec.writeTool())
		})
	}
}

func openSQLite(db *sql.DB) func(t *testing.T, id string) helikon.Session {
	return func(t *testing.T, id string) helikon.Session {
		s, err := sqlite.Open(context.Background(), db, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// writeRun runs an agent on s that writes x.sh.
func writeRun(t *testing.T, s helikon.Session) {
	t.Helper()
	rec := &recorder{output: "ok"}
	agent, _ := helikon.NewAgent("ops", mock.Scripted(writeCall("w1", "x.sh"), mock.Text("written")), helikon.WithTools(rec.writeTool()))
	if _, err := runner.New().Run(context.Background(), agent, helikon.NewRunContext(helikon.WithSession(s)), helikon.UserText("write it")); err != nil {
		t.Fatal(err)
	}
}

// deferAll leaves every question to a human.
type deferAll struct{}

func (deferAll) Ask(context.Context, helikon.PermissionRequest, string, string) helikon.Verdict {
	return helikon.Verdict{Deferred: true}
}

// A system message given as a run's input is stored in the session's log
// as it was given (runner.SessionRecorder); it stands for no calls. The
// run that gives it, whose log does not hold it yet, asks before it runs a
// file; a later run on the session, whose conversation holds it from the
// log, does not take it for a summary the log cannot explain.
func TestWrittenFileGuard_ASystemMessageTheLogHoldsDoesNotAsk(t *testing.T) {
	ctx := context.Background()
	sess := helikon.NewMemorySession()
	rec := &recorder{output: "ok"}
	run := func(callID string, input []helikon.Item) (asked bool) {
		t.Helper()
		agent, _ := helikon.NewAgent("ops", mock.Scripted(bashCallID(callID, "bash ci.sh"), mock.Text("done")), helikon.WithTools(rec.bashTool()))
		rc := helikon.NewRunContext(helikon.WithSession(sess), governance.WithWrittenFileGuard())
		res, err := runner.New().Run(ctx, agent, rc, input)
		asked = errors.Is(err, helikon.ErrPaused) && pausedOn(res, "guard "+governance.GuardRunWrittenFile)
		if !asked && err != nil {
			t.Fatalf("run %s: %v", callID, err)
		}
		return asked
	}
	if !run("b1", append([]helikon.Item{helikon.SystemItem("The user is on call.")}, helikon.UserText("run ci")...)) {
		t.Fatalf("the run that gives the system message ran bash ci.sh unasked: %q", rec.ran)
	}
	if run("b2", helikon.UserText("run ci again")) {
		t.Fatalf("a later run asked about bash ci.sh, taking the stored system message for a summary")
	}
}
