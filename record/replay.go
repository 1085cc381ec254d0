package record

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// Replay plays a recording back through the [mock.Model]: each invocation
// streams the recorded events, and each wrapped tool answers with its
// recorded output without running. In strict mode (the default) each
// request is compared with the recorded one first, and one that differs
// fails the invocation with a [*DriftError] saying what changed; in
// lenient mode only the number of invocations is checked, by [Replay.Check].
// A Replay serves one run (or one case) and is safe for concurrent use.
type Replay struct {
	scripts  []mock.Script
	model    *mock.Model
	lenient  bool
	redactor Redactor
	enc      mock.RequestEncoder

	mu    sync.Mutex
	calls int
	drift *DriftError
	tools map[toolKey]mock.ToolRecord
	used  map[toolKey]bool
}

// toolKey finds a tool call's recorded output.
type toolKey struct{ tool, callID string }

// ReplayOption configures a [Replay].
type ReplayOption func(*replayConfig)

type replayConfig struct {
	caseID   string
	lenient  bool
	gaps     bool
	redactor Redactor
	redSet   bool
}

// Lenient checks only the number of model invocations, not what they were
// asked.
func Lenient() ReplayOption { return func(c *replayConfig) { c.lenient = true } }

// WithRecordedTiming waits the recorded gaps between events instead of
// streaming at once (for a demo).
func WithRecordedTiming() ReplayOption { return func(c *replayConfig) { c.gaps = true } }

// ForCase replays the case caseID of the recording (its default scripts
// when it has none for the case).
func ForCase(caseID string) ReplayOption { return func(c *replayConfig) { c.caseID = caseID } }

// WithReplayRedactor redacts replayed requests with r before comparing
// them with the recorded ones; it must be the redactor the recording was
// made with (the core's default unless [WithRedactor] said otherwise).
func WithReplayRedactor(r Redactor) ReplayOption {
	return func(c *replayConfig) { c.redactor, c.redSet = r, true }
}

// NewReplay returns a Replay of f.
func NewReplay(f *mock.ScriptFile, opts ...ReplayOption) (*Replay, error) {
	if f == nil {
		return nil, fmt.Errorf("record: no recording to replay")
	}
	var c replayConfig
	for _, o := range opts {
		o(&c)
	}
	if !c.redSet {
		c.redactor = defaultRedactor()
	}
	rp := &Replay{scripts: f.ScriptsFor(c.caseID), lenient: c.lenient, redactor: c.redactor,
		tools: map[toolKey]mock.ToolRecord{}, used: map[toolKey]bool{}}
	var mopts []mock.Option
	if f.DeltaDelay > 0 {
		mopts = append(mopts, mock.WithDeltaDelay(f.DeltaDelay))
	}
	if c.gaps {
		mopts = append(mopts, mock.WithRecordedGaps())
	}
	rp.model = mock.New(rp.scripts, mopts...)
	for _, t := range f.ToolRecords(c.caseID) {
		rp.tools[toolKey{t.Tool, t.CallID}] = t
	}
	return rp, nil
}

// Model returns the replaying model.
func (rp *Replay) Model() helikon.Model { return replayModel{rp} }

type replayModel struct{ rp *Replay }

func (m replayModel) Capabilities() helikon.ModelCapabilities { return m.rp.model.Capabilities() }

// Provider returns "mock", as the model that plays the recording.
func (m replayModel) Provider() string { return "mock" }

// ModelID returns "replay".
func (m replayModel) ModelID() string { return "replay" }

// Invoke compares req with the recorded request of the same call (strict
// mode), then plays the call's recorded stream.
func (m replayModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		rp := m.rp
		rp.mu.Lock()
		n := rp.calls
		rp.calls++
		rp.mu.Unlock()
		if !rp.lenient && n < len(rp.scripts) && rp.scripts[n].Request != nil {
			if d, err := rp.compare(n, req); err != nil || d != nil {
				if err == nil {
					err = d
				}
				yield(nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: "replay", Err: err})
				return
			}
		}
		for ev, err := range rp.model.Invoke(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// compare returns the drift of call n's request from the recorded one, or
// nil when they agree.
func (rp *Replay) compare(n int, req *helikon.ModelRequest) (*DriftError, error) {
	got, err := rp.enc.Encode(req)
	if err != nil {
		return nil, err
	}
	RedactRequest(rp.redactor, got)
	changes := diffRequests(rp.scripts[n].Request, got)
	if len(changes) == 0 {
		return nil, nil
	}
	d := &DriftError{Call: n + 1, Calls: len(rp.scripts), Changes: changes}
	rp.mu.Lock()
	if rp.drift == nil {
		rp.drift = d
	}
	rp.mu.Unlock()
	return d, nil
}

// Tool returns t wrapped so that its calls answer with the recorded
// outputs, matched by tool name and call id, without running t. A call
// the recording lacks fails with a [helikon.ToolError].
func (rp *Replay) Tool(t helikon.Tool) helikon.Tool {
	return keepKind(t, &replayTool{Tool: t, rp: rp})
}

type replayTool struct {
	helikon.Tool
	rp *Replay
}

// Effect passes the wrapped tool's effect on, so permissions see it.
func (t *replayTool) Effect() helikon.ToolEffect { return helikon.EffectOf(t.Tool) }

// Call answers with the recorded output.
func (t *replayTool) Call(tc *helikon.ToolContext, _ json.RawMessage) (helikon.ToolOutput, error) {
	k := toolKey{t.Name(), tc.CallID}
	t.rp.mu.Lock()
	rec, ok := t.rp.tools[k]
	t.rp.used[k] = ok
	t.rp.mu.Unlock()
	if !ok {
		return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: t.Name(),
			Err: fmt.Errorf("the recording has no output for call %q", tc.CallID)}
	}
	return rec.ToolOutput()
}

// Calls returns how many model invocations the replay has served.
func (rp *Replay) Calls() int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.calls
}

// Check reports how the run went against the recording: the first drift
// (strict mode), or a number of model invocations other than the
// recorded one, as a [*DriftError]; nil when the run matched.
func (rp *Replay) Check() error {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.drift != nil {
		return rp.drift
	}
	if rp.calls != len(rp.scripts) {
		return &DriftError{Call: rp.calls, Calls: len(rp.scripts), Changes: []Change{{
			What: "turns", Recorded: fmt.Sprint(len(rp.scripts)), Now: fmt.Sprint(rp.calls)}}}
	}
	return nil
}
