package main

import (
	"bytes"
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon/internal/slowtest"
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

// overCgoFloorBound is overFloorBound for the cgo build, whose floor links
// go-sqlite3: 2,471,328 B on 2026-12-04, 210 KB more than on modernc
// because modernc's floor already linked standard-library code the agent
// also uses, which with go-sqlite3 counts as the agent's.
const overCgoFloorBound = 2_560_000

// cgoStaticBound is the issue-41 target for the Bedrock and SQLite
// binary, 12 MB, which the cgo build linked static with SQLite's C library
// meets: 11,306,736 B as this test builds it (11,294,320 B -trimpath) on
// 2026-12-04 (linux/amd64, go1.26.8, glibc 2.36, gcc 12.2), against
// 12,898,466 B on modernc's SQLite.
const cgoStaticBound = 12_000_000

// TestAgentcoreExample_BedrockAndSQLiteStayNearTheFloor builds the Bedrock
// and SQLite binary and the floor program the same way, on modernc's SQLite
// and (with cgo) on go-sqlite3 linked static, and fails when the binary
// grows past the floor by more than overFloorBound, or names a function
// of the Bash parser, of the JSON-Schema validator or of governance's
// written-file guard (a stripped Go binary keeps its function names for
// tracebacks), none of which a program without shell tools, output types
// or that guard should link (overCgoFloorBound for the cgo floor); and
// when the cgo build is over cgoStaticBound. The cgo case compiles
// SQLite's C (about two minutes on two cores, once) and is a slow test.
func TestAgentcoreExample_BedrockAndSQLiteStayNearTheFloor(t *testing.T) {
	for _, sqliteTags := range []string{"", "sqlite_cgo"} {
		t.Run(cmp.Or(sqliteTags, "modernc"), func(t *testing.T) {
			dir := t.TempDir()
			ldflags, env, bound := "-s -w", "CGO_ENABLED=0", overFloorBound
			if sqliteTags != "" {
				slowtest.Skip(t, "compiles SQLite's C library")
				skipWithoutCgo(t)
				bound = overCgoFloorBound
				sqliteTags += "," + cgoStatic
				ldflags, env = "-s -w -extldflags=-static", "CGO_ENABLED=1"
			}
			build := func(name, tags, pkg string) []byte {
				bin := filepath.Join(dir, name)
				cmd := exec.Command("go", "build", "-ldflags="+ldflags, "-tags", tags, "-o", bin, pkg)
				cmd.Env = append(os.Environ(), env)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("go build %s: %v\n%s", pkg, err, out)
				}
				b, err := os.ReadFile(bin)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			agent := build("agent", join(sqliteTags, "noopenai,noanthropic,nogemini"), ".")
			floor := build("floor", sqliteTags, "./testdata/floor")
			over := len(agent) - len(floor)
			t.Logf("Bedrock and SQLite: %d B; floor %d B; over the floor %d B", len(agent), len(floor), over)
			if over > bound {
				t.Errorf("the Bedrock and SQLite build is %d B over the floor, more than %d: go build -ldflags=-dumpdep names what pulls a new package in", over, bound)
			}
			if sqliteTags != "" && len(agent) > cgoStaticBound {
				t.Errorf("the static cgo Bedrock and SQLite build is %d B, over the issue-41 target of %d", len(agent), cgoStaticBound)
			}
			for _, fn := range []string{"mvdan.cc/sh/v3/syntax.", "jsonschema.(*state).validate", "governance.(*writtenFiles)."} {
				if bytes.Contains(agent, []byte(fn)) {
					t.Errorf("the Bedrock and SQLite build links %s…", fn)
				}
			}
		})
	}
}

// join joins non-empty tag lists with commas.
func join(tags ...string) string {
	var nonEmpty []string
	for _, t := range tags {
		if t != "" {
			nonEmpty = append(nonEmpty, t)
		}
	}
	return strings.Join(nonEmpty, ",")
}
