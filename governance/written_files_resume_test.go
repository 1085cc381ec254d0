package governance_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sqlite"
)

func writeCall(id, file string) mock.Script {
	b, _ := json.Marshal(writeArgs{FilePath: file, Content: "rm -rf ~"})
	return mock.ToolCalls(mock.Call{ID: id, Name: "Write", Args: string(b)})
}

func bashCallID(id, cmd string) mock.Script {
	b, _ := json.Marshal(bashArgs{Command: cmd})
	return mock.ToolCalls(mock.Call{ID: id, Name: "Bash", Args: string(b)})
}

// pausedOn reports whether res paused with a call asked about by who.
func pausedOn(res *helikon.RunResult, who string) bool {
	if res == nil || res.Paused == nil {
		return false
	}
	for _, p := range res.Paused.Pending {
		if p.AskedBy == who {
			return true
		}
	}
	return false
}

// roundTrip encodes and decodes a paused state, as a process that stores
// it and another that loads it do.
func roundTrip(t *testing.T, st *helikon.RunState) *helikon.RunState {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	out, err := helikon.UnmarshalRunState(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A script written before a pause and run after the resume is asked
// about, whether the resumed run shares the paused run's context or gets
// a new one (another process): the record is rebuilt from the
// conversation the paused state holds.
func TestWrittenFileGuard_AScriptWrittenBeforeAPauseAsksAfterTheResume(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		name := "same context"
		if fresh {
			name = "new context"
		}
		t.Run(name, func(t *testing.T) {
			rec := &recorder{output: "ok"}
			m := mock.Scripted(writeCall("w1", "x.sh"), bashCallID("b1", "rm -rf ~"), bashCallID("b2", "bash x.sh"), mock.Text("done"))
			agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool(), rec.writeTool()))
			rc := helikon.NewRunContext(governance.WithWrittenFileGuard())
			res, err := run(t, agent, rc)
			if !errors.Is(err, helikon.ErrPaused) || !pausedOn(res, "guard "+governance.GuardRecursiveRemove) {
				t.Fatalf("first run: err %v, want a pause on rm -rf ~", err)
			}
			if fresh {
				rc = helikon.NewRunContext(governance.WithWrittenFileGuard())
			}
			st := roundTrip(t, res.Paused)
			res, err = helikon.Collect(helikon.Resume(context.Background(), agent, rc, st,
				[]helikon.Decision{{ID: st.Pending[0].ID, Kind: helikon.DecisionReject}}))
			if !errors.Is(err, helikon.ErrPaused) || !pausedOn(res, "guard "+governance.GuardRunWrittenFile) {
				t.Fatalf("resumed run: err %v, ran %q; want bash x.sh asked about by the written-file guard", err, rec.ran)
			}
			if slices.Contains(rec.ran, "bash x.sh") {
				t.Errorf("bash x.sh ran: %q", rec.ran)
			}
		})
	}
}

// A write a human approved on a resume runs without another question; the
// record still learns what it wrote.
func TestWrittenFileGuard_AWriteApprovedOnAResumeIsRecorded(t *testing.T) {
	rec := &recorder{output: "ok"}
	m := mock.Scripted(writeCall("w1", "x.sh"), bashCallID("b1", "bash x.sh"), mock.Text("done"))
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool(), rec.writeTool()))
	askWrites := governance.PolicyFunc(func(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
		if req.Tool == "Write" {
			return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "write?"}
		}
		return governance.PermissionDecision{Behavior: governance.PermissionAllow}
	})
	rc := helikon.NewRunContext(governance.WithWrittenFileGuard(), governance.WithPermissionPolicy(askWrites))
	res, err := run(t, agent, rc)
	if !errors.Is(err, helikon.ErrPaused) {
		t.Fatalf("err %v, want a pause on the write", err)
	}
	st := res.Paused
	res, err = helikon.Collect(helikon.Resume(context.Background(), agent, rc, st,
		[]helikon.Decision{{ID: st.Pending[0].ID, Kind: helikon.DecisionApprove}}))
	if !errors.Is(err, helikon.ErrPaused) || !pausedOn(res, "guard "+governance.GuardRunWrittenFile) {
		t.Fatalf("resumed run: err %v, ran %q; want bash x.sh asked about", err, rec.ran)
	}
}

