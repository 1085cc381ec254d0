package server_test

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/server"
	rsession "github.com/paigasus/helikon/session/redis"
)

// askSideEffects puts every call that is not read-only to a human.
type askSideEffects struct{}

func (askSideEffects) Check(_ context.Context, _ *helikon.RunContext, req helikon.PermissionRequest) governance.PermissionDecision {
	if req.Effect == helikon.ReadOnly {
		return governance.PermissionDecision{Behavior: governance.PermissionAllow}
	}
	return governance.PermissionDecision{Behavior: governance.PermissionAskUser, Prompt: "send this email?"}
}

// askingContext runs requests with a policy that asks and no approval
// handler, so asked calls pause the run.
var askingContext = server.WithContextProvider(server.DefaultContext(
	governance.WithPermissionMode(governance.PermissionDefault), governance.WithPermissionPolicy(askSideEffects{})))

// mailAgent calls send_email once, then answers "sent"; sends counts the
// emails that went out.
func mailAgent(t *testing.T, sends *atomic.Int32) helikon.Agent {
	send := helikon.MustTool("send_email", "Send an email.", func(tc *helikon.ToolContext, in writeArgs) (string, error) {
		sends.Add(1)
		return "queued", nil
	})
	model := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "send_email", Args: `{"text":"hi bob"}`}), mock.Deltas("sent", "!"))
	a, err := helikon.NewAgent("mailer", model, helikon.WithTools(send))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func waitStatus(t *testing.T, base, id string, want server.RunStatus) server.RunInfo {
	t.Helper()
	return waitForStatus(t, base, "mailer", id, want)
}

var pausedThenContinued = []string{"run_started", "turn_started", "tool_call_delta", "model_responded", "tool_call_item", "approval_requested", "run_paused",
	"tool_output_item", "turn_started", "token_delta", "token_delta", "model_responded", "message_output", "run_completed"}

func TestApprovals_PausedRunListsCallsAndContinuesUnderItsID(t *testing.T) {
	var sends atomic.Int32
	_, ts := start(t, []helikon.Agent{mailAgent(t, &sends)}, askingContext)
	acc := decode[server.RunAccepted](t, post(t, ts.URL+"/agents/mailer/runs?mode=async", `{"input":"mail bob"}`))
	// A WebSocket follows the run through its pause and continuation.
	type wsResult struct {
		events []string
		status int
	}
	ws := make(chan wsResult, 1)
	go func() {
		events, status := readWebSocket(t, ts.URL+"/agents/mailer/runs/"+acc.RunID+"/events")
		ws <- wsResult{events, int(status)}
	}()
	info := waitStatus(t, ts.URL, acc.RunID, server.StatusPaused)
	if sends.Load() != 0 || len(info.Pending) != 1 || info.PauseID == "" {
		t.Fatalf("paused run: %+v (emails sent: %d)", info, sends.Load())
	}
	resp := get(t, ts.URL+"/agents/mailer/runs/"+acc.RunID+"/approvals")
	list := decode[server.Approvals](t, resp)
	if resp.StatusCode != http.StatusOK || list.PauseID != info.PauseID || len(list.Pending) != 1 ||
		list.Pending[0].Tool != "send_email" || list.Pending[0].Prompt != "send this email?" {
		t.Fatalf("approvals = %d %+v", resp.StatusCode, list)
	}
	// Bad decisions cost a 400, not the run.
	for _, body := range []string{
		`{"decisions":[]}`,
		`{"decisions":[{"id":"nope","kind":"approve"}]}`,
		`{"decisions":[{"id":"` + list.Pending[0].ID + `","kind":"maybe"}]}`,
	} {
		resp := post(t, ts.URL+"/agents/mailer/runs/"+acc.RunID+"/approvals", body)
		if e := decode[server.ErrorBody](t, resp); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: %d %+v", body, resp.StatusCode, e.Error)
		}
	}
	resp = post(t, ts.URL+"/agents/mailer/runs/"+acc.RunID+"/approvals",
		`{"pause_id":"`+info.PauseID+`","decisions":[{"id":"`+list.Pending[0].ID+`","kind":"approve"}]}`)
	cont := decode[server.RunAccepted](t, resp)
	if resp.StatusCode != http.StatusAccepted || cont.RunID != acc.RunID {
		t.Fatalf("decide = %d %+v", resp.StatusCode, cont)
	}
	if loc, _ := resp.Request.URL.Parse(cont.Links.Self); loc.Path != "/agents/mailer/runs/"+acc.RunID {
		t.Fatalf("self link resolves to %s", loc.Path)
	}
	done := waitStatus(t, ts.URL, acc.RunID, server.StatusCompleted)
	if sends.Load() != 1 || done.Result.FinalOutput != "sent!" || done.Pending != nil {
		t.Fatalf("continued run: %+v (emails sent: %d)", done, sends.Load())
	}
	got := <-ws
	if !slices.Equal(got.events, pausedThenContinued) || got.status != 1000 {
		t.Fatalf("the WebSocket saw %v, closed %d; want %v", got.events, got.status, pausedThenContinued)
	}
	// SSE replays the same, and deciding again is refused.
	resp = get(t, ts.URL+"/agents/mailer/runs/"+acc.RunID+"/events")
	if types := types(readFrames(t, resp.Body)); !slices.Equal(types, pausedThenContinued) {
		t.Fatalf("SSE replay: %v", types)
	}
	resp.Body.Close()
	resp = post(t, ts.URL+"/agents/mailer/runs/"+acc.RunID+"/approvals", `{"decisions":[{"id":"`+list.Pending[0].ID+`","kind":"approve"}]}`)
	if e := decode[server.ErrorBody](t, resp); resp.StatusCode != http.StatusConflict || e.Error.Code != server.CodeNotPaused {
		t.Fatalf("second decision: %d %+v", resp.StatusCode, e.Error)
	}
}

