package runner_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session/sqlite"
)

// The crash test runs this file's helper in child processes: one pauses a
// run into a SQLite session and is killed while it holds the database
// open; another resumes the run by id; a third tries again.
const crashModeEnv = "HELIKON_PAUSE_CRASH_MODE"

func TestResumePaused_SurvivesAKilledProcessAndTheToolRunsOnce(t *testing.T) {
	dir := t.TempDir()
	env := append(os.Environ(), "HELIKON_PAUSE_CRASH_DB="+filepath.Join(dir, "sessions.db"), "HELIKON_PAUSE_CRASH_LEDGER="+filepath.Join(dir, "ledger"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	helper := func(mode string, extra ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestPauseCrashHelper$")
		cmd.Env = append(append(env, crashModeEnv+"="+mode), extra...)
		return cmd
	}

	// 1. Pause, then die by SIGKILL with the database open.
	pauser := helper("pause")
	out, err := pauser.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	pauser.Stderr = os.Stderr
	if err := pauser.Start(); err != nil {
		t.Fatal(err)
	}
	var runID, approvalID string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "PAUSED" {
			runID, approvalID = f[1], f[2]
			break
		}
	}
	if err := pauser.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = pauser.Wait()
	if runID == "" {
		t.Fatal("the pausing process never reported its pause")
	}

	// 2. A new process resumes the run by id: the tool runs.
	ids := []string{"HELIKON_PAUSE_CRASH_RUN=" + runID, "HELIKON_PAUSE_CRASH_APPROVAL=" + approvalID}
	got, err := helper("resume", ids...).Output()
	if err != nil || !strings.Contains(string(got), "RESUMED done") {
		t.Fatalf("resume process: %v\n%s", err, got)
	}
	// 3. Another process resuming the same pause is refused.
	got, err = helper("resume", ids...).Output()
	if err != nil || !strings.Contains(string(got), "REFUSED already resumed") {
		t.Fatalf("second resume process: %v\n%s", err, got)
	}
	ledger, err := os.ReadFile(filepath.Join(dir, "ledger"))
	if err != nil {
		t.Fatal(err)
	}
	if string(ledger) != "remove a.tmp\n" {
		t.Fatalf("the tool ran %q, want exactly once", ledger)
	}
}

// TestPauseCrashHelper is the child process of the crash test; run alone
// it skips.
func TestPauseCrashHelper(t *testing.T) {
	mode := os.Getenv(crashModeEnv)
	if mode == "" {
		t.Skip("the crash test's child process; it runs only under TestResumePaused_SurvivesAKilledProcessAndTheToolRunsOnce")
	}
	ctx := context.Background()
	db, err := sqlite.OpenDB(ctx, os.Getenv("HELIKON_PAUSE_CRASH_DB"))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := sqlite.Open(ctx, db, "cleanup")
	if err != nil {
		t.Fatal(err)
	}
	remove := helikon.MustTool("remove", "Delete a file.", func(_ *helikon.ToolContext, in pathArgs) (string, error) {
		f, err := os.OpenFile(os.Getenv("HELIKON_PAUSE_CRASH_LEDGER"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "remove %s\n", in.Path); err != nil {
			return "", err
		}
		return "removed " + in.Path, f.Sync()
	}, helikon.WithEffect(helikon.Write))
	agent := func(m helikon.Model) helikon.Agent {
		a, err := helikon.NewAgent("cleaner", m, helikon.WithTools(remove))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	switch mode {
	case "pause":
		m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "remove", Args: `{"path":"a.tmp"}`}))
		res, err := runner.New().Run(ctx, agent(m), pausingContext(sess), helikon.UserText("clean up"))
		if !errors.Is(err, helikon.ErrPaused) {
			t.Fatalf("run: %v", err)
		}
		fmt.Printf("PAUSED %s %s\n", res.Paused.RunID, res.Paused.Pending[0].ID)
		time.Sleep(time.Minute) // the parent kills this process here
	case "resume":
		res, err := runner.New().ResumePaused(ctx, agent(mock.Scripted(mock.Text("done"))), pausingContext(sess),
			os.Getenv("HELIKON_PAUSE_CRASH_RUN"), []helikon.Decision{helikon.Approve(os.Getenv("HELIKON_PAUSE_CRASH_APPROVAL"))})
		switch {
		case errors.Is(err, runner.ErrAlreadyResumed):
			fmt.Println("REFUSED already resumed")
		case err != nil:
			t.Fatalf("resume: %v", err)
		default:
			fmt.Println("RESUMED " + res.FinalOutput)
		}
	}
}
