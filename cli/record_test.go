package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_RecordThenReplayWithNoKeyAndDriftNamed records a triage run
// (a handoff and a tool call) with --record, replays it with --replay on
// agents whose models now need a key nobody set, and gets the same answer
// without the tool running; then changes an agent's instructions and gets
// a failed run naming them.
func TestRun_RecordThenReplayWithNoKeyAndDriftNamed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := sampleDir(t)
	sidecar := filepath.Join(dir, "agents.toml")
	file := filepath.Join(dir, "january.json")
	live := run(t, context.Background(), "", "--agents", sidecar, "run", "--agent", "triage", "--record", file, question)
	if live.code != 0 {
		t.Fatalf("record: %d %s", live.code, live.errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), `"version": 2`) || !strings.Contains(string(data), `"tools"`) {
		t.Fatalf("recording: %v\n%s", err, data)
	}
	toml, _ := os.ReadFile(sidecar)
	keyed := strings.ReplaceAll(string(toml), `provider = "mock", script = "scripts/triage.json"`, `provider = "openai", id = "gpt-5-mini"`)
	keyed = strings.ReplaceAll(keyed, `provider = "mock", script = "scripts/budgeting.json"`, `provider = "openai", id = "gpt-5-mini"`)
	if keyed == string(toml) {
		t.Fatal("the sample's models were not swapped")
	}
	if err := os.WriteFile(sidecar, []byte(keyed), 0o644); err != nil {
		t.Fatal(err)
	}
	// The tool now fails: a replay that ran it would answer otherwise.
	if err := os.WriteFile(filepath.Join(dir, "tools", "lookup_spending.star"), []byte("def run(args):\n    fail(\"the tool ran\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	replayed := run(t, context.Background(), "", "--agents", sidecar, "run", "--agent", "triage", "--replay", file, question)
	if replayed.code != 0 || replayed.out != live.out {
		t.Fatalf("replay: %d %s\nout %q, live %q", replayed.code, replayed.errOut, replayed.out, live.out)
	}
	drifted := strings.Replace(keyed, "Answer using the spending lookup tool", "Answer with the spending lookup tool", 1)
	if err := os.WriteFile(sidecar, []byte(drifted), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, context.Background(), "", "--agents", sidecar, "run", "--agent", "triage", "--replay", file, question)
	if r.code != 1 || !strings.Contains(r.errOut, "instructions") || !strings.Contains(r.errOut, "Answer with the spending lookup tool") {
		t.Errorf("drifted replay: %d\n%s", r.code, r.errOut)
	}
	if r := run(t, context.Background(), "", "--agents", sidecar, "run", "--record", file, "--replay", file, question); r.code != 2 {
		t.Errorf("--record with --replay: %d %s", r.code, r.errOut)
	}
}
