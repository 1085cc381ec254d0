package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paigasus/helikon/governance"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"go.uber.org/goleak"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
	"github.com/paigasus/helikon/mock"
)

func TestServer_SendMessageReturnsCompletedTaskWithOutputArtifact(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Deltas("Invoice ", "42 is paid.")}))
	c := sdkClient(t, ts.URL+"/", "")
	res, err := c.SendMessage(context.Background(), userMessage("Is invoice 42 paid?"))
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2apb.Task)
	if !ok {
		t.Fatalf("result %T, want a task", res)
	}
	if task.Status.State != a2apb.TaskStateCompleted {
		t.Fatalf("state %q, want completed", task.Status.State)
	}
	if got := artifactText(task, a2a.OutputArtifact); got != "Invoice 42 is paid." {
		t.Errorf("output artifact %q", got)
	}
	got, err := c.GetTask(context.Background(), &a2apb.TaskQueryParams{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != a2apb.TaskStateCompleted || artifactText(got, a2a.OutputArtifact) != "Invoice 42 is paid." {
		t.Errorf("tasks/get: %q %q", got.Status.State, artifactText(got, a2a.OutputArtifact))
	}
}

func TestServer_StreamSendsTheTaskStreamedTextOutputThenFinalCompleted(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Deltas("a", "b", "c")}))
	c := sdkClient(t, ts.URL+"/", "")
	var kinds []string
	var streamed, output string
	var last *a2apb.TaskStatusUpdateEvent
	for ev, err := range c.SendStreamingMessage(context.Background(), userMessage("go")) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case *a2apb.Task:
			kinds = append(kinds, "task")
		case *a2apb.TaskArtifactUpdateEvent:
			for _, p := range ev.Artifact.Parts {
				if ev.Artifact.Name == a2a.StreamArtifact {
					streamed += p.(a2apb.TextPart).Text
				} else {
					output += p.(a2apb.TextPart).Text
				}
			}
			kinds = append(kinds, "artifact:"+ev.Artifact.Name)
		case *a2apb.TaskStatusUpdateEvent:
			last = ev
			kinds = append(kinds, "status:"+string(ev.Status.State))
		}
	}
	if kinds[0] != "task" || last == nil || !last.Final || last.Status.State != a2apb.TaskStateCompleted {
		t.Fatalf("events %v", kinds)
	}
	if streamed != "abc" || output != "abc" {
		t.Errorf("streamed %q, output %q", streamed, output)
	}
}

func TestServer_CardAtTheWellKnownPathDescribesTheAgentAndItsTools(t *testing.T) {
	lookup := helikon.MustTool("lookup_invoice", "Look up an invoice by number.", func(tc *helikon.ToolContext, in struct {
		N int `json:"n"`
	}) (string, error) {
		return "paid", nil
	})
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("ok")}, helikon.WithTools(lookup)))
	resp, err := http.Get(ts.URL + a2a.CardPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var card a2apb.AgentCard
	if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
		t.Fatal(err)
	}
	if card.Name != "specialist" || card.Description != "Answers questions about invoices." || !card.Capabilities.Streaming || card.URL != ts.URL+"/" {
		t.Errorf("card %+v", card)
	}
	var ids []string
	for _, s := range card.Skills {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, ",") != "specialist,tool:lookup_invoice" {
		t.Errorf("skills %v", ids)
	}
}

func TestServer_UnknownTaskIsTaskNotFound(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("ok")}))
	c := sdkClient(t, ts.URL+"/", "")
	ctx := context.Background()
	if _, err := c.GetTask(ctx, &a2apb.TaskQueryParams{ID: "no-such-task"}); !errors.Is(err, a2apb.ErrTaskNotFound) {
		t.Errorf("tasks/get: %v, want task not found", err)
	}
	if _, err := c.CancelTask(ctx, &a2apb.TaskIDParams{ID: "no-such-task"}); !errors.Is(err, a2apb.ErrTaskNotFound) {
		t.Errorf("tasks/cancel: %v, want task not found", err)
	}
}

