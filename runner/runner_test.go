package runner_test

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session"
)

type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

var addTool = helikon.MustTool("add", "Add two integers.",
	func(tc *helikon.ToolContext, in addArgs) (int, error) { return in.A + in.B, nil },
	helikon.WithEffect(helikon.ReadOnly))

func s1Model() *mock.Model {
	return mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "call_1", Name: "add", Args: `{"a":40,"b":2}`}),
		mock.Text("sum is 42"),
	)
}

func newAgent(t testing.TB, m helikon.Model) *helikon.LLMAgent {
	t.Helper()
	a, err := helikon.NewAgent("calc", m, helikon.WithTools(addTool))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// roles renders a transcript as its roles, tool uses and results marked.
func roles(items []helikon.Item) string {
	var parts []string
	for _, it := range items {
		r := string(it.Role)
		if len(it.ToolUses()) > 0 {
			r += "+call"
		}
		parts = append(parts, r)
	}
	return strings.Join(parts, " ")
}

func snapshot(t *testing.T, s helikon.Session) []helikon.Item {
	t.Helper()
	items, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// flakySession is a MemorySession whose reads or appends fail on demand.
type flakySession struct {
	*helikon.MemorySession
	mu          sync.Mutex
	snapErr     error
	appendErrs  int // appends to fail before succeeding
	appendCalls int
}

var errBackend = errors.New("backend down")

func (s *flakySession) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	if s.snapErr != nil {
		return nil, s.snapErr
	}
	return s.MemorySession.Snapshot(ctx)
}

func (s *flakySession) Append(ctx context.Context, evs ...helikon.SessionEvent) error {
	s.mu.Lock()
	s.appendCalls++
	fail := s.appendErrs != 0
	if s.appendErrs > 0 {
		s.appendErrs--
	}
	s.mu.Unlock()
	if fail {
		return errBackend
	}
	return s.MemorySession.Append(ctx, evs...)
}

func TestRunner_PrependsHistoryAndPersistsTheRun(t *testing.T) {
	sess := helikon.NewMemorySession()
	ctx := context.Background()
	if err := sess.Append(ctx, session.UserMessage(helikon.TextPart{Text: "hi"}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "hello"}}, "calc")); err != nil {
		t.Fatal(err)
	}
	model := s1Model()
	rc := helikon.NewRunContext(helikon.WithSession(sess))
	res, err := runner.New().Run(ctx, newAgent(t, model), rc, helikon.UserText("what is 40+2?"))
	if err != nil || res.FinalOutput != "sum is 42" {
		t.Fatalf("run: %v, %v", res, err)
	}
	if got := roles(model.Requests()[0].Messages); got != "user assistant user" {
		t.Fatalf("first request: %s", got)
	}
	if got := roles(snapshot(t, sess)); got != "user assistant user assistant+call tool assistant" {
		t.Fatalf("session: %s", got)
	}
	if res.Usage.Total() != 30 {
		t.Fatalf("usage %+v", res.Usage)
	}
}

func TestRunner_SessionReadFailureIsAHardError(t *testing.T) {
	sess := &flakySession{MemorySession: helikon.NewMemorySession(), snapErr: errBackend}
	model := s1Model()
	_, err := runner.New().Run(context.Background(), newAgent(t, model), helikon.NewRunContext(helikon.WithSession(sess)), helikon.UserText("go"))
	if !errors.Is(err, runner.ErrLoadSession) || !errors.Is(err, errBackend) {
		t.Fatalf("err = %v", err)
	}
	if len(model.Requests()) != 0 {
		t.Fatal("the model was called despite an unreadable session")
	}
}

