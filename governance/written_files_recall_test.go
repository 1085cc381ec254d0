package governance

import (
	"context"
	"fmt"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/session"
)

// A run's first agent reads back calls of a tool only a handoff target
// has, to read them when that agent starts. Past the bound of such calls,
// a log that a model filled with them must not drop the write that
// follows: the record then says it does not know every write, and a run
// of any file asks.
func TestRecall_CallsOfAnUnknownToolPastTheBoundFailClosed(t *testing.T) {
	ctx := context.Background()
	save := notes{kindTool{name: "save_note"}}
	sh := kindTool{name: "Bash"}
	var conv []helikon.Item
	for i := range maxWrittenFiles {
		conv = append(conv, helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			helikon.ToolUsePart{CallID: fmt.Sprint("n", i), Name: "save_note", Args: []byte(`{"to":"notes.txt"}`)}}})
	}
	conv = append(conv, helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
		helikon.ToolUsePart{CallID: "last", Name: "save_note", Args: []byte(`{"to":"x.sh"}`)}}})

	rc := helikon.NewRunContext(WithWrittenFileGuard())
	r := rc.Authorizer().(helikon.Recaller)
	r.Recall(ctx, rc, conv, []helikon.Tool{sh})      // the triage agent: no save_note
	r.Recall(ctx, rc, nil, []helikon.Tool{sh, save}) // the handoff target has it
	if a := authorize(rc, ctx, bash("bash x.sh")); a.allowed {
		t.Fatalf("bash x.sh allowed (%s): the write of x.sh was dropped", a.reason)
	}
}

// readOnlyTool declares it changes nothing.
type readOnlyTool struct{ kindTool }

func (readOnlyTool) Effect() helikon.ToolEffect { return helikon.ReadOnly }

// readOnlyShell is a shell tool that declares it changes nothing.
type readOnlyShell struct{ runCommand }

func (readOnlyShell) Effect() helikon.ToolEffect { return helikon.ReadOnly }

// TestMayWrite_OnlyAnAgentOfReadOnlyToolsCannotHaveWritten pins the false
// alarms the sub-agent rule spares: a sub-agent that only reads (also
// through the agents it calls, cycles included) wrote nothing.
func TestMayWrite_OnlyAnAgentOfReadOnlyToolsCannotHaveWritten(t *testing.T) {
	agent := func(name string, tools ...helikon.Tool) *helikon.LLMAgent {
		a, err := helikon.NewAgent(name, mock.Scripted(mock.Text("ok")), helikon.WithTools(tools...))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	asTool := func(a helikon.Agent) helikon.Tool {
		at, err := helikon.AgentAsTool(a)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	reader := agent("reader", readOnlyTool{kindTool{name: "grep"}})
	writer := agent("writer", readOnlyTool{kindTool{name: "grep"}}, notes{kindTool{name: "save_note"}})
	for _, tt := range []struct {
		name string
		a    helikon.Agent
		want bool
	}{
		{"read-only tools", reader, false},
		{"a tool that may write", writer, true},
		{"calls a reader", agent("lead", asTool(reader)), false},
		{"calls a writer", agent("lead", asTool(writer)), true},
		{"a shell declared read-only", agent("sh", readOnlyShell{runCommand{kindTool{name: "run_command"}}}), true},
		{"a Bash declared read-only", agent("sh", readOnlyTool{kindTool{name: "Bash"}}), true},
	} {
		if got := mayWrite(tt.a, nil); got != tt.want {
			t.Errorf("%s: mayWrite = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// slowLog is a session whose log read waits until released, as a remote
// store's does.
type slowLog struct {
	helikon.Session
	entered, release chan struct{}
}

func (s slowLog) Events(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	close(s.entered)
	<-s.release
	return s.Session.Events(ctx, after)
}

// Agents of one run that start together (workflow.Parallel's children)
// share the record, and only the first reads the session's log. A call of
// another authorized while that read is under way must not pass for one
// of a run that wrote nothing.
func TestRecall_ACallAuthorizedWhileTheLogIsReadAsks(t *testing.T) {
	ctx := context.Background()
	mem := helikon.NewMemorySession()
	if err := mem.Append(ctx, session.ToolCalled("w1", "Write", []byte(`{"file_path":"x.sh","content":"rm -rf ~"}`))); err != nil {
		t.Fatal(err)
	}
	sess := slowLog{mem, make(chan struct{}), make(chan struct{})}
	rc := helikon.NewRunContext(helikon.WithSession(sess), WithWrittenFileGuard())
	r := rc.Authorizer().(helikon.Recaller)
	first := make(chan struct{})
	go func() {
		defer close(first)
		r.Recall(ctx, rc.Child(), nil, nil)
	}()
	<-sess.entered
	r.Recall(ctx, rc.Child(), nil, nil) // the second agent: the log is being read
	a := authorize(rc.Child(), ctx, bash("bash x.sh"))
	close(sess.release)
	<-first
	if a.allowed {
		t.Fatalf("bash x.sh allowed while the log holding its write was being read (%s)", a.reason)
	}
	if a := authorize(rc, ctx, bash("bash x.sh")); a.allowed {
		t.Fatalf("bash x.sh allowed after the read (%s)", a.reason)
	}
}

// A shell call the rules cannot read still runs when no rule is there to
// refuse it (WithoutDefaultGuards, no deny rule). What it wrote is then
// not known, and a later run of a file asks.
func TestWrittenFileGuard_AnUnreadableShellCallThatRanAsksBeforeARun(t *testing.T) {
	ctx := context.Background()
	rc := helikon.NewRunContext(WithWrittenFileGuard(), WithoutDefaultGuards())
	sh := runCommand{kindTool{name: "run_command"}}
	if a := authorize(rc, ctx, kindCall(sh, `{"command":"echo rm -rf ~ > x.sh"}`)); !a.allowed {
		t.Skipf("the unreadable call was refused (%s): nothing ran", a.reason)
	}
	if a := authorize(rc, ctx, kindCall(sh, `{"cmd":"bash x.sh"}`)); a.allowed {
		t.Fatalf("bash x.sh allowed after a shell call whose writes are not known ran (%s)", a.reason)
	}
}
