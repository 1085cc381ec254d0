package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/server"
)

// datasetSink appends the runs serve's dev UI saves as cases to a JSONL
// dataset, in the form helikon eval run reads.
type datasetSink struct{ path string }

func (d datasetSink) Dataset() string { return filepath.Base(d.path) }

func (d datasetSink) SaveCase(_ context.Context, c server.EvalCase) error {
	expected, err := json.Marshal(c.Expected)
	if err != nil {
		return err
	}
	meta := map[string]any{"agent": c.Agent, "run_id": c.RunID, "saved_by": "helikon serve"}
	if c.SessionID != "" {
		meta["session_id"] = c.SessionID
	}
	err = evals.AppendCase(d.path, evals.Case{ID: c.ID, Input: c.Input, Expected: expected, ExpectedTools: c.ExpectedTools, Metadata: meta})
	if errors.Is(err, evals.ErrCaseExists) {
		return fmt.Errorf("%w: %v", server.ErrCaseExists, err)
	}
	return err
}
