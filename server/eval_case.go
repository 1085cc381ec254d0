package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/paigasus/helikon"
)

// EvalCase is a completed run as an evaluation case, in the terms of
// package evals' datasets: what POST /agents/{name}/runs/{id}/case hands
// the [CaseSink].
type EvalCase struct {
	// ID is "run-" and the run's id.
	ID    string `json:"id" jsonschema:"the case id: run- and the run id"`
	Input string `json:"input" jsonschema:"the user message that started the run"`
	// Expected is the run's answer: the text of its last message.
	Expected string `json:"expected" jsonschema:"the run's answer, the expected output"`
	// ExpectedTools are the run's tool calls by name, in order, as an
	// evaluation run counts them (the calls on the run's own stream, a
	// handoff target's included; an agent tool's inner calls are its
	// own). Empty when the run called none: the case expects none.
	ExpectedTools []string `json:"expected_tools" jsonschema:"the run's tool calls, in order: the expected trajectory"`
	Agent         string   `json:"agent" jsonschema:"the agent that ran"`
	RunID         string   `json:"run_id" jsonschema:"the run the case was saved from"`
	SessionID     string   `json:"session_id,omitempty" jsonschema:"its session, whose earlier turns the case does not hold"`
}

// CaseSink keeps runs saved as evaluation cases (the dev UI's "Save as
// case"; the CLI appends them to a JSONL dataset with evals.AppendCase).
// Implementations must be safe for concurrent use.
type CaseSink interface {
	// Dataset names where the cases go (a file's base name), for the UI.
	Dataset() string
	// SaveCase keeps c, or fails with an error wrapping [ErrCaseExists]
	// when it already holds c.ID.
	SaveCase(ctx context.Context, c EvalCase) error
}

// ErrCaseExists reports a case saved twice.
var ErrCaseExists = errors.New("server: the dataset already has this case")

// WithCaseSink enables POST /agents/{name}/runs/{id}/case, which saves a
// completed run as an evaluation case in s, and GET /eval/dataset, which
// names it.
func WithCaseSink(s CaseSink) Option { return func(c *config) { c.cases = s } }

// The error codes of saving a case.
const (
	// CodeCaseExists: the run is already a case of the dataset (409).
	CodeCaseExists = "case_exists"
	// CodeNotCompleted: only a completed run can be a case (409).
	CodeNotCompleted = "run_not_completed"
	// CodeInputTruncated: the run's record kept only the first 4 KiB of
	// its input, which a case cannot replay as it was (409).
	CodeInputTruncated = "input_truncated"
)

// EvalDataset is the body of GET /eval/dataset.
type EvalDataset struct {
	Dataset string `json:"dataset" jsonschema:"where saved cases go (a file's base name)"`
}

// SavedCase is the body of a 201 from POST /agents/{name}/runs/{id}/case.
type SavedCase struct {
	Dataset string   `json:"dataset" jsonschema:"where the case went"`
	Case    EvalCase `json:"case" jsonschema:"the case as saved"`
}

func (s *Server) noCaseSink(w http.ResponseWriter) bool {
	if s.cases != nil {
		return false
	}
	writeError(w, errorf(http.StatusNotImplemented, CodeNotImplemented, "",
		"saving runs as evaluation cases is off: start helikon serve with --eval-dataset FILE, or set dataset in the [eval] table of agents.toml (server.WithCaseSink)"))
	return true
}

func (s *Server) evalDataset(w http.ResponseWriter, _ *http.Request) {
	if !s.noCaseSink(w) {
		writeJSON(w, http.StatusOK, EvalDataset{Dataset: s.cases.Dataset()})
	}
}

// saveCase builds the case from the run's events as an evaluation run
// would see them, and hands it to the sink.
func (s *Server) saveCase(w http.ResponseWriter, r *http.Request) {
	if s.noCaseSink(w) {
		return
	}
	info, logged, ok := s.lookupRun(w, r)
	if !ok {
		return
	}
	switch {
	case info.Status != StatusCompleted:
		writeError(w, errorf(http.StatusConflict, CodeNotCompleted, "", "only a completed run can be a case; this one is "+string(info.Status)))
		return
	case !logged:
		writeError(w, errorf(http.StatusGone, CodeEventsGone, "", "the events of run "+info.ID+" are no longer kept, so its tool calls are unknown"))
		return
	case len(info.Input) >= maxInputRecord-3 || info.Input == "":
		writeError(w, errorf(http.StatusConflict, CodeInputTruncated, "", "the run's record keeps only the first 4 KiB of its input (or none), so it cannot be a case"))
		return
	}
	c := EvalCase{ID: "run-" + info.ID, Input: info.Input, ExpectedTools: []string{}, Agent: info.Agent, RunID: info.ID, SessionID: info.SessionID}
	for batch, err := range s.log.Tail(r.Context(), info.ID, 0) {
		if err != nil {
			writeError(w, s.unavailable("read the run's events", err))
			return
		}
		for _, rec := range batch {
			if err := c.see(rec); err != nil {
				writeError(w, s.unavailable("read the run's events", err))
				return
			}
		}
	}
	if err := s.cases.SaveCase(r.Context(), c); err != nil {
		if errors.Is(err, ErrCaseExists) {
			writeError(w, errorf(http.StatusConflict, CodeCaseExists, "", err.Error()))
			return
		}
		s.logger.ErrorContext(r.Context(), "server: save the case", "run", info.ID, "err", err)
		writeError(w, errorf(http.StatusInternalServerError, CodeInternal, "", "save the case: "+err.Error()))
		return
	}
	writeJSON(w, http.StatusCreated, SavedCase{Dataset: s.cases.Dataset(), Case: c})
}

// see takes one of the run's records into the case: its answer is the
// last message on the run's own stream, its trajectory the tool calls
// there (a sub-run's, wrapped in sub_run_event, are not the run's).
func (c *EvalCase) see(rec Record) error {
	if rec.Type != "message_output" && rec.Type != "tool_call_item" {
		return nil
	}
	var ev struct {
		Item helikon.Item `json:"item"`
	}
	if err := json.Unmarshal(rec.Data, &ev); err != nil {
		return err
	}
	if rec.Type == "message_output" {
		c.Expected = ev.Item.Text()
		return nil
	}
	for _, u := range ev.Item.ToolUses() {
		c.ExpectedTools = append(c.ExpectedTools, u.Name)
	}
	return nil
}
