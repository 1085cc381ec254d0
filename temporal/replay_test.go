package temporal

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/paigasus/helikon/mock"
)

// historyDir holds histories recorded on a dev server by the current
// workflow code, one per scenario; each subdirectory named for a release
// (v0: before runs recorded their shape) holds those that release
// recorded, which this code must still replay. Regenerate the current ones
// with HELIKON_RECORD_HISTORIES=1 after a deliberate change to the
// workflow's commands, once the previous ones are kept in a release's
// directory, and keep a change that breaks replay behind a workflow
// version (workflow.GetVersion).
const historyDir = "testdata/histories"

// unrecorded are, by release, the scenarios added after it.
var unrecorded = map[string]map[string]bool{"v0": {"handoff with an input filter": true}}

// releaseDirs are the directories of the histories to replay: the current
// code's and each earlier release's.
var releaseDirs = []string{historyDir, filepath.Join(historyDir, "v0")}

func historyFile(dir, name string) string {
	return filepath.Join(dir, strings.NewReplacer(" ", "_", ",", "").Replace(name)+".json")
}

func TestReplay_RecordedHistoriesStillReplay(t *testing.T) {
	if os.Getenv("HELIKON_RECORD_HISTORIES") != "" {
		recordHistories(t)
	}
	for _, dir := range releaseDirs {
		for _, sc := range scenarios() {
			if unrecorded[filepath.Base(dir)][sc.name] {
				continue // the release did not have the scenario
			}
			t.Run(filepath.Base(dir)+"/"+sc.name, func(t *testing.T) {
				path := historyFile(dir, sc.name)
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
}

// recordHistories runs every scenario on the dev server and writes its
// history; HELIKON_RECORD_HISTORIES set to a scenario's name records that
// one only.
func recordHistories(t *testing.T) {
	c := devClient(t)
	if err := os.MkdirAll(historyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	only := os.Getenv("HELIKON_RECORD_HISTORIES")
	for _, sc := range scenarios() {
		if only != "1" && only != sc.name {
			continue
		}
		ag, posture := sc.build(t)
		id := recordedID(sc.name)
		r, err := NewRunner(c, startWorker(t, c, WithAgents(ag), WithPosture(posture)), WithWorkflowID(func(string) string { return id }))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = r.Run(context.Background(), ag, nil, helikon.UserText("go"))
		saveHistory(t, c, id, historyFile(historyDir, sc.name))
	}
}

// history returns the events of workflow id's history.
func history(t testing.TB, c client.Client, id string) []*historypb.HistoryEvent {
	t.Helper()
	var out []*historypb.HistoryEvent
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// saveHistory writes the history of workflow id to path.
func saveHistory(t *testing.T, c client.Client, id, path string) {
	t.Helper()
	h := historypb.History{Events: history(t, c, id)}
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
	if err := replayWith(reg, stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout}, path, id); err != nil {
		t.Fatal(err)
	}
}

// replayWith replays the recorded history at path, of the workflow id, on
// a replayer that registers reg's agents in the step mode t sets.
func replayWith(reg *registry, t stepTimeouts, path, id string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var h historypb.History
	if err := protojson.Unmarshal(b, &h); err != nil {
		return err
	}
	rp := worker.NewWorkflowReplayer()
	registerWorkflow(rp, reg, t)
	opts := worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: id, RunID: h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId()}}
	if err := rp.ReplayWorkflowHistoryWithOptions(quietLogger(), &h, opts); err != nil {
		return fmt.Errorf("the workflow no longer replays its recorded history %s: %w", path, err)
	}
	return nil
}

// TestReplay_ARunReplaysOnAWorkerWhoseAgentOrModeChanged replays
// histories the current code recorded on workers whose agent or step mode
// changed since: the run's recorded shape, not the worker's agent, decides
// the commands, so each replays. A history of the release before shapes
// were recorded (v0) does not, when the change touches its commands: it
// reads its shape from the worker.
func TestReplay_ARunReplaysOnAWorkerWhoseAgentOrModeChanged(t *testing.T) {
	billing := mustAgent(t, "billing", mock.Scripted())
	for _, tc := range []struct {
		scenario string
		change   string
		agent    func(t *testing.T) *helikon.LLMAgent
		timeouts stepTimeouts
		// v0Fails says the previous release's history fails to replay
		// with the change.
		v0Fails bool
	}{
		{"handoff", "lost its handoff and its target", func(t *testing.T) *helikon.LLMAgent {
			return mustAgent(t, "triage", mock.Scripted())
		}, stepTimeouts{}, true},
		{"handoff", "gained a tool", func(t *testing.T) *helikon.LLMAgent {
			return mustAgent(t, "triage", mock.Scripted(), helikon.WithTools(addTool), helikon.WithHandoffs(helikon.HandoffTo(billing)))
		}, stepTimeouts{}, false},
		{"tool rounds, one parallel", "switched to local activities", func(t *testing.T) *helikon.LLMAgent {
			return mustAgent(t, "calc", mock.Scripted(), helikon.WithTools(addTool))
		}, stepTimeouts{local: true}, true},
		{"tool rounds, one parallel", "switched to local model calls", func(t *testing.T) *helikon.LLMAgent {
			return mustAgent(t, "calc", mock.Scripted(), helikon.WithTools(addTool))
		}, stepTimeouts{localModel: true}, true},
		{"structured output repaired", "lost its output type", func(t *testing.T) *helikon.LLMAgent {
			return mustAgent(t, "judge", mock.Scripted())
		}, stepTimeouts{}, true},
		{"turn budget", "raised its turn limit", func(t *testing.T) *helikon.LLMAgent {
			return mustAgent(t, "calc", mock.Scripted(), helikon.WithTools(addTool), helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 10}))
		}, stepTimeouts{}, true},
	} {
		t.Run(tc.scenario+", "+tc.change, func(t *testing.T) {
			reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{tc.agent(t)}})
			if err != nil {
				t.Fatal(err)
			}
			to := tc.timeouts
			to.model, to.tool, to.other = DefaultModelTimeout, DefaultToolTimeout, DefaultStepTimeout
			if err := replayWith(reg, to, historyFile(historyDir, tc.scenario), recordedID(tc.scenario)); err != nil {
				t.Fatal(err)
			}
			err = replayWith(reg, to, historyFile(filepath.Join(historyDir, "v0"), tc.scenario), recordedID(tc.scenario))
			if tc.v0Fails && err == nil {
				t.Fatal("the previous release's history replayed with the change; the test no longer shows what recording the shape fixes")
			}
		})
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
	for _, dir := range releaseDirs {
		replay(t, reg, filepath.Join(dir, subPauseHistory), subPauseID)
		replay(t, reg, filepath.Join(dir, subPauseChildRecord), subPauseChildID)
	}
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
