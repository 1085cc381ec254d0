package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// overFloorBound bounds what the Bedrock and SQLite build adds over the
// floor program (testdata/floor: net/http answering /ping, modernc SQLite
// opening a database, one SigV4-signed HTTPS POST), both built stripped by
// this test as the other tests build (not static, not -trimpath: either
// would compile every dependency again; the difference moves by a few KB):
// what the agent runtime, the AgentCore server and the Bedrock provider
// cost. It was 2,240,512 B on 2026-12-03 (linux/amd64, go1.26.8), after
// the Bash parser (287 KB), the JSON-Schema validator (147 KB) and the
// written-file guard (66 KB) left the binary; the bound fails on the
// return of the parser or the validator.
const overFloorBound = 2_350_000

// TestAgentcoreExample_BedrockAndSQLiteStayNearTheFloor builds the Bedrock
// and SQLite binary and the floor program the same way and fails when the
// binary grows past the floor by more than overFloorBound, or names a
// function of the Bash parser, of the JSON-Schema validator or of
// governance's written-file guard (a stripped Go binary keeps its function
// names for tracebacks), none of which a program without shell tools,
// output types or that guard should link.
func TestAgentcoreExample_BedrockAndSQLiteStayNearTheFloor(t *testing.T) {
	dir := t.TempDir()
	build := func(name, tags, pkg string) []byte {
		bin := filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-ldflags=-s -w", "-tags", tags, "-o", bin, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	agent := build("agent", "noopenai,noanthropic,nogemini", ".")
	floor := build("floor", "", "./testdata/floor")
	over := len(agent) - len(floor)
	t.Logf("Bedrock and SQLite: %d B; floor %d B; over the floor %d B", len(agent), len(floor), over)
	if over > overFloorBound {
		t.Errorf("the Bedrock and SQLite build is %d B over the floor, more than %d: go build -ldflags=-dumpdep names what pulls a new package in", over, overFloorBound)
	}
	for _, fn := range []string{"mvdan.cc/sh/v3/syntax.", "jsonschema.(*state).validate", "governance.(*writtenFiles)."} {
		if bytes.Contains(agent, []byte(fn)) {
			t.Errorf("the Bedrock and SQLite build links %s…", fn)
		}
	}
}
