package main

import (
	"context"
	"strings"
	"testing"
)

func TestStructuredOutput_RepairsStreamsPersistsAndDecodesInOnePass(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	want := "turn 1\n" +
		"(repair turn 1)\n" +
		"turn 2\n" +
		"{Category:Subscriptions Confidence:0.97 Recurring:true Reasoning:Netflix bills the same amount monthly.}\n" +
		"3 messages in the session\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
