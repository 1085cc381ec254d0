package helikon_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

type category struct {
	Category   string  `json:"category" jsonschema:"spending category"`
	Confidence float64 `json:"confidence" jsonschema:"0.0–1.0 confidence"`
	Recurring  bool    `json:"recurring"`
	Note       *string `json:"note,omitempty"`
}

const netflix = `{"category":"Subscriptions","confidence":0.93,"recurring":true}`

func TestStructuredOutput(t *testing.T) {
	tests := []struct {
		name       string
		scripts    []mock.Script
		wantErr    error
		wantEvents []string
		wantCalls  int
	}{
		{"valid first answer", []mock.Script{mock.Text(netflix)}, nil,
			[]string{"run_started", "turn_started", "token_delta", "model_responded", "message_output", "run_completed"}, 1},
		{"one repair turn fixes a miss", []mock.Script{mock.Text(`{"category":"Subscriptions"}`), mock.Text(netflix)}, nil,
			[]string{"run_started", "turn_started", "token_delta", "model_responded", "message_output", "repair_started", "turn_started", "token_delta", "model_responded", "message_output", "run_completed"}, 2},
		{"a second miss fails with the schema errors", []mock.Script{mock.Text(`nope`), mock.Text(`{"category":7}`)}, helikon.ErrInvalidStructuredOutput,
			[]string{"run_started", "turn_started", "token_delta", "model_responded", "message_output", "repair_started", "turn_started", "token_delta", "model_responded", "message_output", "structured_output_failed", "run_failed"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mock.New(tt.scripts)
			agent := mustAgent(t, "categorizer", m, helikon.WithOutput[category]())
			res, err := helikon.CollectTyped[category](agent.Run(context.Background(), nil, helikon.UserText("NETFLIX.COM $15.49")))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got := typesOf(res.Events); !slicesEqual(got, tt.wantEvents) {
				t.Errorf("events = %v\nwant     %v", got, tt.wantEvents)
			}
			if len(m.Requests()) != tt.wantCalls {
				t.Errorf("model calls = %d", len(m.Requests()))
			}
			for _, req := range m.Requests() {
				rf := req.Settings.ResponseFormat
				if rf == nil || rf.Type != helikon.FormatJSONSchema || !rf.Strict || rf.Name != "category" {
					t.Errorf("request response format = %+v", rf)
				}
			}
			if tt.wantErr == nil {
				if res.Output.Category != "Subscriptions" || !res.Output.Recurring {
					t.Errorf("output = %+v", res.Output)
				}
				return
			}
			var ae *helikon.AgentError
			if !errors.As(err, &ae) || len(ae.SchemaErrors) == 0 || ae.FinalText != `{"category":7}` {
				t.Errorf("error detail = %+v", ae)
			}
		})
	}
}

func TestStructuredOutput_ProseWithToolsGetsAFinalizingTurn(t *testing.T) {
	m := mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "1", Name: "add", Args: `{"a":1,"b":2}`}),
		mock.Text("It is a subscription."),
		mock.Text(netflix),
	)
	agent := mustAgent(t, "c", m, helikon.WithTools(addTool), helikon.WithOutput[category]())
	res, err := helikon.CollectTyped[category](agent.Run(context.Background(), nil, helikon.UserText("q")))
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if reqs[0].Settings.ResponseFormat != nil || reqs[1].Settings.ResponseFormat != nil {
		t.Error("tool turns were constrained to the schema")
	}
	if rf := reqs[2].Settings.ResponseFormat; rf == nil || reqs[2].Settings.ToolChoice.Mode != helikon.ToolChoiceNone {
		t.Errorf("finalizing turn settings = %+v", reqs[2].Settings)
	}
	if res.Output.Confidence != 0.93 {
		t.Errorf("output = %+v", res.Output)
	}
}

func TestCollectTyped_PlainTextRunIsAnError(t *testing.T) {
	agent := mustAgent(t, "plain", mock.Scripted(mock.Text("just words")))
	_, err := helikon.CollectTyped[category](agent.Run(context.Background(), nil, helikon.UserText("q")))
	var ae *helikon.AgentError
	if !errors.As(err, &ae) || ae.Kind != helikon.KindOther || ae.FinalText != "just words" {
		t.Fatalf("err = %v", err)
	}
}

// TestOutputType_ChecksOnlyWhenBuiltByAConstructor pins the output check
// the constructors install (schema, then decoding into the Go type), and
// that an OutputType written as a literal, which has none, or one whose
// Schema was replaced after construction fails every answer rather than
// admitting it unchecked.
func TestOutputType_ChecksOnlyWhenBuiltByAConstructor(t *testing.T) {
	typed, err := helikon.OutputTypeOf[category]()
	if err != nil {
		t.Fatal(err)
	}
	given, err := helikon.NewOutputType("given", typed.Schema)
	if err != nil {
		t.Fatal(err)
	}
	literal := &helikon.OutputType{Name: "literal", Schema: typed.Schema}
	// replaced had its Schema swapped for a looser one after construction:
	// its check was built for the first, so it fails closed.
	replaced, err := helikon.NewOutputType("replaced", typed.Schema)
	if err != nil {
		t.Fatal(err)
	}
	replaced.Schema = &jsonschema.Schema{Type: "object"}
	for _, tt := range []struct {
		name string
		o    *helikon.OutputType
		text string
		ok   bool
	}{
		{"typed, valid", typed, netflix, true},
		{"typed, missing a required key", typed, `{"category":"x","confidence":1}`, false},
		{"given, valid", given, netflix, true},
		{"given, wrong kind", given, `{"category":1,"confidence":1,"recurring":true}`, false},
		{"literal, valid", literal, netflix, false},
		{"replaced, valid under both schemas", replaced, netflix, false},
	} {
		if errs := tt.o.Check(tt.text); (errs == nil) != tt.ok {
			t.Errorf("%s: Check = %q, want ok %v", tt.name, errs, tt.ok)
		}
	}
}

// TestNewOutputType_NilSchemaIsAnInvalidOption pins that an output type
// without a schema is refused with a typed error: NewOutputType panicked on
// it, in the validator it builds.
func TestNewOutputType_NilSchemaIsAnInvalidOption(t *testing.T) {
	o, err := helikon.NewOutputType("none", nil)
	if !errors.Is(err, helikon.ErrInvalidOption) || o != nil {
		t.Fatalf("NewOutputType(nil schema) = %v, %v; want nil and an error wrapping ErrInvalidOption", o, err)
	}
}