// blockingAgent calls a tool that waits for its context to end and
// reports on cancelled when it does.
func blockingAgent(t *testing.T, started chan<- struct{}, cancelled chan<- struct{}) helikon.Agent {
	wait := helikon.MustTool("wait", "Wait.", func(tc *helikon.ToolContext, in struct{}) (string, error) {
		started <- struct{}{}
		<-tc.Done()
		cancelled <- struct{}{}
		return "", tc.Err()
	}, helikon.WithEffect(helikon.ReadOnly))
	return newAgent(t, turns{scripts: []mock.Script{mock.ToolCalls(mock.Call{ID: "w", Name: "wait", Args: `{}`}), mock.Text("done")}}, helikon.WithTools(wait))
}

func TestServer_CancelCancelsTheRunAndASecondCancelStillAnswersCanceled(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	_, ts := serve(t, blockingAgent(t, started, cancelled))
	c := sdkClient(t, ts.URL+"/", "")
	ctx := context.Background()
	stream := c.SendStreamingMessage(ctx, userMessage("wait"))
	ids := make(chan a2apb.TaskID, 1)
	var final a2apb.TaskState
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range stream {
			if err != nil {
				return
			}
			switch ev := ev.(type) {
			case *a2apb.Task:
				ids <- ev.ID
			case *a2apb.TaskStatusUpdateEvent:
				if ev.Final {
					final = ev.Status.State
				}
			}
		}
	}()
	<-started
	id := <-ids
	task, err := c.CancelTask(ctx, &a2apb.TaskIDParams{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2apb.TaskStateCanceled {
		t.Errorf("cancel answered %q", task.Status.State)
	}
	<-cancelled
	<-done
	if final != a2apb.TaskStateCanceled {
		t.Errorf("stream ended %q, want canceled", final)
	}
	again, err := c.CancelTask(ctx, &a2apb.TaskIDParams{ID: id})
	if err != nil || again.Status.State != a2apb.TaskStateCanceled {
		t.Errorf("second cancel: %v %v", again, err)
	}
}

func TestServer_AnotherPrincipalsTaskDoesNotExistForTheCaller(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("secret answer")}), a2a.WithAuthenticator(tokens))
	ctx := context.Background()
	alice, bob := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "bob")
	res, err := alice.SendMessage(ctx, userMessage("hi"))
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*a2apb.Task).ID
	if _, err := alice.GetTask(ctx, &a2apb.TaskQueryParams{ID: id}); err != nil {
		t.Fatalf("owner's tasks/get: %v", err)
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"tasks/get", func() error { _, err := bob.GetTask(ctx, &a2apb.TaskQueryParams{ID: id}); return err }},
		{"tasks/cancel", func() error { _, err := bob.CancelTask(ctx, &a2apb.TaskIDParams{ID: id}); return err }},
		{"message/send on the task", func() error {
			p := userMessage("approve")
			p.Message.TaskID = id
			_, err := bob.SendMessage(ctx, p)
			return err
		}},
		{"tasks/resubscribe", func() error {
			for _, err := range bob.ResubscribeToTask(ctx, &a2apb.TaskIDParams{ID: id}) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatal("bob reached alice's task")
			}
			if !errors.Is(err, a2apb.ErrTaskNotFound) {
				t.Errorf("error %v, want task not found (as for an unknown id)", err)
			}
		})
	}
}

func TestServer_UnauthenticatedRequestIs401AndTheCardStaysPublic(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("ok")}), a2a.WithAuthenticator(tokens))
	resp, err := http.Post(ts.URL+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", resp.StatusCode)
	}
	card, err := http.Get(ts.URL + a2a.CardPath)
	if err != nil {
		t.Fatal(err)
	}
	card.Body.Close()
	if card.StatusCode != http.StatusOK {
		t.Errorf("card status %d", card.StatusCode)
	}
}