func TestApprovals_OneShotAnswersThePauseAndRejectionReachesTheModel(t *testing.T) {
	var sends atomic.Int32
	_, ts := start(t, []helikon.Agent{mailAgent(t, &sends)}, askingContext)
	info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/mailer/runs", `{"input":"mail bob"}`))
	if info.Status != server.StatusPaused || len(info.Pending) != 1 {
		t.Fatalf("one-shot of a pausing run: %+v", info)
	}
	post(t, ts.URL+"/agents/mailer/runs/"+info.ID+"/approvals",
		`{"decisions":[{"id":"`+info.Pending[0].ID+`","kind":"reject","message":"not now"}]}`).Body.Close()
	done := waitStatus(t, ts.URL, info.ID, server.StatusCompleted)
	if sends.Load() != 0 || done.Result.FinalOutput != "sent!" {
		t.Fatalf("rejected run: %+v, emails sent %d", done, sends.Load())
	}
}

func TestApprovals_CancelEndsAPausedRun(t *testing.T) {
	var sends atomic.Int32
	_, ts := start(t, []helikon.Agent{mailAgent(t, &sends)}, askingContext)
	info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/mailer/runs", `{"input":"mail bob"}`))
	resp := post(t, ts.URL+"/agents/mailer/runs/"+info.ID+"/cancel", "")
	got := decode[server.RunInfo](t, resp)
	if got.Status != server.StatusCancelled {
		t.Fatalf("cancel of a paused run: %+v", got)
	}
	resp = get(t, ts.URL+"/agents/mailer/runs/"+info.ID+"/events")
	fs := readFrames(t, resp.Body)
	resp.Body.Close()
	if last := fs[len(fs)-1]; last.event != "run_failed" || !strings.Contains(last.data, "paused") {
		t.Fatalf("the cancelled paused run's stream ends with %+v", last)
	}
	if sends.Load() != 0 {
		t.Fatal("a cancelled call ran")
	}
}