// A later run on a persistent session, in a process that did not see the
// write (a new database handle, a new context), asks before it runs a
// script an earlier run of the session wrote — also after the session was
// compacted, when the write is no longer in the conversation.
func TestWrittenFileGuard_ALaterRunOnAPersistentSessionAsks(t *testing.T) {
	for _, compacted := range []bool{false, true} {
		name := "plain"
		if compacted {
			name = "compacted"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			file := filepath.Join(t.TempDir(), "sessions.db")
			open := func() (*sqlite.Session, func()) {
				db, err := sqlite.OpenDB(ctx, file)
				if err != nil {
					t.Fatal(err)
				}
				s, err := sqlite.Open(ctx, db, "conv-1")
				if err != nil {
					t.Fatal(err)
				}
				return s, func() { db.Close() }
			}
			rec := &recorder{output: "ok"}
			sess, closeDB := open()
			m := mock.Scripted(writeCall("w1", "x.sh"), mock.Text("written"))
			agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool(), rec.writeTool()))
			rc := helikon.NewRunContext(helikon.WithSession(sess), governance.WithWrittenFileGuard())
			if _, err := runner.New().Run(ctx, agent, rc, helikon.UserText("write it")); err != nil {
				t.Fatal(err)
			}
			if compacted {
				evs, _ := sess.Events(ctx, helikon.Beginning)
				if err := sess.Append(ctx, session.Compacted("the user asked for a file", len(evs))); err != nil {
					t.Fatal(err)
				}
			}
			closeDB()

			sess, closeDB = open()
			defer closeDB()
			laterRunIsAsked(t, ctx, sess, rec, "b1", rec.writeTool())
		})
	}
}

// deadSession is a session backend that cannot be reached.
type deadSession struct{ helikon.Session }

func (deadSession) Events(context.Context, helikon.SequenceID) ([]helikon.SessionEvent, error) {
	return nil, helikon.ErrSessionUnavailable
}

// A session whose earlier calls cannot be read fails closed: what they
// wrote is not known, so a run of any file asks.
func TestWrittenFileGuard_AnUnreadableSessionLogAsksBeforeAnyRun(t *testing.T) {
	rec := &recorder{output: "ok"}
	m := mock.Scripted(bashCallID("b1", "bash ci.sh"), mock.Text("done"))
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool()))
	rc := helikon.NewRunContext(helikon.WithSession(deadSession{helikon.NewMemorySession()}), governance.WithWrittenFileGuard())
	res, err := run(t, agent, rc)
	if !errors.Is(err, helikon.ErrPaused) || !pausedOn(res, "guard "+governance.GuardRunWrittenFile) {
		t.Fatalf("err %v, ran %q; want bash ci.sh asked about", err, rec.ran)
	}
}

// Call ids are not unique across turns: an OpenAI-compatible server that
// sends none gets call_0 for the first call of every turn, a hostile
// model or log picks its own. A later run reads back every call of the
// session's log, including a write whose id an earlier, harmless call
// already used.
func TestWrittenFileGuard_ARepeatedCallIDDoesNotHideAWrite(t *testing.T) {
	ctx := context.Background()
	sess := helikon.NewMemorySession()
	rec := &recorder{output: "ok"}
	m := mock.Scripted(bashCallID("call_0", "ls"), writeCall("call_0", "x.sh"), mock.Text("written"))
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool(), rec.writeTool()))
	rc := helikon.NewRunContext(helikon.WithSession(sess), governance.WithWrittenFileGuard())
	if _, err := runner.New().Run(ctx, agent, rc, helikon.UserText("write it")); err != nil {
		t.Fatal(err)
	}
	laterRunIsAsked(t, ctx, sess, rec, "call_0", rec.writeTool())
}

// A sub-agent called as a tool writes through its own calls, which the
// session's log does not hold (the parent's conversation has the agent
// tool's call and answer only). A later run on the session that runs a
// file must not take the log for the whole story.
func TestWrittenFileGuard_AScriptASubAgentWroteAsksInALaterRun(t *testing.T) {
	ctx := context.Background()
	sess := helikon.NewMemorySession()
	rec := &recorder{output: "ok"}
	coder, _ := helikon.NewAgent("coder", mock.Scripted(writeCall("w1", "x.sh"), mock.Text("wrote it")),
		helikon.WithTools(rec.writeTool()))
	coderTool, err := helikon.AgentAsTool(coder)
	if err != nil {
		t.Fatal(err)
	}
	m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "a1", Name: coderTool.Name(), Args: `{"input":"write x.sh"}`}), mock.Text("done"))
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool(), coderTool))
	rc := helikon.NewRunContext(helikon.WithSession(sess), governance.WithWrittenFileGuard())
	if _, err := runner.New().Run(ctx, agent, rc, helikon.UserText("have it written")); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rec.ran, "x.sh") {
		t.Fatalf("the sub-agent did not write x.sh: %q", rec.ran)
	}
	laterRunIsAsked(t, ctx, sess, rec, "b1", coderTool)
}

// laterRunIsAsked runs "bash x.sh" as call callID in a new run on sess,
// with rec's Bash tool and other, and fails t unless the written-file
// guard asks about it.
func laterRunIsAsked(t *testing.T, ctx context.Context, sess helikon.Session, rec *recorder, callID string, other helikon.Tool) {
	t.Helper()
	m := mock.Scripted(bashCallID(callID, "bash x.sh"), mock.Text("done"))
	agent, err := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool(), other))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.NewRunContext(helikon.WithSession(sess), governance.WithWrittenFileGuard())
	res, err := runner.New().Run(ctx, agent, rc, helikon.UserText("run it"))
	if !errors.Is(err, helikon.ErrPaused) || !pausedOn(res, "guard "+governance.GuardRunWrittenFile) {
		t.Fatalf("later run: err %v, ran %q; want bash x.sh asked about", err, rec.ran)
	}
}
