//go:build linux

package bash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// escapeHelper copies testdata/escape, the attacker's helper that makes
// raw system calls (through the i386 and x32 ABIs too), into dir and
// returns its path there. It is built once per test binary with the
// toolchain running the tests; no C compiler is needed.
func escapeHelper(t *testing.T, dir string) string {
	t.Helper()
	escapeOnce.Do(func() {
		if prebuilt := os.Getenv("HELIKON_ESCAPE_HELPER"); prebuilt != "" {
			// The run as a normal user (TestOsSandbox_HoldsForANormalUser)
			// gets the helper built by the root run.
			escapeDir = filepath.Dir(prebuilt)
			return
		}
		escapeDir, escapeErr = os.MkdirTemp("", "helikon-escape-")
		if escapeErr != nil {
			return
		}
		cmd := exec.Command(filepath.Join(runtimeGOROOT(t), "bin", "go"), "build", "-o", filepath.Join(escapeDir, "escape"), "./testdata/escape")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			escapeErr = fmt.Errorf("build the escape helper: %v\n%s", err, b)
		}
	})
	if escapeErr != nil {
		t.Fatal(escapeErr)
	}
	b, err := os.ReadFile(filepath.Join(escapeDir, "escape"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "escape")
	if err := os.WriteFile(out, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	escapeOnce sync.Once
	escapeDir  string
	escapeErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if escapeDir != "" && os.Getenv("HELIKON_ESCAPE_HELPER") == "" {
		os.RemoveAll(escapeDir)
	}
	os.Exit(code)
}

// runtimeGOROOT is the root of the toolchain that built this test.
func runtimeGOROOT(t *testing.T) string {
	t.Helper()
	b, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go toolchain on PATH to build the escape helper: %v", err)
	}
	return string(trimNL(b))
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