// A run whose last append fails still delivers its answer, but its outcome
// says the session did not store it: a *PersistError with the unsaved
// events, which appended later complete the log.
func TestRunner_FailedLastAppendReachesTheCallerWithTheAnswer(t *testing.T) {
	var logs bytes.Buffer
	r := runner.New(runner.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	run := func(s helikon.Session) (*helikon.RunResult, error) {
		return r.Run(context.Background(), newAgent(t, s1Model()), helikon.NewRunContext(helikon.WithSession(s)), helikon.UserText("go"))
	}
	want, err := run(helikon.NewMemorySession())
	if err != nil {
		t.Fatal(err)
	}
	broken := &flakySession{MemorySession: helikon.NewMemorySession(), appendErrs: -1}
	got, err := run(broken)
	var pe *runner.PersistError
	if !errors.As(err, &pe) || !errors.Is(err, runner.ErrPersist) || !errors.Is(err, errBackend) || pe.RunErr != nil {
		t.Fatalf("run with a dead session = %v, want a *PersistError wrapping %v and no run failure", err, errBackend)
	}
	if got.FinalOutput != want.FinalOutput || got.Usage != want.Usage || len(got.Events) != len(want.Events) {
		t.Fatalf("with failing appends: %+v; want the completed run's answer and usage %+v", got, want)
	}
	if _, ok := got.Events[len(got.Events)-1].(helikon.RunFailed); !ok {
		t.Fatalf("terminal event = %T, want RunFailed", got.Events[len(got.Events)-1])
	}
	if !strings.Contains(logs.String(), "session append failed") {
		t.Fatalf("append failure not logged: %s", logs.String())
	}
	// The unsaved events complete the log.
	if err := broken.MemorySession.Append(context.Background(), pe.Unsaved...); err != nil {
		t.Fatal(err)
	}
	if got := roles(snapshot(t, broken.MemorySession)); got != "user assistant+call tool assistant" {
		t.Fatalf("log completed from Unsaved = %s", got)
	}
}

// A run that fails and whose events cannot be stored reports both.
func TestRunner_FailedRunAndFailedAppendReportBoth(t *testing.T) {
	r := runner.New(runner.WithLogger(slog.New(slog.DiscardHandler)))
	model := mock.Scripted(mock.Fail(&helikon.ModelError{Kind: helikon.ModelRefused, Message: "bad"}))
	broken := &flakySession{MemorySession: helikon.NewMemorySession(), appendErrs: -1}
	_, err := r.Run(context.Background(), newAgent(t, model), helikon.NewRunContext(helikon.WithSession(broken)), helikon.UserText("go"))
	var pe *runner.PersistError
	var me *helikon.ModelError
	if !errors.As(err, &pe) || pe.RunErr == nil || !errors.As(err, &me) || len(pe.Unsaved) == 0 {
		t.Fatalf("err = %v, want a *PersistError carrying the model's failure and the unsaved input", err)
	}
}

// slowLastAppend is a MemorySession whose append of an assistant answer
// first outlasts the run's timeout, as a slow backend does: it waits until
// the run's deadline (seen by the model, see [deadlineModel]) has passed, so
// the test does not depend on how fast the machine reaches the last append.
type slowLastAppend struct {
	*helikon.MemorySession
	runDeadline func() time.Time
}

func (s *slowLastAppend) Append(ctx context.Context, evs ...helikon.SessionEvent) error {
	for _, ev := range evs {
		if ev.Kind == helikon.KindAssistantMessage && len(ev.Content) > 0 {
			if _, ok := ev.Content[0].(helikon.TextPart); ok {
				time.Sleep(time.Until(s.runDeadline()) + 10*time.Millisecond)
			}
		}
	}
	return s.MemorySession.Append(ctx, evs...)
}

// deadlineModel is a scripted model that keeps the deadline of its calls'
// context: the run's.
type deadlineModel struct {
	*mock.Model
	mu       sync.Mutex
	deadline time.Time
}

func (m *deadlineModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	m.mu.Lock()
	m.deadline, _ = ctx.Deadline()
	m.mu.Unlock()
	return m.Model.Invoke(ctx, req)
}

func (m *deadlineModel) lastDeadline() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.deadline
}

// A run whose timeout expires while its answer is being stored still
// stores it: the last append does not run on the run's context.
func TestRunner_TimeoutDuringLastAppendStillStoresTheAnswer(t *testing.T) {
	// Long enough for a loaded machine under -race to reach the last
	// append; the test waits for it to expire once.
	const timeout = 2 * time.Second
	model := &deadlineModel{Model: s1Model()}
	sess := &slowLastAppend{MemorySession: helikon.NewMemorySession(), runDeadline: model.lastDeadline}
	rc := helikon.NewRunContext(helikon.WithSession(sess), helikon.WithRunConfig(helikon.RunConfig{Timeout: timeout}))
	res, err := runner.New().Run(context.Background(), newAgent(t, model), rc, helikon.UserText("go"))
	if err != nil || res.FinalOutput != "sum is 42" {
		t.Fatalf("run = %v, %v; want the answer and no error", res, err)
	}
	if got := roles(snapshot(t, sess.MemorySession)); got != "user assistant+call tool assistant" {
		t.Fatalf("session after a timeout during the last append = %q, want the whole run", got)
	}
}

func TestRunner_FailedAppendIsRetriedWithTheNextBatch(t *testing.T) {
	sess := &flakySession{MemorySession: helikon.NewMemorySession(), appendErrs: 1}
	r := runner.New(runner.WithLogger(slog.New(slog.DiscardHandler)))
	if _, err := r.Run(context.Background(), newAgent(t, s1Model()), helikon.NewRunContext(helikon.WithSession(sess)), helikon.UserText("go")); err != nil {
		t.Fatal(err)
	}
	if got := roles(snapshot(t, sess)); got != "user assistant+call tool assistant" {
		t.Fatalf("session after a failed first append: %s", got)
	}
}

