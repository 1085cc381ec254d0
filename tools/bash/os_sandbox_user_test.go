//go:build linux

package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/paigasus/helikon/internal/slowtest"
)

// normalUID is the unprivileged user the sandbox tests run again as.
const normalUID = 54330

// The sandbox holds for an agent that is not root too: the root run
// copies this test binary and the escape helper where any user may run
// them and runs the attack tests again as an unprivileged user, for
// whom there is no privilege to drop and, on this machine, no cgroup to
// make (the label must say the process group is what is killed).
// HELIKON_SLOW_TESTS=1 (or CI=true) adds the slower tests to that run.
func TestOsSandbox_HoldsForANormalUser(t *testing.T) {
	rootOnly(t)
	if os.Getenv("HELIKON_BASH_AS_USER") != "" {
		t.Skip("this is the run as a normal user")
	}
	if err := kernelSupport(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	searchable(t, dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bash.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	helper := escapeHelper(t, dir)
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, normalUID, normalUID); err != nil {
		t.Fatal(err)
	}
	tests := []string{
		"TestOsSandbox_ContainsFilesNetworkAndSyscalls",
		"TestOsSandbox_ForeignABIsAndNamespaceClonesAreRefused",
		"TestOsSandbox_SystemVIPCIsRefused",
		"TestOsSandbox_SocketPairsOfOtherFamiliesAreRefused",
		"TestOsSandbox_TheMountTableIsOutOfReach",
		"TestOsSandbox_DirectoriesOutsideCannotBeWatched",
		"TestOsSandbox_AbstractSocketsServedOutsideAreOutOfReach",
		"TestOsSandbox_HardLinksToFilesOutsideAreRefused",
		"TestLocalBackends_NoProcessOutlivesItsCallWhateverItsGroup",
		"TestOsSandbox_TheHostsProcessesAreInvisible",
		"TestNewOsSandboxBackend_RequirePIDNamespaceFailsClosed",
	}
	// These skip where this machine gives an unprivileged process no
	// cgroup or no PID namespace, once they have checked that the label
	// says so.
	maySkip := []string{"TestLocalBackends_NoProcessOutlivesItsCallWhateverItsGroup", "TestOsSandbox_TheHostsProcessesAreInvisible"}
	if slowtest.Enabled() {
		tests = append(tests, "TestOsSandboxBackend_Conformance", "TestOsSandbox_NormalWorkStillSucceeds", "TestOsSandbox_OnlyTheCommandIsConfinedNotThisProcess")
	}
	cmd := exec.Command(bin, "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home, "CI=" + os.Getenv("CI"),
		"HELIKON_ESCAPE_HELPER=" + helper, "HELIKON_BASH_AS_USER=1", "HELIKON_SLOW_TESTS=" + os.Getenv("HELIKON_SLOW_TESTS")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: normalUID, Gid: normalUID, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the run as uid %d failed: %v\n%s", normalUID, err, out)
	}
	for _, name := range tests {
		if !strings.Contains(string(out), "--- PASS: "+name) && !(slices.Contains(maySkip, name) && strings.Contains(string(out), "--- SKIP: "+name)) {
			t.Errorf("%s did not pass as uid %d:\n%s", name, normalUID, out)
		}
	}
	t.Logf("as uid %d:\n%s", normalUID, out)
}
