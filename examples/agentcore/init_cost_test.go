package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// initAllocBound is the most a package of this module may allocate in its
// init: a table or regexp built at init (the core's decoder maps and
// regexps were 61,536 B, governance's 67,216 B) belongs behind a
// sync.OnceValue, built on first use, because AgentCore pays every
// container start again.
const initAllocBound = 32 << 10

// totalInitAllocBound bounds what every package of the binary, the
// dependencies' included, allocates before main: 241 KB on 2026-12-03,
// since provider/bedrock calls ConverseStream without the AWS SDK's
// bedrockruntime client (704 KB before: its schemas 379 KB and endpoint
// rules 64 KB), and 1.32 MB while the binary also linked the MCP SDK and
// the AWS SDK's credential chain (its STS, SSO, SSO-OIDC and sign-in
// clients' schemas and endpoint tables). A container start pays it again
// every time; the bound fails on the return of the bedrockruntime client
// or of any other package building 80 KB of tables at init.
const totalInitAllocBound = 320 << 10

// TestAgentcoreExample_OwnPackagesAllocateLittleAtInit runs the built
// example with GODEBUG=inittrace=1 and an unknown flag, so it exits right
// after init, and fails when a package of this module allocates more than
// initAllocBound before main. The build is the ordinary cached one (not
// -trimpath, which compiles every dependency again): init work does not
// depend on the flags.
func TestAgentcoreExample_OwnPackagesAllocateLittleAtInit(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "agentcore")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-no-such-flag")
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput() // exits 2 on the unknown flag, after init
	seen, total := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// init github.com/paigasus/helikon @1.2 ms, 0.01 ms clock, 360 bytes, 5 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		total += n
		if !strings.HasPrefix(f[1], "github.com/paigasus/helikon") {
			continue
		}
		seen++
		if n > initAllocBound {
			t.Errorf("%s allocates %d B at init, more than %d: build it on first use (sync.OnceValue)", f[1], n, initAllocBound)
		}
	}
	if seen == 0 {
		t.Fatalf("no inittrace line for this module's packages; output:\n%s", out)
	}
	if total > totalInitAllocBound {
		t.Errorf("the binary's packages allocate %d B at init, more than %d: a dependency that builds tables at init came in (GODEBUG=inittrace=1 names it)", total, totalInitAllocBound)
	}
}
