//go:build linux

package evals_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paigasus/helikon/evals"
)

// openPTY opens a pseudo-terminal pair: what the program writes to tty, a
// terminal emulator reads from ptm.
func openPTY(t *testing.T) (ptm, tty *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	fd := int(ptm.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open tty: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return ptm, tty
}

func TestNewProgress_DrawsABarOnATerminal(t *testing.T) {
	ptm, tty := openPTY(t)
	p := evals.NewProgress(tty)
	p.Start(2)
	p.CaseDone(&evals.CaseResult{Case: evals.Case{ID: "a"}}, evals.Tally{Done: 1, Passed: 1})
	p.CaseDone(&evals.CaseResult{Case: evals.Case{ID: "b"}, Error: "x"}, evals.Tally{Done: 2, Passed: 1, Failed: 1})
	p.Finish()
	var got bytes.Buffer
	buf := make([]byte, 4096)
	_ = ptm.SetReadDeadline(time.Now().Add(2 * time.Second))
	for !strings.Contains(got.String(), "(2/2)") {
		n, err := ptm.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			break
		}
	}
	out := got.String()
	if !strings.Contains(out, "(2/2)") || !strings.Contains(out, "1 passed, 1 failed") || strings.Contains(out, "[2/2] b") {
		t.Errorf("terminal shows %q, want a bar and no plain lines", out)
	}
}
