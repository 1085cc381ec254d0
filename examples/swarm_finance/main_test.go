package main

import (
	"context"
	"strings"
	"testing"
)

func TestSwarmRoutesThroughBudgetingToInvesting(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	want := "user: I have money left over each month. Should I invest it?\n" +
		"[handoff triage → budgeting]\n" +
		"[budgeting calls monthly_surplus]\n" +
		"[handoff budgeting → investing]\n" +
		"investing: Your budget leaves $400 a month. Keep $100 of it for your emergency fund and invest $300 in a broad index fund by automatic transfer on payday.\n" +
		"(40 input + 20 output tokens across the swarm)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
