//go:build linux

package bash

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// scopesOnly skips a test of what Landlock's scopes close on a kernel
// without them (ABI below 6), where the label says so instead.
func scopesOnly(t *testing.T) {
	t.Helper()
	if v, err := llsys.LandlockGetABIVersion(); err != nil || v < scopesABI {
		t.Skipf("the kernel's Landlock ABI is v%d (%v): no scopes, which the label says", v, err)
	}
}

// A process of the command's own uid outside the call cannot be
// signalled: only the scope stands in the way, since the uid matches.
func TestOsSandbox_SignalsStayInsideTheCall(t *testing.T) {
	rootOnly(t)
	scopesOnly(t)
	victim := exec.Command("sleep", "300")
	victim.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: DefaultSandboxUID, Gid: DefaultSandboxGID, Groups: []uint32{}}}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	// Without the PID namespace, which would hide the victim: the scope
	// alone is tested.
	b, root := osTool(t, withoutPIDNamespace())
	escapeHelper(t, root)
	if l := b.Guarantees().Label; !strings.Contains(l, "signals and abstract sockets scoped to the call") {
		t.Errorf("label %q does not name the scopes", l)
	}
	for _, cmd := range []string{
		fmt.Sprintf("kill -9 %d", victim.Process.Pid),
		fmt.Sprintf("./escape kill %d | grep -qx 'ok 0'", victim.Process.Pid),
	} {
		r, err := runTool(t, t.Context(), b, Args{Command: cmd})
		if err != nil || r.ExitCode == 0 {
			t.Errorf("%s: %+v, %v; want it refused", cmd, r, err)
		}
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process outside was killed: %v", err)
	}
	// Inside the call, signals work as ever.
	r, err := runTool(t, t.Context(), b, Args{Command: "sleep 30 & kill -9 $!; wait $!; echo $?"})
	if err != nil || r.Stdout != "137\n" {
		t.Errorf("a signal inside the call: %+v, %v", r, err)
	}
}

// With WithUnixSockets, an abstract socket this process serves (a
// process outside the call; abstract sockets have no permissions) is
// out of reach, and one the command serves itself works.
func TestOsSandbox_AbstractSocketsServedOutsideAreOutOfReach(t *testing.T) {
	scopesOnly(t)
	name := fmt.Sprintf("helikon-test-%d", os.Getpid())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	// Reachable outside the sandbox: the test can fail.
	if c, err := net.Dial("unix", "@"+name); err != nil {
		t.Fatal(err)
	} else {
		c.Close()
		<-accepted
	}
	b, root := osTool(t, WithUnixSockets())
	escapeHelper(t, root)
	r, err := runTool(t, t.Context(), b, Args{Command: "./escape unix-connect " + name + "; ./escape unix-self " + name + "-inside"})
	if err != nil || r.Stdout != "errno EPERM\nok 0\n" {
		t.Errorf("%+v, %v; want the outside socket refused and the inside one served", r, err)
	}
	select {
	case <-accepted:
		t.Error("the listener outside accepted a connection from the command")
	default:
	}
}
