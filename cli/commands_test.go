package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon/evals"
)

const question = "How much did I spend in January?"

// TestInitThenRun_WorksWithNoKey pins the newcomer path: helikon init &&
// helikon run --agent triage "…", as a real process, from the directory.
func TestInitThenRun_WorksWithNoKey(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(helikonBin, "init")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	cmd = exec.Command(helikonBin, "run", "--agent", "triage", question)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if want := "In January you spent 2098 in total: 1500 on rent, 412 on groceries and 186 eating out.\n"; string(out) != want {
		t.Fatalf("stdout = %q, want %q", out, want)
	}
	for _, want := range []string{"⇢ handoff triage → budgeting", "→ lookup_spending", `"total":2098`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestInit_RefusesToOverwrite keeps a user's sidecar unless --force.
func TestInit_RefusesToOverwrite(t *testing.T) {
	dir := sampleDir(t)
	if r := run(t, context.Background(), "", "init", dir); r.code == 0 || !strings.Contains(r.errOut, "--force") {
		t.Fatalf("second init: %+v", r)
	}
	if r := run(t, context.Background(), "", "init", "--force", dir); r.code != 0 {
		t.Fatalf("init --force: %+v", r)
	}
}

// TestRun_JSONLinesAndStdin pins --json: one JSON event per line, the
// question read from stdin, ending in run_completed, and without --agent
// the alphabetically first agent (budgeting, not triage, written first).
func TestRun_JSONLinesAndStdin(t *testing.T) {
	dir := sampleDir(t)
	r := run(t, context.Background(), question+"\n", "--agents", filepath.Join(dir, "agents.toml"), "run", "--json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.errOut)
	}
	var types, agents []string
	sc := bufio.NewScanner(strings.NewReader(r.out))
	for sc.Scan() {
		var ev struct{ Type, Agent string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		types = append(types, ev.Type)
		agents = append(agents, ev.Agent)
	}
	if agents[0] != "budgeting" {
		t.Fatalf("default agent %q, want budgeting", agents[0])
	}
	if types[0] != "run_started" || types[len(types)-1] != "run_completed" {
		t.Fatalf("event types %v", types)
	}
}

// TestRun_Failures pins the exit codes and messages of every way run fails.
func TestRun_Failures(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	for _, v := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"} {
		t.Setenv(v, "")
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "no-aws-config"))
	write(t, filepath.Join(dir, "fail.json"), `{"default": [[{"type": "error", "kind": "rate_limited", "message": "slow down"}]]}`)
	write(t, filepath.Join(dir, "agents.toml"), `
[agents.broken]
model = { provider = "mock", script = "fail.json" }

[agents.live]
model = { provider = "openai", id = "gpt-5-mini" }

[agents.future]
model = { provider = "bedrock", id = "anthropic.claude-sonnet-4" }

[agents.gem]
model = { provider = "gemini", id = "gemini-2.5-flash" }
`)
	sidecar := filepath.Join(dir, "agents.toml")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"failed run exits 1", []string{"run", "--agent", "broken", "hi"}, 1, "slow down"},
		{"missing key is named", []string{"run", "--agent", "live", "hi"}, 2, "agents.toml:6: agents.live.model: provider openai reads OPENAI_API_KEY, which is not set"},
		{"bedrock without a region says so", []string{"run", "--agent", "future", "hi"}, 2, "no AWS region: set AWS_REGION"},
		{"gemini key variables are named", []string{"run", "--agent", "gem", "hi"}, 2, "provider gemini reads GEMINI_API_KEY or GOOGLE_API_KEY, which is not set"},
		{"unknown agent lists the agents", []string{"run", "--agent", "nope", "hi"}, 2, "it declares broken, future, gem, live"},
		{"no question", []string{"run", "--agent", "broken"}, 2, "no question"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, context.Background(), "", append([]string{"--agents", sidecar}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.errOut, tt.want) {
				t.Fatalf("code %d (want %d), stderr %q (want %q)", r.code, tt.code, r.errOut, tt.want)
			}
		})
	}
}

// TestRun_MissingSidecarSaysInit turns the missing default into advice.
func TestRun_MissingSidecarSaysInit(t *testing.T) {
	r := run(t, context.Background(), "", "--agents", filepath.Join(t.TempDir(), "agents.toml"), "run", "hi")
	if r.code != 2 || !strings.Contains(r.errOut, `run "helikon init"`) {
		t.Fatalf("%+v", r)
	}
}

// TestRun_InvalidSidecarShowsLine reports a validation error with its line.
func TestRun_InvalidSidecarShowsLine(t *testing.T) {
	dir := sampleDir(t)
	p := filepath.Join(dir, "agents.toml")
	data, _ := os.ReadFile(p)
	write(t, p, strings.Replace(string(data), `handoffs     = ["budgeting"]`, `handofs      = ["budgeting"]`, 1))
	r := run(t, context.Background(), "", "--agents", p, "run", "hi")
	if r.code != 2 || !strings.Contains(r.errOut, "agents.toml:10: agents.triage.handofs: unknown key") {
		t.Fatalf("%+v", r)
	}
}

// TestEvalRun_ExitCodes pins eval run's exit decision, --json and --trace.
func TestEvalRun_ExitCodes(t *testing.T) {
	dir := sampleDir(t)
	sidecar := filepath.Join(dir, "agents.toml")
	good := filepath.Join(dir, "cases.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	write(t, bad, `{"id": "jan", "input": "January?", "expected": "wrong answer"}`+"\n")

	r := run(t, context.Background(), "", "--agents", sidecar, "eval", "run", good, "--agent", "triage")
	if r.code != 0 || !strings.Contains(r.out, "1 passed, 0 failed") {
		t.Fatalf("passing dataset: %+v", r)
	}
	r = run(t, context.Background(), "", "--agents", sidecar, "eval", "run", bad, "--agent", "triage")
	if r.code != 1 || !strings.Contains(r.errOut, "cases failed") {
		t.Fatalf("failing dataset: %+v", r)
	}
	r = run(t, context.Background(), "", "--agents", sidecar, "eval", "run", good, "--agent", "triage", "--fail-under", "1.01")
	if r.code != 1 || !strings.Contains(r.errOut, "below threshold") {
		t.Fatalf("--fail-under: %+v", r)
	}
	db := filepath.Join(dir, "evals.db")
	r = run(t, context.Background(), "", "--agents", sidecar, "eval", "run", good, "--agent", "triage", "--json", "--trace", "sqlite:"+db)
	if r.code != 0 {
		t.Fatalf("--json: %+v", r)
	}
	rep, err := evals.ReadReport(strings.NewReader(r.out))
	if err != nil || len(rep.Cases) != 1 || !rep.Passed() {
		t.Fatalf("report %+v, %v", rep, err)
	}
	if st, err := os.Stat(db); err != nil || st.Size() == 0 {
		t.Fatalf("trace database: %v", err)
	}
	r = run(t, context.Background(), "", "--agents", sidecar, "eval", "run", good)
	if r.code != 2 || !strings.Contains(r.errOut, "--agent NAME") {
		t.Fatalf("no --agent: %+v", r)
	}
}

// TestVersionAndCompletion pins --version and the generated completions.
func TestVersionAndCompletion(t *testing.T) {
	r := run(t, context.Background(), "", "--version")
	if r.code != 0 || !strings.HasPrefix(r.out, "helikon version ") {
		t.Fatalf("--version: %+v", r)
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		r := run(t, context.Background(), "", "completion", sh)
		if r.code != 0 || !strings.Contains(r.out, "helikon") {
			t.Fatalf("completion %s: code %d", sh, r.code)
		}
	}
}
