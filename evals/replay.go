package evals

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// Recorder captures what models stream during a run, case by case, in the
// mock script format: a live eval run recorded once replays in CI with
// [ReplayFactory], deterministically and with no key. Wrap each case's
// model with [Recorder.Model]; a Recorder is safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	cases map[string][]recording
}

// recording is one invocation's stream. A case's invocations are kept in
// the order they started, which is the order a replay plays them.
type recording struct {
	events []helikon.ModelEvent
	err    error
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{cases: make(map[string][]recording)} }

// Model returns m wrapped so that each of its invocations is recorded for
// caseID.
func (r *Recorder) Model(caseID string, m helikon.Model) helikon.Model {
	return &recordingModel{Model: m, rec: r, caseID: caseID}
}

type recordingModel struct {
	helikon.Model
	rec    *Recorder
	caseID string
}

// Provider and ModelID pass the wrapped model's names on, so traces and
// price tables see the real model.
func (m *recordingModel) Provider() string {
	p, _ := helikon.DescribeModel(m.Model)
	return p
}

func (m *recordingModel) ModelID() string {
	_, id := helikon.DescribeModel(m.Model)
	return id
}

func (m *recordingModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		m.rec.mu.Lock()
		i := len(m.rec.cases[m.caseID])
		m.rec.cases[m.caseID] = append(m.rec.cases[m.caseID], recording{})
		m.rec.mu.Unlock()
		var rec recording
		defer func() {
			m.rec.mu.Lock()
			m.rec.cases[m.caseID][i] = rec
			m.rec.mu.Unlock()
		}()
		for ev, err := range m.Model.Invoke(ctx, req) {
			if err != nil {
				rec.err = err
			} else {
				rec.events = append(rec.events, ev)
			}
			if !yield(ev, err) {
				return
			}
			if err != nil {
				return
			}
		}
	}
}

// ScriptFile returns what was recorded as a script file whose cases are
// keyed by case id.
func (r *Recorder) ScriptFile() *mock.ScriptFile {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := &mock.ScriptFile{Cases: make(map[string][]mock.Script, len(r.cases))}
	for id, recs := range r.cases {
		scripts := make([]mock.Script, len(recs))
		for i, rec := range recs {
			scripts[i] = mock.Script{Events: rec.events, Err: rec.err}
		}
		f.Cases[id] = scripts
	}
	return f
}

// WriteFile writes the recording as a JSON script file that
// [mock.LoadScriptFile] reads back. Model errors are kept as "error"
// elements with their kind, message and retry delay.
func (r *Recorder) WriteFile(path string) error {
	data, err := MarshalScriptFile(r.ScriptFile())
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("evals: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("evals: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("evals: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("evals: %w", err)
	}
	return nil
}

// MarshalScriptFile encodes f in the JSON form [mock.ParseScriptFile]
// reads; it is [mock.MarshalScriptFile].
func MarshalScriptFile(f *mock.ScriptFile) ([]byte, error) { return mock.MarshalScriptFile(f) }

// ReplayFactory returns an agent factory that builds each case's agent
// with build, on a fresh mock model playing the case's recorded scripts
// (or the file's default ones).
func ReplayFactory(f *mock.ScriptFile, build func(c *Case, m helikon.Model) (helikon.Agent, error), opts ...mock.Option) AgentFactory {
	return func(c *Case) (helikon.Agent, error) {
		return build(c, f.Model(c.ID, opts...))
	}
}
