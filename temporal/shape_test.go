package temporal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// TestShape_RoundTripsThroughAPayloadToTheSameTransitionContext records
// every scenario's shape, encodes it as the side effect's payload does,
// and rebuilds each agent's transition context from it: the same as the
// worker's own, so a run with a recorded shape behaves as it did before.
func TestShape_RoundTripsThroughAPayloadToTheSameTransitionContext(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			ag, posture := sc.build(t)
			reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}, posture: posture})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(reg.shape(agentRef{Name: ag.Name()}, stepTimeouts{localModel: true, toolAttempts: map[string]int32{"add": 1}}))
			if err != nil {
				t.Fatal(err)
			}
			var s runShape
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if s.Mode != modeLocalModel || s.Attempts["add"] != 1 {
				t.Fatalf("mode %q, attempts %v; want the worker's", s.Mode, s.Attempts)
			}
			if len(s.Agents) != len(ag.Handoffs())+1 {
				t.Fatalf("%d agents recorded, want the agent and its %d handoff targets", len(s.Agents), len(ag.Handoffs()))
			}
			for name, as := range s.Agents {
				a := agentRef{Name: name}
				want, parallel, err := reg.plan(a)
				if err != nil {
					t.Fatal(err)
				}
				got, err := reg.transitionCtx(a, as)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := encodeCtx(t, got), encodeCtx(t, want); g != w || as.Parallel != parallel || got.Output != want.Output {
					t.Fatalf("%s: rebuilt %s (parallel %d), want %s (parallel %d)", name, g, as.Parallel, w, parallel)
				}
			}
		})
	}
}

// encodeCtx encodes what of a transition context a shape records.
func encodeCtx(t *testing.T, tc helikon.TransitionCtx) string {
	t.Helper()
	v := struct {
		Agent, Model string
		Tools        []helikon.ToolDef
		Settings     helikon.ModelSettings
		MaxTurns     int
		Handoffs     map[string]string
		Output       *outputShape
	}{tc.Agent, tc.Model, tc.Tools, tc.Settings, tc.MaxTurns, tc.Handoffs, nil}
	if tc.Output != nil {
		v.Output = &outputShape{Name: tc.Output.Name, Schema: tc.Output.Schema}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestShape_AChangedOutputTypeKeepsTheRecordedSchema rebuilds an output
// type whose schema the worker's agent no longer has from the recorded
// one: a run checks its answers against the schema it started with.
func TestShape_AChangedOutputTypeKeepsTheRecordedSchema(t *testing.T) {
	for _, sc := range scenarios() {
		if sc.name != "structured output repaired" {
			continue
		}
		ag, _ := sc.build(t)
		reg, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{ag}})
		if err != nil {
			t.Fatal(err)
		}
		recorded := reg.shape(agentRef{Name: ag.Name()}, stepTimeouts{}).Agents[ag.Name()]
		changed, err := newRegistry(workerConfig{agents: []*helikon.LLMAgent{mustAgent(t, ag.Name(), mock.Scripted())}})
		if err != nil {
			t.Fatal(err)
		}
		tc, err := changed.transitionCtx(agentRef{Name: ag.Name()}, recorded)
		if err != nil {
			t.Fatal(err)
		}
		if tc.Output == nil || tc.Output.Check(`{"label": 3}`) == nil || tc.Output.Check(`{"label": "ok"}`) != nil {
			t.Fatalf("rebuilt output type %+v does not check against the recorded schema", tc.Output)
		}
	}
}

// TestShape_UnknownRecordedModeIsRefusedNamingBothModes: a run recorded
// in a step mode this worker does not know (a later release's) fails
// with an error naming the recorded mode and the worker's, not with a
// replay that cannot match.
func TestShape_UnknownRecordedModeIsRefusedNamingBothModes(t *testing.T) {
	for _, m := range []stepMode{modeActivities, modeLocalModel, modeLocal} {
		if err := checkMode(m, modeActivities); err != nil {
			t.Errorf("mode %q refused: %v", m, err)
		}
	}
	err := checkMode("local turbo", modeLocal)
	if err == nil || !strings.Contains(err.Error(), `"local turbo"`) || !strings.Contains(err.Error(), `"local activities"`) {
		t.Fatalf("unknown mode: %v, want an error naming both modes", err)
	}
}
