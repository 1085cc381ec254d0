package temporal

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon"
)

// shapeChange versions the run's recorded shape. From version 1 on, a run
// records at its start, in its history, the configuration that decides
// which commands its workflow issues ([runShape]); every worker that
// replays or continues the run reads it from there, not from its own
// agents, so a worker whose agent changed (a handoff lost, a tool gained)
// or whose step mode changed runs the run as it started. Version 1 also
// records a model turn run as a local activity before a local step
// follows it (see [workflowHost.short]), and runs a tool with an
// attempt cap as an activity in local mode. A run recorded before it
// (version 0) reads all of these from the worker, as it did.
const shapeChange = "helikon.run-shape"

// stepMode is how a worker runs model turns and tool calls. A run records
// it by this name.
type stepMode string

// The step modes.
const (
	// modeActivities runs both as activities (the default).
	modeActivities stepMode = "activities"
	// modeLocalModel runs model turns as local activities
	// ([WithLocalModelCalls]).
	modeLocalModel stepMode = "local model calls"
	// modeLocal runs both as local activities ([WithLocalActivities]).
	modeLocal stepMode = "local activities"
)

// mode is the step mode t sets.
func (t stepTimeouts) mode() stepMode {
	switch {
	case t.local:
		return modeLocal
	case t.localModel:
		return modeLocalModel
	}
	return modeActivities
}

// runShape is what a run records at its start: its step mode, the tools
// whose attempts are capped, and the shape of every agent it may run in
// its own workflow (its agent and the agents handoffs reach).
type runShape struct {
	Mode stepMode `json:"mode"`
	// Attempts caps the attempts of the named tools' calls.
	Attempts map[string]int32 `json:"attempts,omitempty"`
	// Agents are by name; an agent the worker did not have is missing.
	Agents map[string]agentShape `json:"agents"`
}

// agentShape is the part of an agent's configuration that decides the
// commands of its loop: what [helikon.TransitionCtx] holds besides the
// conversation, the tool-call bound, and which handoffs filter the
// transcript (a filter's output is recorded, see [workflowHost.filter]).
type agentShape struct {
	Model    string                `json:"model,omitempty"`
	Tools    []helikon.ToolDef     `json:"tools,omitempty"`
	Settings helikon.ModelSettings `json:"settings"`
	MaxTurns int                   `json:"max_turns,omitempty"`
	Output   *outputShape          `json:"output,omitempty"`
	Handoffs map[string]string     `json:"handoffs,omitempty"`
	Filtered []string              `json:"filtered,omitempty"`
	Parallel int                   `json:"parallel,omitempty"`
}

// outputShape is an agent's output type as it crosses a payload.
type outputShape struct {
	Name   string             `json:"name"`
	Schema *jsonschema.Schema `json:"schema"`
}

// shape returns the shape of a run of top on this worker in mode t: top
// and, transitively, its handoff targets. It runs once per run, inside a
// side effect, so its outcome is recorded.
func (r *registry) shape(top agentRef, t stepTimeouts) runShape {
	s := runShape{Mode: t.mode(), Agents: map[string]agentShape{}}
	if len(t.toolAttempts) > 0 {
		s.Attempts = make(map[string]int32, len(t.toolAttempts))
		for name, n := range t.toolAttempts {
			s.Attempts[name] = n
		}
	}
	queue := []string{top.Name}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, done := s.Agents[name]; done {
			continue
		}
		ag, err := r.agent(name)
		if err != nil {
			continue
		}
		st := ag.Steps(r.baseContext(agentRef{Name: name, Depth: top.Depth, Parent: top.Parent, Tool: top.Tool}))
		tc := st.TransitionCtx()
		as := agentShape{Model: tc.Model, Tools: tc.Tools, Settings: tc.Settings, MaxTurns: tc.MaxTurns, Handoffs: tc.Handoffs, Parallel: st.ParallelToolCalls()}
		if tc.Output != nil {
			as.Output = &outputShape{Name: tc.Output.Name, Schema: tc.Output.Schema}
		}
		for _, target := range tc.Handoffs {
			if h := st.Handoff(target); h != nil && h.InputFilter != nil && !slices.Contains(as.Filtered, target) {
				as.Filtered = append(as.Filtered, target)
			}
			queue = append(queue, target)
		}
		slices.Sort(as.Filtered)
		s.Agents[name] = as
	}
	return s
}

// transitionCtx rebuilds a's transition context from its recorded shape.
// The output type is the worker's when its schema is the recorded one
// (it also decodes into the agent's Go type), else one built from the
// recorded schema.
func (r *registry) transitionCtx(a agentRef, s agentShape) (helikon.TransitionCtx, error) {
	tc := helikon.TransitionCtx{Agent: a.Name, Model: s.Model, Tools: s.Tools, Settings: s.Settings, MaxTurns: s.MaxTurns, Handoffs: s.Handoffs}
	if s.Output == nil {
		return tc, nil
	}
	if ag, err := r.agent(a.Name); err == nil {
		if cur := ag.Steps(nil).TransitionCtx().Output; cur != nil && cur.Name == s.Output.Name && sameSchema(cur.Schema, s.Output.Schema) {
			tc.Output = cur
			return tc, nil
		}
	}
	out, err := helikon.NewOutputType(s.Output.Name, s.Output.Schema)
	if err != nil {
		return tc, fmt.Errorf("temporal: the run's recorded output type of %q: %w", a.Name, err)
	}
	tc.Output = out
	return tc, nil
}

// sameSchema reports whether two schemas encode alike.
func sameSchema(a, b *jsonschema.Schema) bool {
	ja, err := json.Marshal(a)
	if err != nil {
		return false
	}
	jb, err := json.Marshal(b)
	return err == nil && string(ja) == string(jb)
}

// checkMode refuses a run recorded in a step mode this worker does not
// know (a newer release's), naming both modes: it cannot replay it.
func checkMode(recorded, worker stepMode) error {
	switch recorded {
	case modeActivities, modeLocalModel, modeLocal:
		return nil
	}
	return fmt.Errorf("temporal: the run records step mode %q, which this worker (step mode %q) cannot run: run it on workers of the release that started it", recorded, worker)
}
