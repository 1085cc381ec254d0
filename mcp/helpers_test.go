package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// npmDir holds the reference servers and the TypeScript SDK, installed from
// the committed package-lock.json by .ci/run (npm ci).
var npmDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "npm")
}()

// unreachable ends a test whose real component is missing: a skip naming
// how to install it, or a failure under CI so nothing skips silently there.
func unreachable(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// nodeScript returns the path of an installed package's file, or ends the
// test when node or the package is missing.
func nodeScript(t testing.TB, rel string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		unreachable(t, "node is not installed: apt-get install nodejs npm")
	}
	p := filepath.Join(npmDir, "node_modules", rel)
	if _, err := os.Stat(p); err != nil {
		unreachable(t, "the MCP reference packages are not installed: run `npm ci` in "+npmDir)
	}
	return p
}

// everything returns a command that runs server-everything over stdio.
func everything(t testing.TB) *exec.Cmd {
	return exec.Command("node", nodeScript(t, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio")
}

// filesystem returns a command that runs server-filesystem on dir.
func filesystem(t testing.TB, dir string) *exec.Cmd {
	return exec.Command("node", nodeScript(t, "@modelcontextprotocol/server-filesystem/dist/index.js"), dir)
}
