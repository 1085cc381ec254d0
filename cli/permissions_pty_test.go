package cli_test

import (
	"syscall"
	"testing"
	"time"
)

// TestRepl_AsksOnTheTerminalBeforeAnAskedTool types into the repl on a
// pseudo-terminal: teller's pay call waits for an answer; y runs it and the
// run goes on, Enter rejects it (the model sees the refusal and answers),
// Ctrl-C at the question cancels the turn, and the repl lives on.
func TestRepl_AsksOnTheTerminalBeforeAnAskedTool(t *testing.T) {
	tm := startTerm(t, []string{"--agents", bank, "repl", "--agent", "teller"})
	tm.expect("/help for commands")

	tm.send("pay bob 50\r")
	tm.expect(`? teller asks to call pay {"to": "bob", "amount": 50}`)
	tm.expect("allow? [y/N] ")
	tm.send("y\r")
	tm.expect(`← pay {"paid":50,"to":"bob"}`)
	tm.expect("That is settled.")
	tm.expect("teller> ")

	tm.send("pay bob 50 again\r")
	tm.expect("allow? [y/N] ")
	tm.send("\r")
	tm.expect("⊘ pay not run: rejected by the user")
	tm.expect("That is settled.")
	tm.expect("teller> ")

	tm.send("and once more\r")
	tm.expect("allow? [y/N] ")
	tm.send("\x03")
	tm.expect("(cancelled)")
	tm.expect("teller> ")
	tm.send("/usage\r")
	tm.expect("2 turns")
	tm.send("/history\r")
	tm.expect("user: pay bob 50 again")
	tm.send("/quit\r")
	tm.wait(t)
}

// TestRun_AsksOnTheTerminalBeforeAnAskedTool runs helikon run on a
// pseudo-terminal: the question is asked on it, and y runs the call.
func TestRun_AsksOnTheTerminalBeforeAnAskedTool(t *testing.T) {
	tm := startTerm(t, []string{"--agents", bank, "run", "--agent", "teller", "pay bob 50"})
	tm.expect(`? teller asks to call pay {"to": "bob", "amount": 50}`)
	tm.expect("allow? [y/N] ")
	tm.send("yes\r")
	tm.expect(`← pay {"paid":50,"to":"bob"}`)
	tm.expect("That is settled.")
	tm.wait(t)
}

// wait waits for the process to exit successfully.
func (tm *term) wait(t *testing.T) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- tm.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("helikon exited with %v; the terminal shows:\n%s", err, tm.output())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("helikon did not exit")
	}
}

// TestRepl_EndsOnSIGTERMWhileWaitingForALine sends SIGTERM to a repl idle
// at its prompt and to one waiting for an approval answer: both end, since
// the line editor's read is ended with the repl's context.
func TestRepl_EndsOnSIGTERMWhileWaitingForALine(t *testing.T) {
	for _, approval := range []bool{false, true} {
		tm := startTerm(t, []string{"--agents", bank, "repl", "--agent", "teller"})
		tm.expect("/help for commands")
		if approval {
			tm.send("pay bob 50\r")
			tm.expect("allow? [y/N] ")
		}
		if err := tm.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		tm.wait(t)
	}
}