func TestRedis_ApprovalOnAnotherReplicaResumesOnce(t *testing.T) {
	prefix := "helikon-test:" + uuid.NewString()[:8] + ":"
	var sends atomic.Int32
	agent := mailAgent(t, &sends)
	_, a := start(t, []helikon.Agent{agent}, askingContext, server.WithEventLog(redisLog(t, prefix)))
	_, b := start(t, []helikon.Agent{agent}, askingContext, server.WithEventLog(redisLog(t, prefix)))
	info := decode[server.RunInfo](t, post(t, a.URL+"/agents/mailer/runs", `{"input":"mail bob"}`))
	if info.Status != server.StatusPaused {
		t.Fatalf("run on A: %+v", info)
	}
	// Two approvers, one on each replica, at once: one continues the run.
	body := `{"decisions":[{"id":"` + info.Pending[0].ID + `","kind":"approve"}]}`
	var accepted, conflicts atomic.Int32
	var wg sync.WaitGroup
	for _, base := range []string{a.URL, b.URL, b.URL} {
		wg.Go(func() {
			resp := post(t, base+"/agents/mailer/runs/"+info.ID+"/approvals", body)
			e := decode[server.ErrorBody](t, resp)
			switch resp.StatusCode {
			case http.StatusAccepted:
				accepted.Add(1)
			case http.StatusConflict:
				conflicts.Add(1)
				// The loser hears what took its pause, not that a
				// paused run is "paused, not paused".
				if strings.Contains(e.Error.Message, "paused, not paused") {
					t.Errorf("409 of a lost race: %q", e.Error.Message)
				}
			default:
				t.Errorf("decide: %d", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	if accepted.Load() != 1 || conflicts.Load() != 2 {
		t.Fatalf("%d accepted, %d conflicts; want 1 and 2", accepted.Load(), conflicts.Load())
	}
	var done server.RunInfo
	waitFor(t, "the continued run", func() bool {
		done = runInfo(t, a.URL, "mailer", info.ID)
		return done.Status.Final()
	})
	if done.Status != server.StatusCompleted || sends.Load() != 1 {
		t.Fatalf("continued run: %+v, emails sent %d", done, sends.Load())
	}
	resp := get(t, b.URL+"/agents/mailer/runs/"+info.ID+"/events", "Accept", "text/event-stream")
	fs := readFrames(t, resp.Body)
	resp.Body.Close()
	if got := types(fs); !slices.Equal(got, pausedThenContinued) {
		t.Fatalf("B's replay: %v", got)
	}
}

func TestApprovals_ContinuationIsRecordedInTheSession(t *testing.T) {
	var sends atomic.Int32
	sessions := server.NewMemorySessions()
	_, ts := start(t, []helikon.Agent{mailAgent(t, &sends)}, askingContext, server.WithSessionProvider(sessions))
	info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/mailer/runs", `{"input":"mail bob"}`, "X-Session-Id", "alice"))
	post(t, ts.URL+"/agents/mailer/runs/"+info.ID+"/approvals",
		`{"decisions":[{"id":"`+info.Pending[0].ID+`","kind":"approve"}]}`).Body.Close()
	waitStatus(t, ts.URL, info.ID, server.StatusCompleted)
	sess, _ := sessions.Session(context.Background(), "alice")
	items, err := sess.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, it := range items {
		roles = append(roles, string(it.Role))
	}
	if want := []string{"user", "assistant", "tool", "assistant"}; !slices.Equal(roles, want) || items[3].Text() != "sent!" {
		t.Fatalf("the session holds %v (last %q), want %v", roles, items[len(items)-1].Text(), want)
	}
}

// statusTrail is an event log that notes, at each Update of a run, the
// status the log held the run in just before: what any reader could have
// read.
type statusTrail struct {
	server.EventLog
	mu   sync.Mutex
	held map[string][]server.RunStatus
}

func (l *statusTrail) Update(ctx context.Context, info server.RunInfo) error {
	if prev, err := l.EventLog.Info(ctx, info.ID); err == nil {
		l.mu.Lock()
		l.held[info.ID] = append(l.held[info.ID], prev.Status)
		l.mu.Unlock()
	}
	return l.EventLog.Update(ctx, info)
}

func (l *statusTrail) of(id string) []server.RunStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.held[id])
}

// TestApprovals_AContinuationWaitsQueuedWhileAnotherRunHoldsItsSession
// pins that a continuation that must wait is queued from its claim on:
// the claim stored it running, and the queued status followed.
func TestApprovals_AContinuationWaitsQueuedWhileAnotherRunHoldsItsSession(t *testing.T) {
	var sends atomic.Int32
	trail := &statusTrail{EventLog: server.NewMemoryLog(), held: map[string][]server.RunStatus{}}
	_, ts := start(t, []helikon.Agent{mailAgent(t, &sends), newAgent(t, "stuck", time.Hour)}, askingContext, server.WithEventLog(trail))
	paused := decode[server.RunInfo](t, post(t, ts.URL+"/agents/mailer/runs", `{"input":"mail bob"}`, "X-Session-Id", "alice"))
	if paused.Status != server.StatusPaused {
		t.Fatalf("the mailer run: %+v", paused)
	}
	holder := startOnSession(t, ts.URL, "stuck", "alice")
	waitForStatus(t, ts.URL, "stuck", holder.RunID, server.StatusRunning)
	resp := post(t, ts.URL+"/agents/mailer/runs/"+paused.ID+"/approvals", `{"decisions":[{"id":"`+paused.Pending[0].ID+`","kind":"approve"}]}`)
	if acc := decode[server.RunAccepted](t, resp); resp.StatusCode != http.StatusAccepted || acc.Status != server.StatusQueued {
		t.Fatalf("the approval: %d %+v", resp.StatusCode, acc)
	}
	if st := runInfo(t, ts.URL, "mailer", paused.ID).Status; st != server.StatusQueued {
		t.Fatalf("the continuation is %s, want queued", st)
	}
	if sends.Load() != 0 {
		t.Fatal("the queued continuation sent the email")
	}
	post(t, ts.URL+"/agents/stuck/runs/"+holder.RunID+"/cancel", "").Body.Close()
	// Once the holder ends, the continuation takes the session's turn
	// and runs. It completes, or, when the holder's run had recorded its
	// input in the session before its cancel, finds the session moved on,
	// which the runner refuses to continue across.
	var done server.RunInfo
	waitFor(t, "the continuation to end", func() bool {
		done = runInfo(t, ts.URL, "mailer", paused.ID)
		return done.Status.Final()
	})
	completed := done.Status == server.StatusCompleted && sends.Load() == 1
	movedOn := done.Status == server.StatusFailed && done.Error != nil && strings.Contains(done.Error.Message, "session moved on") && sends.Load() == 0
	if !completed && !movedOn {
		t.Fatalf("the continuation: %+v, %d emails sent", done, sends.Load())
	}
	// Before its pause, before it took its turn, before its end.
	want := []server.RunStatus{server.StatusRunning, server.StatusQueued, server.StatusRunning}
	if got := trail.of(paused.ID); !slices.Equal(got, want) {
		t.Errorf("the run's record was %v before each change, want %v", got, want)
	}
}

func TestRedis_PauseInTheSessionStoreResumesOnAnotherReplica(t *testing.T) {
	prefix := "helikon-test:" + uuid.NewString()[:8] + ":"
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	// Both replicas keep sessions in Redis: the session provider's
	// storage is where the runner records the pause.
	sessions := server.SessionFunc(func(ctx context.Context, id string) (helikon.Session, error) {
		if id == "" {
			return helikon.NewMemorySession(), nil
		}
		return rsession.New(client, prefix+id)
	})
	var sends atomic.Int32
	agent := mailAgent(t, &sends)
	opts := []server.Option{askingContext, server.WithSessionProvider(sessions)}
	_, a := start(t, []helikon.Agent{agent}, append(opts, server.WithEventLog(redisLog(t, prefix)))...)
	_, b := start(t, []helikon.Agent{agent}, append(opts, server.WithEventLog(redisLog(t, prefix)))...)
	session := "s-" + uuid.NewString()[:8]
	t.Cleanup(func() {
		keys, _ := client.Keys(context.Background(), "helikon:session:{"+prefix+session+"}*").Result()
		if len(keys) > 0 {
			client.Del(context.Background(), keys...)
		}
	})
	info := decode[server.RunInfo](t, post(t, a.URL+"/agents/mailer/runs", `{"input":"mail bob"}`, "X-Session-Id", session))
	if info.Status != server.StatusPaused || info.PausedRunID == "" {
		t.Fatalf("run on A: %+v", info)
	}
	sess, _ := sessions.Session(context.Background(), session)
	pauses, err := runner.Pending(context.Background(), sess)
	if err != nil || len(pauses) != 1 || pauses[0].RunID != info.PausedRunID {
		t.Fatalf("the session records %+v, %v", pauses, err)
	}
	resp := post(t, b.URL+"/agents/mailer/runs/"+info.ID+"/approvals", `{"decisions":[{"id":"`+info.Pending[0].ID+`","kind":"approve"}]}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("decide on B: %d", resp.StatusCode)
	}
	var done server.RunInfo
	waitFor(t, "the continued run", func() bool {
		done = runInfo(t, a.URL, "mailer", info.ID)
		return done.Status.Final()
	})
	if done.Status != server.StatusCompleted || sends.Load() != 1 {
		t.Fatalf("continued run: %+v, emails sent %d", done, sends.Load())
	}
	if pauses, _ := runner.Pending(context.Background(), sess); len(pauses) != 0 {
		t.Fatalf("the session still lists %d pauses", len(pauses))
	}
}

// TestApprovals_ListedAtOnceOnceTheStreamShowsThePause pins that a client
// that saw run_paused and asks for the approvals at once gets them: the
// run's record says paused only after its run_paused is in the log (which
// takes no event once the run is paused), and the server answers after
// that rather than 409 for a run still running. The log here holds the
// run back right after its run_paused is in, as a loaded machine may,
// until the server reads the run's record for the request.
func TestApprovals_ListedAtOnceOnceTheStreamShowsThePause(t *testing.T) {
	log := &pauseWatchLog{EventLog: server.NewMemoryLog(), appended: make(chan struct{}), release: make(chan struct{})}
	_, ts := start(t, []helikon.Agent{pauser{}}, server.WithEventLog(log))
	acc := decode[server.RunAccepted](t, post(t, ts.URL+"/agents/pauser/runs?mode=async", `{"input":"go"}`))
	select {
	case <-log.appended:
	case <-time.After(10 * time.Second):
		t.Fatal("the run's run_paused never reached the log")
	}
	resp := get(t, ts.URL+"/agents/pauser/runs/"+acc.RunID+"/approvals")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("approvals right after run_paused: %d %s", resp.StatusCode, decode[server.ErrorBody](t, resp).Error.Message)
	}
	if a := decode[server.Approvals](t, resp); a.PauseID != "p1" || len(a.Pending) != 1 || a.Pending[0].ID != "a1" {
		t.Errorf("approvals = %+v, want the pause p1's one call a1", a)
	}
}

// pauser pauses at once on one call.
type pauser struct{}

func (pauser) Name() string        { return "pauser" }
func (pauser) Description() string { return "" }
func (pauser) Run(context.Context, *helikon.RunContext, []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		now := time.Now().UTC()
		if !yield(helikon.RunStarted{Agent: "pauser", At: now}) {
			return
		}
		state := &helikon.RunState{RunID: "r1", PauseID: "p1", Pending: []helikon.PendingApproval{
			{ID: "a1", Agent: "pauser", CallID: "c1", Tool: "Bash", Args: json.RawMessage(`{}`)}}}
		yield(helikon.RunPaused{State: state, At: now})
	}
}

// pauseWatchLog is an event log that, once a run_paused record is in,
// closes appended and holds the appending run back until the next read
// of a run's record (release).
type pauseWatchLog struct {
	server.EventLog
	appended, release chan struct{}
	appendOnce        sync.Once
	releaseOnce       sync.Once
}

func (l *pauseWatchLog) Append(ctx context.Context, runID string, rec server.Record) error {
	err := l.EventLog.Append(ctx, runID, rec)
	if err == nil && rec.Type == "run_paused" {
		l.appendOnce.Do(func() { close(l.appended) })
		select {
		case <-l.release:
		case <-ctx.Done():
		}
	}
	return err
}

func (l *pauseWatchLog) Info(ctx context.Context, runID string) (server.RunInfo, error) {
	select {
	case <-l.appended:
		l.releaseOnce.Do(func() { close(l.release) })
	default:
	}
	return l.EventLog.Info(ctx, runID)
}

// TestApprovals_AReplicaReadsAgainARecordThatStillSaidRunning pins the
// other side of the same race: a server that does not drive the run (a
// replica, or the driving server once the run has left it) may read the
// record just before the pause is stored. It reads the record again
// rather than answering 409 for a run that has paused meanwhile. Here the
// replica's first read of the record is the one from before the pause.
func TestApprovals_AReplicaReadsAgainARecordThatStillSaidRunning(t *testing.T) {
	shared := server.NewMemoryLog()
	_, driving := start(t, []helikon.Agent{pauser{}}, server.WithEventLog(shared))
	acc := decode[server.RunAccepted](t, post(t, driving.URL+"/agents/pauser/runs?mode=async", `{"input":"go"}`))
	waitForStatus(t, driving.URL, "pauser", acc.RunID, server.StatusPaused)
	_, replica := start(t, []helikon.Agent{pauser{}}, server.WithEventLog(&staleOnceLog{EventLog: shared}))
	resp := get(t, replica.URL+"/agents/pauser/runs/"+acc.RunID+"/approvals")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("approvals on the replica: %d %s", resp.StatusCode, decode[server.ErrorBody](t, resp).Error.Message)
	}
	if a := decode[server.Approvals](t, resp); a.PauseID != "p1" || len(a.Pending) != 1 {
		t.Errorf("approvals = %+v, want the pause p1's one call", a)
	}
}

// staleOnceLog answers its first read of a run's record with the record
// as it was before the run paused: running, with no pause.
type staleOnceLog struct {
	server.EventLog
	read atomic.Bool
}

func (l *staleOnceLog) Info(ctx context.Context, runID string) (server.RunInfo, error) {
	info, err := l.EventLog.Info(ctx, runID)
	if err == nil && !l.read.Swap(true) {
		info.Status, info.PauseID, info.Pending = server.StatusRunning, "", nil
	}
	return info, err
}