func TestServer_SameContextIDContinuesTheSessionOfItsPrincipalOnly(t *testing.T) {
	var seen []int
	model := countingModel{seen: &seen}
	_, ts := serve(t, newAgent(t, model), a2a.WithAuthenticator(tokens))
	ctx := context.Background()
	send := func(c interface {
		SendMessage(context.Context, *a2apb.MessageSendParams) (a2apb.SendMessageResult, error)
	}) {
		p := userMessage("hello")
		p.Message.ContextID = "support"
		if _, err := c.SendMessage(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	alice, bob := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "bob")
	send(alice)
	send(alice)
	send(bob)
	// Messages the model saw: alice's first run 1, her second 3 (her first
	// exchange and the new message), bob's first 1.
	if len(seen) != 3 || seen[0] != 1 || seen[1] != 3 || seen[2] != 1 {
		t.Errorf("history lengths %v, want [1 3 1]", seen)
	}
}

// countingModel answers "ok" and records how many messages each request
// carried.
type countingModel struct{ seen *[]int }

func (m countingModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	*m.seen = append(*m.seen, len(req.Messages))
	return mock.New([]mock.Script{mock.Text("ok")}).Invoke(ctx, req)
}

func (m countingModel) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

func TestServer_OversizedOrDeeplyNestedRequestIsAJSONRPCError(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("ok")}), a2a.WithMaxRequestBytes(1<<16))
	tests := []struct {
		name, body string
		code       int
	}{
		{"oversized", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"` + strings.Repeat("x", 1<<17) + `"}]}}}`, -32600},
		{"deep", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, -32700},
		{"malformed", `{"jsonrpc":`, -32700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(ts.URL+"/", "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var out struct {
				Error struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal(raw, &out); err != nil || out.Error.Code != tt.code {
				t.Errorf("reply %s, want error code %d", raw, tt.code)
			}
		})
	}
}

func TestServer_StructuredOutputIsADataPart(t *testing.T) {
	type verdict struct {
		Paid bool `json:"paid"`
	}
	agent := newAgent(t, replay{script: mock.Text(`{"paid":true}`)}, helikon.WithOutput[verdict]())
	_, ts := serve(t, agent)
	res, err := sdkClient(t, ts.URL+"/", "").SendMessage(context.Background(), userMessage("paid?"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2apb.Task)
	for _, a := range task.Artifacts {
		if a.Name != a2a.OutputArtifact {
			continue
		}
		dp, ok := a.Parts[0].(a2apb.DataPart)
		if !ok || dp.Data["paid"] != true {
			t.Fatalf("output part %#v, want a data part {paid: true}", a.Parts[0])
		}
		return
	}
	t.Fatal("no output artifact")
}

// askWrites puts every call that is not read-only to a human.
type askWrites struct{}

func (askWrites) Check(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
	if req.Effect == helikon.ReadOnly {
		return governance.PermissionDecision{Behavior: governance.PermissionAllow}
	}
	return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "pay this invoice?"}
}

func payingAgent(t *testing.T, paid *counter) helikon.Agent {
	pay := helikon.MustTool("pay_invoice", "Pay an invoice.", func(tc *helikon.ToolContext, in struct {
		N int `json:"n"`
	}) (string, error) {
		paid.n.Add(1)
		return "paid", nil
	})
	model := turns{scripts: []mock.Script{mock.ToolCalls(mock.Call{ID: "p1", Name: "pay_invoice", Args: `{"n":42}`}), mock.Text("Invoice 42 is paid.")}}
	return newAgent(t, model, helikon.WithTools(pay))
}

var askingOptions = a2a.WithContextOptions(governance.WithPermissionMode(governance.PermissionDefault), governance.WithPermissionPolicy(askWrites{}))

func TestServer_PausedRunIsInputRequiredUntilAMessageDecides(t *testing.T) {
	tests := []struct {
		name      string
		decide    func(pending []any) a2apb.Part
		wantPaid  int32
		wantState a2apb.TaskState
	}{
		{"approve in text", func([]any) a2apb.Part { return a2apb.TextPart{Text: "approve"} }, 1, a2apb.TaskStateCompleted},
		{"reject in text", func([]any) a2apb.Part { return a2apb.TextPart{Text: "reject"} }, 0, a2apb.TaskStateCompleted},
		{"approve in a data part", func(pending []any) a2apb.Part {
			id := pending[0].(map[string]any)["id"]
			return a2apb.DataPart{Data: map[string]any{a2a.KeyDecisions: []any{map[string]any{"id": id, "kind": "approve"}}}}
		}, 1, a2apb.TaskStateCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paid counter
			_, ts := serve(t, payingAgent(t, &paid), askingOptions)
			c := sdkClient(t, ts.URL+"/", "")
			ctx := context.Background()
			res, err := c.SendMessage(ctx, userMessage("pay invoice 42"))
			if err != nil {
				t.Fatal(err)
			}
			task := res.(*a2apb.Task)
			if task.Status.State != a2apb.TaskStateInputRequired || paid.n.Load() != 0 {
				t.Fatalf("state %q, paid %d: want input-required before anything ran", task.Status.State, paid.n.Load())
			}
			var pending []any
			for _, p := range task.Status.Message.Parts {
				if dp, ok := p.(a2apb.DataPart); ok {
					pending, _ = dp.Data[a2a.KeyApprovals].([]any)
				}
			}
			if len(pending) != 1 {
				t.Fatalf("status message lists %d approvals", len(pending))
			}
			// A message that decides nothing leaves the run paused.
			vague := userMessage("hmm, what?")
			vague.Message.TaskID, vague.Message.ContextID = task.ID, task.ContextID
			res, err = c.SendMessage(ctx, vague)
			if err != nil {
				t.Fatal(err)
			}
			if st := res.(*a2apb.Task).Status.State; st != a2apb.TaskStateInputRequired {
				t.Fatalf("after an undecided message: %q", st)
			}
			msg := a2apb.NewMessage(a2apb.MessageRoleUser, tt.decide(pending))
			msg.TaskID, msg.ContextID = task.ID, task.ContextID
			res, err = c.SendMessage(ctx, &a2apb.MessageSendParams{Message: msg})
			if err != nil {
				t.Fatal(err)
			}
			if st := res.(*a2apb.Task).Status.State; st != tt.wantState {
				t.Errorf("resumed task %q, want %q", st, tt.wantState)
			}
			if paid.n.Load() != tt.wantPaid {
				t.Errorf("paid %d times, want %d", paid.n.Load(), tt.wantPaid)
			}
		})
	}
}

func TestServer_CloseCancelsRunsInFlightAndLeavesNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	srv, err := a2a.NewServer(blockingAgent(t, started, cancelled))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	tr := &http.Transport{}
	c, err := a2aclient.NewFromEndpoints(context.Background(), []a2apb.AgentInterface{{URL: ts.URL + "/", Transport: a2apb.TransportProtocolJSONRPC}},
		a2aclient.WithJSONRPCTransport(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan a2apb.TaskState, 1)
	go func() {
		var last a2apb.TaskState
		for ev, err := range c.SendStreamingMessage(context.Background(), userMessage("wait")) {
			if err != nil {
				break
			}
			if st, ok := ev.(*a2apb.TaskStatusUpdateEvent); ok {
				last = st.Status.State
			}
		}
		done <- last
	}()
	<-started
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	<-cancelled
	if got := <-done; got != a2apb.TaskStateFailed {
		t.Errorf("the stream ended %q, want failed (the server is closing)", got)
	}
	ts.Close()
	tr.CloseIdleConnections()
}

func TestServer_ADeadSessionBackendFailsTheTaskAndSaysSo(t *testing.T) {
	dead := sessionFunc(func(context.Context, string) (helikon.Session, error) { return nil, errors.New("connection refused") })
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("ok")}), a2a.WithSessions(dead))
	res, err := sdkClient(t, ts.URL+"/", "").SendMessage(context.Background(), userMessage("hi"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2apb.Task)
	if task.Status.State != a2apb.TaskStateFailed || task.Status.Message == nil || !strings.Contains(task.Status.Message.Parts[0].(a2apb.TextPart).Text, "session is unavailable") {
		t.Errorf("task %q %+v", task.Status.State, task.Status.Message)
	}
}

type sessionFunc func(ctx context.Context, id string) (helikon.Session, error)

func (f sessionFunc) Session(ctx context.Context, id string) (helikon.Session, error) {
	return f(ctx, id)
}

// chatter is a model that streams a delta every few milliseconds until its
// run is cancelled: a task that stays working, and keeps sending.
type chatter struct{}

func (chatter) Invoke(ctx context.Context, _ *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				yield(nil, ctx.Err())
				return
			case <-tick.C:
				if !yield(helikon.TokenDelta{Text: "secret "}, nil) {
					return
				}
			}
		}
	}
}

func (chatter) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

func TestServer_AnotherPrincipalsRunningTaskDoesNotExistForTheCaller(t *testing.T) {
	_, ts := serve(t, newAgent(t, chatter{}), a2a.WithAuthenticator(tokens))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	alice, bob := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "bob")

	// Alice's task runs, and streams, until she cancels it: its id is
	// taken from its first streamed text, sent once the task is working.
	ids := make(chan a2apb.TaskID, 1)
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		sent := false
		for ev, err := range alice.SendStreamingMessage(ctx, userMessage("hi")) {
			if err != nil {
				return
			}
			if a, ok := ev.(*a2apb.TaskArtifactUpdateEvent); ok && !sent {
				sent = true
				ids <- a.TaskID
			}
		}
	}()
	defer func() { <-streamed }()
	defer cancel()
	id := <-ids

	tests := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"tasks/resubscribe", func(ctx context.Context) error {
			for ev, err := range bob.ResubscribeToTask(ctx, &a2apb.TaskIDParams{ID: id}) {
				if err != nil {
					return err
				}
				return fmt.Errorf("bob received alice's event %T", ev)
			}
			return nil
		}},
		{"tasks/cancel", func(ctx context.Context) error {
			_, err := bob.CancelTask(ctx, &a2apb.TaskIDParams{ID: id})
			return err
		}},
		{"message/send on the task", func(ctx context.Context) error {
			p := userMessage("more")
			p.Message.TaskID = id
			_, err := bob.SendMessage(ctx, p)
			return err
		}},
		{"message/stream on the task", func(ctx context.Context) error {
			p := userMessage("more")
			p.Message.TaskID = id
			for ev, err := range bob.SendStreamingMessage(ctx, p) {
				if err != nil {
					return err
				}
				return fmt.Errorf("bob received event %T", ev)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The deadline only keeps a broken server from hanging the test.
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			err := tt.call(ctx)
			if !errors.Is(err, a2apb.ErrTaskNotFound) {
				t.Errorf("bob on alice's running task: %v, want task not found (as for an unknown id)", err)
			}
		})
	}
	// Alice's task was not touched: it is still working, hers to cancel.
	task, err := alice.GetTask(ctx, &a2apb.TaskQueryParams{ID: id})
	if err != nil || task.Status.State != a2apb.TaskStateWorking {
		t.Fatalf("alice's task after bob's attempts: %v %v", task, err)
	}
	if task, err := alice.CancelTask(ctx, &a2apb.TaskIDParams{ID: id}); err != nil || task.Status.State != a2apb.TaskStateCanceled {
		t.Fatalf("alice's cancel: %v %v", task, err)
	}
}

func TestServer_OnePrincipalCannotTakeEveryRunSlotFromTheOthers(t *testing.T) {
	_, ts := serve(t, newAgent(t, chatter{}), a2a.WithAuthenticator(tokens), a2a.WithMaxRuns(3, 2))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	alice, bob := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "bob")
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	// begin starts a streamed task that runs until the test ends, and
	// returns what its stream first said.
	begin := func(c *a2aclient.Client) (a2apb.Event, error) {
		first := make(chan struct {
			ev  a2apb.Event
			err error
		}, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent := false
			for ev, err := range c.SendStreamingMessage(ctx, userMessage("hi")) {
				if !sent {
					sent = true
					first <- struct {
						ev  a2apb.Event
						err error
					}{ev, err}
				}
				if err != nil {
					return
				}
			}
		}()
		got := <-first
		return got.ev, got.err
	}
	for i := range 2 {
		if _, err := begin(alice); err != nil {
			t.Fatalf("alice's task %d: %v", i, err)
		}
	}
	if ev, err := begin(alice); !errors.Is(err, a2apb.ErrServerError) || !strings.Contains(err.Error(), "the principal has its maximum of runs") {
		t.Fatalf("alice's third task while two run: %v %v, want refused at the principal's maximum of runs", ev, err)
	}
	// The server has room, and bob gets it.
	if _, err := begin(bob); err != nil {
		t.Fatalf("bob's task: %v", err)
	}
	// Now the server is full, for bob too.
	if ev, err := begin(bob); !errors.Is(err, a2apb.ErrServerError) || !strings.Contains(err.Error(), "the server has its maximum of runs") {
		t.Fatalf("bob's task on a full server: %v %v, want refused at the server's maximum of runs", ev, err)
	}
}

// sendText sends text as c's principal and returns the task it made.
func sendText(t *testing.T, c *a2aclient.Client, text string) a2apb.TaskID {
	t.Helper()
	res, err := c.SendMessage(context.Background(), userMessage(text))
	if err != nil {
		t.Fatal(err)
	}
	return res.(*a2apb.Task).ID
}

// taskKept reports whether the server still answers tasks/get for id to
// c's principal.
func taskKept(t *testing.T, c *a2aclient.Client, id a2apb.TaskID) bool {
	t.Helper()
	_, err := c.GetTask(context.Background(), &a2apb.TaskQueryParams{ID: id})
	if err != nil && !errors.Is(err, a2apb.ErrTaskNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func TestServer_TasksPastTheBoundAreForgottenFromThePrincipalHoldingTheMost(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("done")}), a2a.WithAuthenticator(tokens), a2a.WithMaxTasks(3))
	alice, bob := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "bob")
	alices := sendText(t, alice, "hi")
	var bobs []a2apb.TaskID
	for range 4 {
		bobs = append(bobs, sendText(t, bob, "hi"))
	}
	// Bob's tasks made room from his own: alice's older one stays.
	if !taskKept(t, alice, alices) {
		t.Error("bob's tasks evicted alice's")
	}
	for i, id := range bobs {
		if want := i >= 2; taskKept(t, bob, id) != want {
			t.Errorf("bob's task %d kept %v, want %v", i, !want, want)
		}
	}
	// Holding as many as bob, alice makes room from her own, oldest first.
	for range 2 {
		sendText(t, alice, "hi")
	}
	if taskKept(t, alice, alices) {
		t.Error("alice's oldest task is kept past the bound")
	}
}

func TestServer_TasksPastTheByteBoundAreForgottenFromThePrincipalHoldingTheMost(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("done")}), a2a.WithAuthenticator(tokens), a2a.WithMaxTaskBytes(100<<10))
	alice, bob := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "bob")
	alices := sendText(t, alice, "hi")
	// Each of bob's tasks holds its 40 KiB message: the third is past
	// the bound, and his first makes room.
	var bobs []a2apb.TaskID
	for range 3 {
		bobs = append(bobs, sendText(t, bob, strings.Repeat("x", 40<<10)))
	}
	if !taskKept(t, alice, alices) {
		t.Error("bob's tasks evicted alice's")
	}
	for i, id := range bobs {
		if want := i >= 1; taskKept(t, bob, id) != want {
			t.Errorf("bob's task %d kept %v, want %v", i, !want, want)
		}
	}
}

func TestServer_AContextIDPastItsBoundIsInvalidParamsAndRunsNothing(t *testing.T) {
	var seen []int
	_, ts := serve(t, newAgent(t, countingModel{seen: &seen}))
	c := sdkClient(t, ts.URL+"/", "")
	ctx := context.Background()
	for _, tt := range []struct {
		name, id string
		ok       bool
	}{
		{"at the bound", strings.Repeat("c", a2a.MaxContextIDBytes), true},
		{"one byte past", strings.Repeat("c", a2a.MaxContextIDBytes+1), false},
		{"a megabyte", strings.Repeat("c", 1<<20), false},
		{"a control character", "support\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(seen)
			p := userMessage("hello")
			p.Message.ContextID = tt.id
			_, err := c.SendMessage(ctx, p)
			if tt.ok {
				if err != nil {
					t.Fatalf("SendMessage: %v", err)
				}
				return
			}
			if !errors.Is(err, a2apb.ErrInvalidParams) {
				t.Errorf("SendMessage = %v, want ErrInvalidParams", err)
			}
			if len(seen) != before {
				t.Error("the agent ran on a refused message")
			}
			for _, err := range c.SendStreamingMessage(ctx, p) {
				if !errors.Is(err, a2apb.ErrInvalidParams) {
					t.Errorf("SendStreamingMessage = %v, want ErrInvalidParams", err)
				}
				break
			}
		})
	}
}

func TestServer_AFinishedRunGivesBackItsRunSlot(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("done")}), a2a.WithAuthenticator(tokens), a2a.WithMaxRuns(1, 1))
	alice := sdkClient(t, ts.URL+"/", "alice")
	// One slot on the server and for alice: each message after the first
	// runs only if the run before it gave its slot back.
	for i := range 3 {
		id := sendText(t, alice, "hi")
		if !taskKept(t, alice, id) {
			t.Fatalf("alice's task %d is not kept", i)
		}
	}
}

// bearers authenticates "Bearer NAME" as NAME, for tests of many
// principals.
func bearers(r *http.Request) (string, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || name == "" {
		return "", errUnauthenticated
	}
	return name, nil
}

func TestServer_ATaskPastTheByteBoundIsAServerErrorAndForgetsNothing(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("done")}), a2a.WithAuthenticator(tokens), a2a.WithMaxTaskBytes(64<<10))
	alice, bob := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "bob")
	alices, bobs := sendText(t, alice, "hi"), sendText(t, bob, strings.Repeat("x", 20<<10))
	big := userMessage(strings.Repeat("x", 100<<10))
	if res, err := bob.SendMessage(context.Background(), big); !errors.Is(err, a2apb.ErrServerError) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("SendMessage of a task past the byte bound = %v, %v; want a server error saying it is too large", res, err)
	}
	for ev, err := range bob.SendStreamingMessage(context.Background(), big) {
		if !errors.Is(err, a2apb.ErrServerError) || !strings.Contains(err.Error(), "too large") {
			t.Errorf("SendStreamingMessage of a task past the byte bound = %v, %v; want a server error saying it is too large", ev, err)
		}
		break
	}
	if !taskKept(t, alice, alices) || !taskKept(t, bob, bobs) {
		t.Error("a task refused as too large made others forget theirs")
	}
}

func TestServer_ANewcomerAtAStoreOfOneTaskPrincipalsKeepsItsTask(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("done")}), a2a.WithAuthenticator(bearers), a2a.WithMaxTasks(3))
	var ids []a2apb.TaskID
	var clients []*a2aclient.Client
	for _, name := range []string{"ann", "ben", "cat", "dan"} {
		c := sdkClient(t, ts.URL+"/", name)
		clients = append(clients, c)
		ids = append(ids, sendText(t, c, "hi"))
	}
	// Every principal held one task when dan came: ann's, the least
	// recently saved, made room, not dan's own.
	for i, want := range []bool{false, true, true, true} {
		if got := taskKept(t, clients[i], ids[i]); got != want {
			t.Errorf("task %d kept %v, want %v", i, got, want)
		}
	}
}

func TestServer_ACallerCannotTakeAnothersTasksByFloodingOrOneLargeTask(t *testing.T) {
	_, ts := serve(t, newAgent(t, replay{script: mock.Text("done")}), a2a.WithAuthenticator(bearers),
		a2a.WithMaxTasks(4), a2a.WithMaxTaskBytes(100<<10))
	alice, mallory := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "mallory")
	alices := []a2apb.TaskID{sendText(t, alice, strings.Repeat("a", 20<<10)), sendText(t, alice, strings.Repeat("a", 20<<10))}
	// Many tasks: mallory makes room from her own once she holds as many.
	for range 20 {
		sendText(t, mallory, "hi")
	}
	// One task that fits the bound alone, but only by taking from alice,
	// who holds fewer bytes than it; and one past the bound.
	for _, n := range []int{70 << 10, 200 << 10} {
		if res, err := mallory.SendMessage(context.Background(), userMessage(strings.Repeat("m", n))); !errors.Is(err, a2apb.ErrServerError) {
			t.Errorf("mallory's task of %d bytes = %v, %v; want refused with a server error", n, res, err)
		}
	}
	for i, id := range alices {
		if !taskKept(t, alice, id) {
			t.Errorf("mallory's tasks made alice forget her task %d", i)
		}
	}
}

func TestServer_ATaskThatGrowsPastTheByteBoundFailsSayingWhyAndForgetsNothing(t *testing.T) {
	_, ts := serve(t, newAgent(t, longIfAsked{}), a2a.WithAuthenticator(tokens), a2a.WithMaxTaskBytes(64<<10))
	alice, bob := sdkClient(t, ts.URL+"/", "alice"), sdkClient(t, ts.URL+"/", "bob")
	bobs := sendText(t, bob, "hi")
	// The answer, streamed and then the output, is twice 40 KiB: the
	// task outgrows the bound as the run goes.
	var id a2apb.TaskID
	var last error
	for ev, err := range alice.SendStreamingMessage(context.Background(), userMessage("at length")) {
		if task, ok := ev.(*a2apb.Task); ok && id == "" {
			id = task.ID
		}
		last = err
	}
	if !errors.Is(last, a2apb.ErrServerError) || !strings.Contains(last.Error(), "too large") {
		t.Errorf("the stream ended with %v, want a server error saying the task is too large", last)
	}
	task, err := alice.GetTask(context.Background(), &a2apb.TaskQueryParams{ID: id})
	if err != nil {
		t.Fatalf("the task that grew past the bound: %v", err)
	}
	if task.Status.State != a2apb.TaskStateFailed || task.Status.Message == nil ||
		!strings.Contains(task.Status.Message.Parts[0].(a2apb.TextPart).Text, "grew larger than the server keeps") {
		t.Errorf("the task that grew past the bound is %s, %+v; want failed, saying why", task.Status.State, task.Status.Message)
	}
	if !taskKept(t, bob, bobs) {
		t.Error("alice's task growing past the bound made bob forget his")
	}
}

// longIfAsked answers 40 KiB of text to a message that says "at length",
// and "done" to any other.
type longIfAsked struct{}

func (longIfAsked) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	text := "done"
	if last := req.Messages[len(req.Messages)-1]; strings.Contains(last.Text(), "at length") {
		text = strings.Repeat("y", 40<<10)
	}
	return mock.New([]mock.Script{mock.Text(text)}).Invoke(ctx, req)
}

func (longIfAsked) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }
