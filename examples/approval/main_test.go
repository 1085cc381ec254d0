package main

import (
	"context"
	"strings"
	"testing"
)

func TestApproval_TheAnswerOnTheTerminalDecidesWhatRuns(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	head := "files: a.tmp b.tmp notes.txt\n" +
		"→ Ls {\"path\":\".\"}\n" +
		"← a.tmp b.tmp notes.txt\n" +
		"→ Bash {\"command\":\"rm -f a.tmp b.tmp\"}\n" +
		"⏸ paused: 1 call(s) wait for you\n" +
		"cleaner wants to run Bash: rm -f a.tmp b.tmp\n" +
		"(the permission policy) [y]es, [n]o, [a]lways, or type the command to run instead: "
	tests := []struct {
		name, answer, tail string
	}{
		{"yes runs the command", "y", "y\n← exit 0\nCleanup finished.\nfiles: notes.txt\n"},
		{"no rejects it and the model is told", "n", "n\n← rejected by the user: the user declined to run rm -f a.tmp b.tmp\nCleanup finished.\nfiles: a.tmp b.tmp notes.txt\n"},
		{"always runs it and allows the rest of the run's Bash calls", "a", "a\n← exit 0\nCleanup finished.\nfiles: notes.txt\n"},
		{"a replacement command runs instead", "rm -f a.tmp", "rm -f a.tmp\n← exit 0\nCleanup finished.\nfiles: b.tmp notes.txt\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			if err := run(context.Background(), strings.NewReader(tt.answer+"\n"), &out, t.TempDir()); err != nil {
				t.Fatal(err)
			}
			if want := head + tt.tail; out.String() != want {
				t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
			}
		})
	}
}
