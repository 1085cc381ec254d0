package evals_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/mock"
)

func TestFromConfig_BuildsEveryBuiltinByName(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := map[string]evals.EvaluatorConfig{
		"exact_match":     {Name: "exact_match"},
		"tool_trajectory": {Name: "tool_trajectory", Mode: evals.TrajectoryAnyOrder},
		"json_schema":     {Name: "json_schema", Schema: schema},
		"llm_judge":       {Name: "llm_judge", Model: mock.Scripted(), Rubric: "correct", Threshold: 0.7},
	}
	for _, name := range evals.BuiltinNames() {
		e, err := evals.FromConfig(good[name])
		if err != nil || e.Name() != name {
			t.Errorf("%s: %v %v", name, e, err)
		}
	}
	if tt, _ := evals.FromConfig(evals.EvaluatorConfig{Name: "tool_trajectory"}); tt.(*evals.ToolTrajectory).Mode() != evals.TrajectoryExact {
		t.Error("tool_trajectory does not default to exact")
	}
	if _, err := evals.FromConfig(evals.EvaluatorConfig{Name: "bleu"}); !errors.Is(err, evals.ErrUnknownEvaluator) {
		t.Errorf("unknown name: %v", err)
	}
	for _, bad := range []evals.EvaluatorConfig{
		{Name: "json_schema"},
		{Name: "json_schema", Schema: filepath.Join(t.TempDir(), "missing.json")},
		{Name: "llm_judge", Model: mock.Scripted(), Rubric: "r"},
		{Name: "llm_judge", Rubric: "r", Threshold: 0.5},
		{Name: "tool_trajectory", Mode: "sideways"},
	} {
		if _, err := evals.FromConfig(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