// probeModel plays scripts and, from its second call on, records what the
// session holds at that moment.
type probeModel struct {
	*mock.Model
	sess helikon.Session
	seen []string
}

func (m *probeModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	items, _ := m.sess.Snapshot(ctx)
	m.seen = append(m.seen, roles(items))
	return m.Model.Invoke(ctx, req)
}

func TestRunner_PersistsAtEveryTurnBoundary(t *testing.T) {
	sess := helikon.NewMemorySession()
	model := &probeModel{Model: s1Model(), sess: sess}
	if _, err := runner.New().Run(context.Background(), newAgent(t, model), helikon.NewRunContext(helikon.WithSession(sess)), helikon.UserText("go")); err != nil {
		t.Fatal(err)
	}
	// Before each model call the session already holds everything a crash
	// must not lose: the input, then the finished tool round.
	if want := []string{"user", "user assistant+call tool"}; !reflect.DeepEqual(model.seen, want) {
		t.Fatalf("session at each model call: %q, want %q", model.seen, want)
	}
}

func TestRunner_InterruptedToolCallGetsSyntheticResult(t *testing.T) {
	sess := helikon.NewMemorySession()
	rc := helikon.NewRunContext(helikon.WithSession(sess))
	// The consumer stops at the call: the run ends with the call in flight.
	for ev := range runner.New().RunStreamed(context.Background(), newAgent(t, s1Model()), rc, helikon.UserText("go")) {
		if _, ok := ev.(helikon.ToolCallItem); ok {
			break
		}
	}
	evs, err := sess.Events(context.Background(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if last.Kind != helikon.KindToolReturned || last.CallID != "call_1" || !last.IsError ||
		last.Content[0].(helikon.TextPart).Text != runner.InterruptedToolResult {
		t.Fatalf("last session event %+v", last)
	}
	if got := roles(snapshot(t, sess)); got != "user assistant+call tool" {
		t.Fatalf("session: %s", got)
	}
}

func TestRunner_CancelledRunStillPersistsAValidConversation(t *testing.T) {
	sess := helikon.NewMemorySession()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := helikon.MustTool("slow", "Waits for the run to end.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		cancel()
		<-tc.Done()
		return "", tc.Err()
	})
	agent, _ := helikon.NewAgent("worker", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "s1", Name: "slow", Args: `{}`}),
		mock.Text("never"),
	), helikon.WithTools(slow))
	_, err := runner.New().Run(ctx, agent, helikon.NewRunContext(helikon.WithSession(sess)), helikon.UserText("go"))
	if !errors.Is(err, helikon.ErrCancelled) {
		t.Fatalf("err = %v", err)
	}
	if got := roles(snapshot(t, sess)); got != "user assistant+call tool" {
		t.Fatalf("session: %s", got)
	}
}

func TestRunner_TerminalEventWinsOverLateCancel(t *testing.T) {
	sess := helikon.NewMemorySession()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rc := helikon.NewRunContext(helikon.WithSession(sess))
	var terminal helikon.Event
	for ev := range runner.New().RunStreamed(ctx, newAgent(t, s1Model()), rc, helikon.UserText("go")) {
		switch ev.(type) {
		case helikon.MessageOutput:
			cancel() // the answer is settled; the cancel comes too late
		case helikon.RunCompleted, helikon.RunFailed:
			terminal = ev
		}
	}
	if _, ok := terminal.(helikon.RunCompleted); !ok {
		t.Fatalf("terminal event %#v", terminal)
	}
	if got := roles(snapshot(t, sess)); got != "user assistant+call tool assistant" {
		t.Fatalf("session: %s", got)
	}
}

// waitingAgent is a custom Agent that waits for its context to end and
// then returns without a terminal event.
type waitingAgent struct{}

func (waitingAgent) Name() string        { return "waiter" }
func (waitingAgent) Description() string { return "" }
func (waitingAgent) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		if yield(helikon.RunStarted{Agent: "waiter"}) {
			<-ctx.Done()
		}
	}
}

func TestRunner_TimeoutBoundsAnyAgentAndTheStreamAlwaysEnds(t *testing.T) {
	rc := helikon.NewRunContext(helikon.WithRunConfig(helikon.RunConfig{Timeout: 10 * time.Millisecond}))
	_, err := runner.New().Run(context.Background(), waitingAgent{}, rc, helikon.UserText("go"))
	if !errors.Is(err, helikon.ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func seed(t *testing.T, evs ...helikon.SessionEvent) *helikon.MemorySession {
	t.Helper()
	s := helikon.NewMemorySession()
	if err := s.Append(context.Background(), evs...); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunner_ResumeContinuesAnUnansweredConversation(t *testing.T) {
	user := session.UserMessage(helikon.TextPart{Text: "what is 40+2?"})
	call := session.ToolCalled("call_1", "add", []byte(`{"a":40,"b":2}`))
	result := session.ToolReturned("call_1", helikon.TextPart{Text: "42"})
	for _, tc := range []struct {
		name        string
		log         []helikon.SessionEvent
		wantRequest string
		wantLog     string
	}{
		{"after the input", []helikon.SessionEvent{user}, "user", "user assistant"},
		{"after a tool round", []helikon.SessionEvent{user, call, result}, "user assistant+call tool", "user assistant+call tool assistant"},
		{"after a call that never returned", []helikon.SessionEvent{user, call}, "user assistant+call tool", "user assistant+call tool assistant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := seed(t, tc.log...)
			model := mock.Scripted(mock.Text("sum is 42"))
			res, err := runner.New().Resume(context.Background(), newAgent(t, model), helikon.NewRunContext(helikon.WithSession(sess)))
			if err != nil || res.FinalOutput != "sum is 42" {
				t.Fatalf("resume: %+v, %v", res, err)
			}
			if got := roles(model.Requests()[0].Messages); got != tc.wantRequest {
				t.Fatalf("request: %s, want %s", got, tc.wantRequest)
			}
			if got := roles(snapshot(t, sess)); got != tc.wantLog {
				t.Fatalf("session: %s, want %s", got, tc.wantLog)
			}
		})
	}
}

func TestRunner_ResumeWithNothingToAnswerFails(t *testing.T) {
	for name, sess := range map[string]*helikon.MemorySession{
		"empty session": helikon.NewMemorySession(),
		"answered":      seed(t, session.UserMessage(helikon.TextPart{Text: "hi"}), session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "hello"}}, "calc")),
	} {
		t.Run(name, func(t *testing.T) {
			model := mock.Scripted()
			_, err := runner.New().Resume(context.Background(), newAgent(t, model), helikon.NewRunContext(helikon.WithSession(sess)))
			if !errors.Is(err, runner.ErrNothingToResume) {
				t.Fatalf("err = %v", err)
			}
			if len(model.Requests()) != 0 {
				t.Fatal("model called")
			}
		})
	}
}

func TestRunner_NilAgentIsAConfigError(t *testing.T) {
	r := runner.New()
	if _, err := r.Run(context.Background(), nil, nil, helikon.UserText("go")); !errors.Is(err, runner.ErrNoAgent) {
		t.Fatalf("Run: err = %v", err)
	}
	if _, err := r.Resume(context.Background(), nil, nil); !errors.Is(err, runner.ErrNoAgent) {
		t.Fatalf("Resume: err = %v", err)
	}
}

func TestRun_CancelledWhileLoadingIsACancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	agent, err := helikon.NewAgent("a", mock.Scripted(mock.Text("unreached")))
	if err != nil {
		t.Fatal(err)
	}
	rc := helikon.NewRunContext(helikon.WithSession(ctxSession{helikon.NewMemorySession()}))
	_, err = runner.New().Run(ctx, agent, rc, helikon.UserText("hi"))
	if !errors.Is(err, helikon.ErrCancelled) || !errors.Is(err, runner.ErrLoadSession) {
		t.Fatalf("err = %v; want a cancellation that says the load did not finish", err)
	}
}

// ctxSession is a session whose reads honour their context, as the
// database-backed ones do.
type ctxSession struct{ *helikon.MemorySession }

func (s ctxSession) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.MemorySession.Snapshot(ctx)
}

// ctxAppendSession is a session whose appends honour their context, as the
// database-backed ones do.
type ctxAppendSession struct{ *helikon.MemorySession }

func (s ctxAppendSession) Append(ctx context.Context, evs ...helikon.SessionEvent) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.MemorySession.Append(ctx, evs...)
}

// A client that goes away cancels its run mid-run: the batch the cancelled
// context refused is stored by the final append, and nothing is logged as
// an error, since nothing was lost.
func TestRunner_CancelledRunLogsNoAppendErrorWhenTheFinalAppendStoresIt(t *testing.T) {
	var logs bytes.Buffer
	r := runner.New(runner.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	sess := ctxAppendSession{helikon.NewMemorySession()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := helikon.MustTool("slow", "Waits for the run to end.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		cancel()
		<-tc.Done()
		return "", tc.Err()
	})
	agent, _ := helikon.NewAgent("worker", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "s1", Name: "slow", Args: `{}`}),
		mock.Text("never"),
	), helikon.WithTools(slow))
	_, err := r.Run(ctx, agent, helikon.NewRunContext(helikon.WithSession(sess)), helikon.UserText("go"))
	if !errors.Is(err, helikon.ErrCancelled) {
		t.Fatalf("err = %v", err)
	}
	if got := roles(snapshot(t, sess.MemorySession)); got != "user assistant+call tool" {
		t.Fatalf("session: %s", got)
	}
	if strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "deferred") {
		t.Fatalf("logs:\n%s", logs.String())
	}
}
