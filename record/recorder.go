package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// Recorder keeps what the models and tools it wraps did: each model
// invocation's request, stream and timing, each tool call's output, by
// case ("" for a plain run). A Recorder is safe for concurrent use; a
// case's invocations are kept in the order they started, which is the
// order a replay plays them.
type Recorder struct {
	redactor Redactor
	now      func() time.Time
	enc      mock.RequestEncoder

	mu      sync.Mutex
	scripts map[string][]*mock.Script
	tools   map[string][]mock.ToolRecord
}

// Option configures a [Recorder].
type Option func(*Recorder)

// WithRedactor makes r scrub what the recorder keeps, instead of the
// core's default redactor (the process environment's secret-named
// variables and secret-named keys); nil keeps everything as it came,
// secrets included.
func WithRedactor(r Redactor) Option { return func(rec *Recorder) { rec.redactor = r } }

// New returns an empty Recorder. It has nothing to validate, so it
// returns no error.
func New(opts ...Option) *Recorder {
	r := &Recorder{redactor: defaultRedactor(), now: time.Now,
		scripts: map[string][]*mock.Script{}, tools: map[string][]mock.ToolRecord{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Model returns m wrapped so that each of its invocations is recorded for
// the plain run.
func (r *Recorder) Model(m helikon.Model) helikon.Model { return r.CaseModel("", m) }

// CaseModel returns m wrapped so that each of its invocations is recorded
// for caseID.
func (r *Recorder) CaseModel(caseID string, m helikon.Model) helikon.Model {
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

// Invoke records the request, then each event with the time since the one
// before, then the error that ends the stream, if any.
func (m *recordingModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		s := &mock.Script{}
		rq, err := m.rec.enc.Encode(req)
		if err != nil {
			yield(nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: "record", Message: err.Error(), Err: err})
			return
		}
		RedactRequest(m.rec.redactor, rq)
		s.Request = rq
		m.rec.add(m.caseID, s)
		last := m.rec.now()
		gap := func() time.Duration {
			now := m.rec.now()
			d := now.Sub(last)
			last = now
			return d
		}
		for ev, err := range m.Model.Invoke(ctx, req) {
			g := gap()
			m.rec.mu.Lock()
			s.Gaps = append(s.Gaps, g)
			if err != nil {
				s.Err = m.rec.modelError(err)
			} else {
				s.Events = append(s.Events, redactEvent(m.rec.redactor, ev))
			}
			m.rec.mu.Unlock()
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// add appends s to the case's scripts.
func (r *Recorder) add(caseID string, s *mock.Script) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scripts[caseID] = append(r.scripts[caseID], s)
}

// modelError returns err as the recording keeps it: a model error of the
// same kind, message redacted.
func (r *Recorder) modelError(err error) error {
	out := &helikon.ModelError{Kind: helikon.ModelOther, Message: err.Error()}
	var me *helikon.ModelError
	if errors.As(err, &me) {
		out.Kind, out.Message, out.RetryAfter = me.Kind, me.Message, me.RetryAfter
		if out.Message == "" && me.Err != nil {
			out.Message = me.Err.Error()
		}
	}
	if r.redactor != nil {
		out.Message = r.redactor.RedactText(out.Message)
	}
	return out
}

// ScriptFile returns what was recorded so far as a script file: the plain
// run's invocations as its default scripts, each case's under its id.
func (r *Recorder) ScriptFile() *mock.ScriptFile {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := &mock.ScriptFile{Version: mock.FormatVersion, Default: []mock.Script{}}
	for id, ss := range r.scripts {
		scripts := make([]mock.Script, len(ss))
		for i, s := range ss {
			scripts[i] = *s
			scripts[i].Events = append([]helikon.ModelEvent(nil), s.Events...)
			scripts[i].Gaps = append([]time.Duration(nil), s.Gaps...)
		}
		if id == "" {
			f.Default = scripts
			continue
		}
		if f.Cases == nil {
			f.Cases = map[string][]mock.Script{}
		}
		f.Cases[id] = scripts
	}
	for id, ts := range r.tools {
		ts = append([]mock.ToolRecord(nil), ts...)
		if id == "" {
			f.Tools = ts
			continue
		}
		if f.CaseTools == nil {
			f.CaseTools = map[string][]mock.ToolRecord{}
		}
		f.CaseTools[id] = ts
	}
	return f
}

// WriteFile writes the recording to path as a JSON script file that
// [mock.LoadScriptFile] reads back, replacing the file whole or not at
// all.
func (r *Recorder) WriteFile(path string) error {
	data, err := mock.MarshalScriptFile(r.ScriptFile())
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to a temporary file beside path and renames it
// over path.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// rawOrNil returns raw, or nil when it is empty.
func rawOrNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return raw
}
