package evals

import (
	"fmt"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/record"
)

// Recorder captures what models stream and tools return during an eval
// run, case by case: a live run recorded once replays in CI with
// [RecordingFactory] or [ReplayFactory], deterministically and with no
// key. It is a [record.Recorder] whose runs are the dataset's cases: wrap
// each case's model with [Recorder.Model] (and its side-effecting tools
// with [Recorder.Tool]). A Recorder is safe for concurrent use.
type Recorder struct {
	*record.Recorder
}

// NewRecorder returns an empty Recorder.
func NewRecorder(opts ...record.Option) *Recorder { return &Recorder{record.New(opts...)} }

// Model returns m wrapped so that each of its invocations is recorded for
// caseID.
func (r *Recorder) Model(caseID string, m helikon.Model) helikon.Model {
	return r.CaseModel(caseID, m)
}

// Tool returns t wrapped so that each of its calls is recorded for caseID.
func (r *Recorder) Tool(caseID string, t helikon.Tool) helikon.Tool { return r.CaseTool(caseID, t) }

// MarshalScriptFile encodes f in the JSON form [mock.ParseScriptFile]
// reads; it is [mock.MarshalScriptFile].
func MarshalScriptFile(f *mock.ScriptFile) ([]byte, error) { return mock.MarshalScriptFile(f) }

// ReplayFactory returns an agent factory that builds each case's agent
// with build, on a fresh mock model playing the case's recorded scripts
// (or the file's default ones), without comparing requests.
func ReplayFactory(f *mock.ScriptFile, build func(c *Case, m helikon.Model) (helikon.Agent, error), opts ...mock.Option) AgentFactory {
	return func(c *Case) (helikon.Agent, error) {
		return build(c, f.Model(c.ID, opts...))
	}
}

// RecordingFactory returns an agent factory for cases that name a
// recording (the case's "recording" member): build makes the case's agent
// on the [record.Replay] of that file, whose Model and Tool it uses. The
// replay is strict unless opts say otherwise, so a case whose prompt,
// tools, history or settings drifted from its recording fails with a
// [*record.DriftError] saying what changed. Each file is read once.
func RecordingFactory(build func(c *Case, rp *record.Replay) (helikon.Agent, error), opts ...record.ReplayOption) AgentFactory {
	var mu sync.Mutex
	files := map[string]*mock.ScriptFile{}
	return func(c *Case) (helikon.Agent, error) {
		if c.Recording == "" {
			return nil, fmt.Errorf("evals: case %s names no recording", c.ID)
		}
		mu.Lock()
		f, ok := files[c.Recording]
		mu.Unlock()
		if !ok {
			var err error
			if f, err = mock.LoadScriptFile(c.Recording); err != nil {
				return nil, fmt.Errorf("evals: case %s: %w", c.ID, err)
			}
			mu.Lock()
			files[c.Recording] = f
			mu.Unlock()
		}
		rp, err := record.NewReplay(f, append([]record.ReplayOption{record.ForCase(c.ID)}, opts...)...)
		if err != nil {
			return nil, fmt.Errorf("evals: case %s: %w", c.ID, err)
		}
		return build(c, rp)
	}
}
