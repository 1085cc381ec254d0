package main

import (
	"context"
	"strings"
	"testing"
)

func TestTriageHandsOffToTheInvestingSpecialist(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	want := "user: How should I start investing $5,000?\n" +
		"[handoff triage → investing specialist]\n" +
		"investing specialist: Keep three months of expenses in cash, then put the rest of the $5,000 in a low-cost index fund and add to it every month.\n" +
		"(20 input + 8 output tokens across both agents)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
