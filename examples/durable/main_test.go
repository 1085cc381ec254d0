package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

func TestDurableRunStreamsItsStepsFromTheWorkflow(t *testing.T) {
	if _, err := findCLI(); err != nil {
		msg := "Temporal CLI not installed: GOBIN=${XDG_CACHE_HOME:-$HOME/.cache}/helikon/bin go install github.com/temporalio/cli/cmd/temporal@v1.5.1"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Setenv("HELIKON_PROVIDER", "mock")
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	want := "user: How much did I spend on dining?\n" +
		"[activity InvokeTool lookup_spending {\"category\":\"Dining\"}]\n" +
		"[tool result {\"category\":\"Dining\",\"tenant\":\"acme\",\"total\":212.4}]\n" +
		"budget-assistant: You spent $212.40 on dining this month.\n" +
		"(workflow budget-run-1 completed: 20 input + 10 output tokens)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestUnknownProviderFailsBeforeTheDevServerStarts(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "nope")
	err := run(context.Background(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), `HELIKON_PROVIDER="nope": unknown provider`) {
		t.Fatalf("err = %v, want the unknown provider named", err)
	}
}
