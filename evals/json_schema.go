package evals

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// DefaultMaxSchemaBytes bounds a schema file read by [LoadJSONSchema].
const DefaultMaxSchemaBytes = 1 << 20

// JSONSchema validates the final output, parsed as JSON, against a JSON
// Schema. It never skips: every case is expected to answer in the schema's
// shape. References outside the schema are not loaded.
type JSONSchema struct {
	resolved *jsonschema.Resolved
}

// NewJSONSchema returns an evaluator validating against s.
func NewJSONSchema(s *jsonschema.Schema) (*JSONSchema, error) {
	if s == nil {
		return nil, fmt.Errorf("evals: json_schema: schema is required")
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("evals: json_schema: %w", err)
	}
	return &JSONSchema{resolved: rs}, nil
}

// LoadJSONSchema returns an evaluator validating against the schema file at
// path.
func LoadJSONSchema(path string) (*JSONSchema, error) {
	data, err := readBounded(path, DefaultMaxSchemaBytes)
	if err != nil {
		return nil, fmt.Errorf("evals: json_schema: %w", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("evals: json_schema: %s: %w", path, err)
	}
	return NewJSONSchema(&s)
}

// Name returns "json_schema".
func (*JSONSchema) Name() string { return "json_schema" }

// Evaluate scores 1 for a valid output and 0 otherwise, with the schema
// errors as the reason.
func (j *JSONSchema) Evaluate(_ context.Context, _ *Case, out *Outcome) (Score, error) {
	got := strings.TrimSpace(out.FinalOutput)
	if len(got) > DefaultMaxOutputBytes {
		return Fail(0, fmt.Sprintf("output of %d bytes is over the %d-byte limit", len(got), DefaultMaxOutputBytes)), nil
	}
	var v any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		return Fail(0, "output is not JSON: "+err.Error()), nil
	}
	if err := j.resolved.Validate(v); err != nil {
		return Fail(0, strings.Join(strings.Fields(err.Error()), " ")), nil
	}
	return Pass(1, ""), nil
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: over the %d-byte limit", path, limit)
	}
	return data, nil
}
