package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestRun_ExportsTheSpanTreeAndPrintsTheAnswer(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	var spans, out bytes.Buffer
	if err := run(context.Background(), &spans, &out); err != nil {
		t.Fatal(err)
	}
	if want := "billing: Your balance is $42.50; invoice INV-7 is due Dec 1.\n(30 input + 15 output tokens, $0.00002750)\n"; out.String() != want {
		t.Fatalf("output %q, want %q", out.String(), want)
	}
	// The exporter writes one JSON object per span.
	names := map[string]int{}
	dec := json.NewDecoder(&spans)
	for {
		var s struct{ Name string }
		if err := dec.Decode(&s); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		names[s.Name]++
	}
	want := map[string]int{
		"invoke_agent triage": 1, "invoke_agent billing": 1, "agent.turn": 3,
		"chat gpt-5-nano": 1, "chat gpt-5-mini": 2, "execute_tool balance": 1, "execute_tool last_invoice": 1,
	}
	for name, n := range want {
		if names[name] != n {
			t.Errorf("%d %q spans, want %d (all: %v)", names[name], name, n, names)
		}
	}
	if strings.Contains(spans.String(), "Your balance") {
		t.Error("message content leaked into the spans")
	}
}
