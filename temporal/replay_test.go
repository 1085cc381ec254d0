package temporal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
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
		if err := os.WriteFile(historyFile(sc.name), b, 0o644); err != nil {
			t.Fatal(err)
		}
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
