package temporal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/paigasus/helikon"
)

// historyDir holds histories recorded on a dev server, one per scenario.
// Regenerate them with HELIKON_RECORD_HISTORIES=1 after a deliberate change
// to the workflow's commands, and keep a change that breaks replay behind a
// workflow version (workflow.GetVersion).
const historyDir = "testdata/histories"

func historyFile(name string) string {
	return filepath.Join(historyDir, strings.NewReplacer(" ", "_", ",", "").Replace(name)+".json")
}

func TestReplay_RecordedHistoriesStillReplay(t *testing.T) {
	if os.Getenv("HELIKON_RECORD_HISTORIES") != "" {
		recordHistories(t)
	}
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			path := historyFile(sc.name)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("no recorded history (run with HELIKON_RECORD_HISTORIES=1): %v", err)
			}
			ag, posture := sc.build(t)
			reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
			if err != nil {
				t.Fatal(err)
			}
			replay(t, reg, path, recordedID(sc.name))
		})
	}
}

// recordHistories runs every scenario on the dev server and writes its
// history.
func recordHistories(t *testing.T) {
	c := devClient(t)
	if err := os.MkdirAll(historyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios() {
		ag, posture := sc.build(t)
		id := recordedID(sc.name)
		r, err := NewRunner(c, startWorker(t, c, WithAgents(ag), WithPosture(posture)), WithWorkflowID(func(string) string { return id }))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = r.Run(context.Background(), ag, nil, helikon.UserText("go"))
		saveHistory(t, c, id, historyFile(sc.name))
	}
}

// saveHistory writes the history of workflow id to path.
func saveHistory(t *testing.T, c client.Client, id, path string) {
	t.Helper()
	var h historypb.History
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	b, err := protojson.MarshalOptions{Multiline: true}.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordedID is the workflow id a scenario's history was recorded under.
// A replay runs under it: a child workflow's id derives from it.
func recordedID(scenario string) string { return "record-" + strings.ReplaceAll(scenario, " ", "-") }

// replay replays the recorded history at path, of the workflow id, on a
// replayer that registers reg's agents.
func replay(t *testing.T, reg *registry, path, id string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h historypb.History
	if err := protojson.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	rp := worker.NewWorkflowReplayer()
	registerWorkflow(rp, reg, stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout})
	opts := worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: id, RunID: h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId()}}
	if err := rp.ReplayWorkflowHistoryWithOptions(quietLogger(), &h, opts); err != nil {
		t.Fatalf("the workflow no longer replays its recorded history: %v", err)
	}
}

// TestReplay_AgentToolRunInsideItsActivityStillReplays replays a run
// recorded before agent tools ran as child workflows, when the sub-run ran
// inside the tool's activity: a worker of this version still finishes
// such a run.
func TestReplay_AgentToolRunInsideItsActivityStillReplays(t *testing.T) {
	for _, sc := range scenarios() {
		if sc.name != "agent as tool" {
			continue
		}
		ag, posture := sc.build(t)
		reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
		if err != nil {
			t.Fatal(err)
		}
		replay(t, reg, filepath.Join(historyDir, "legacy", "agent_as_tool_in_activity.json"), recordedID(sc.name))
	}
}

// The recorded run of a sub-run that paused: the parent's history and its
// agent tool's child's, the child's id derived from the parent's.
const (
	subPauseID          = "record-sub-run-pause"
	subPauseHistory     = "sub_run_pause.json"
	subPauseChildID     = subPauseID + "/c2"
	subPauseChildRecord = "sub_run_pause_child.json"
)

// TestReplay_SubRunPauseStillReplays replays a run whose agent tool's
// sub-run paused for approval beside a call of the run's own, recorded on
// a dev server through Runner.Run (which waits with the wait update) and
// Runner.ResumePaused: the parent's history (its signals and the
// decisions it forwarded) and the child's (its versioned pause).
func TestReplay_SubRunPauseStillReplays(t *testing.T) {
	if os.Getenv("HELIKON_RECORD_HISTORIES") != "" {
		recordSubPause(t)
	}
	var n atomic.Int32
	ag, posture := subPauseRun(t, 1, true, &n)
	reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
	if err != nil {
		t.Fatal(err)
	}
	replay(t, reg, filepath.Join(historyDir, subPauseHistory), subPauseID)
	replay(t, reg, filepath.Join(historyDir, subPauseChildRecord), subPauseChildID)
}

func recordSubPause(t *testing.T) {
	c := devClient(t)
	var n atomic.Int32
	ag, posture := subPauseRun(t, 1, true, &n)
	r, err := NewRunner(c, startWorker(t, c, WithAgents(ag), WithPosture(posture)), WithWorkflowID(func(string) string { return subPauseID }))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = r.Run(ctx, ag, nil, helikon.UserText("go"))
	var paused *helikon.PausedError
	if !errors.As(err, &paused) {
		t.Fatalf("record: %v, want a pause", err)
	}
	if res, err := r.ResumePaused(ctx, ag, nil, subPauseID, decideAll(paused.State.Pending, false)); err != nil || res.FinalOutput != "done" {
		t.Fatalf("record: resumed %v %v", res, err)
	}
	saveHistory(t, c, subPauseID, filepath.Join(historyDir, subPauseHistory))
	saveHistory(t, c, subPauseChildID, filepath.Join(historyDir, subPauseChildRecord))
}

// TestReplay_SubRunRejectionBeforeSubRunsPausedStillReplays replays a run
// recorded before sub-runs could pause: the sub-run's call that asked for
// a human was rejected inside the child workflow. A worker of this version
// replays the child's history on the unversioned path, rejecting again.
func TestReplay_SubRunRejectionBeforeSubRunsPausedStillReplays(t *testing.T) {
	var n atomic.Int32
	ag, posture := subPauseRun(t, 1, false, &n)
	reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
	if err != nil {
		t.Fatal(err)
	}
	const id = "record-sub-run-rejected"
	replay(t, reg, filepath.Join(historyDir, "legacy", "sub_run_rejected.json"), id)
	replay(t, reg, filepath.Join(historyDir, "legacy", "sub_run_rejected_child.json"), id+"/c2")
}
