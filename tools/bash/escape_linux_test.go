//go:build linux

package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// escapeHelper builds testdata/escape, the attacker's helper that makes
// raw system calls (through the i386 and x32 ABIs too), copies it into
// dir and returns its path there. The toolchain is the one running the
// tests; no C compiler is needed.
func escapeHelper(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "escape")
	goTool := filepath.Join(runtimeGOROOT(t), "bin", "go")
	cmd := exec.Command(goTool, "build", "-o", out, "./testdata/escape")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the escape helper: %v\n%s", err, b)
	}
	return out
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
