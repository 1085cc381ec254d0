package main

import (
	"context"
	"strings"
	"testing"
)

func TestPipelineResearchesThenWrites(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	want := "── researcher\n" +
		"Fed funds rate: 4.25–4.50% since the December meeting. High-yield savings accounts pay about 4.1% APY. 1-year CDs pay about 4.3%.\n" +
		"── writer\n" +
		"   → check_fact({\"input\":\"1-year CDs pay about 4.3%\"})\n" +
		"   ← Confirmed: 1-year CDs average about 4.3% at online banks.\n" +
		"Cash is earning again: high-yield savings pay about 4.1% and 1-year CDs about 4.3%, so money you need within a year belongs in one of them rather than in checking.\n" +
		"(40 input + 20 output tokens, the fact check run as a tool included)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
