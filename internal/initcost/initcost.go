// Package initcost bounds the work a program's packages do before main,
// read from the runtime's own report of it (GODEBUG=inittrace=1: one line
// per package, with the bytes its init allocated). A table, a regexp or a
// schema built in an init is paid by every start of every program that
// links the package — each AgentCore container start, each helikon run
// and each Starlark worker it starts — so it belongs behind a
// sync.OnceValue, built on first use. The tests that guard a binary
// (examples/agentcore, cmd/helikon) build it, run it so it exits right
// after init, and [Check] the report. Allocated bytes, not times, are
// bounded: they do not move with the machine's load.
package initcost

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Module is this module's path: its packages are the ones [Check] bounds
// one by one.
const Module = "github.com/paigasus/helikon"

// PackageBound is the most one package of this module may allocate in its
// init: 3,992 B is the most any does (provider/openai's jsonscan key
// tables for Chat's and Responses' streamed events, read on every chunk;
// the Responses lifecycle events' tables, 2,480 B, are built on first
// use). Tables built at init were over it: the core's decoder maps and
// regexps (61,536 B), governance's (67,216 B, then 6,968 B) and
// internal/shellmatch's (24,136 B) before they moved to first use.
const PackageBound = 4 << 10

// Init is one package's line of the report.
type Init struct {
	Package string
	// Bytes is what the package's init allocated.
	Bytes int
}

// Parse reads the init lines of a GODEBUG=inittrace=1 report, in the
// order the packages ran; other lines are skipped.
func Parse(out []byte) ([]Init, error) {
	var inits []Init
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// init github.com/paigasus/helikon @1.2 ms, 0.01 ms clock, 360 bytes, 5 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			return nil, fmt.Errorf("inittrace line %q: %w", sc.Text(), err)
		}
		inits = append(inits, Init{Package: f[1], Bytes: n})
	}
	return inits, sc.Err()
}

// Build builds the main package in dir (a path go build takes, "." for
// the test's own) into the test's temporary directory and returns the
// binary's path. The build is the ordinary cached one, not -trimpath
// (which compiles every dependency again): init work does not depend on
// the flags.
func Build(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	if out, err := exec.Command("go", "build", "-o", bin, dir).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, out)
	}
	return bin
}

// Run runs bin with args under GODEBUG=inittrace=1 and returns its
// packages' inits. args should make it exit right after init (an unknown
// flag, --version); its exit status is not checked.
func Run(t testing.TB, bin string, args ...string) []Init {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput()
	inits, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(inits) == 0 {
		t.Fatalf("no inittrace line; output:\n%s", out)
	}
	return inits
}

// Check fails t when a package of [Module] allocated more than
// [PackageBound] at init, or the packages all together (dependencies
// included) more than total, and returns their sum.
func Check(t testing.TB, inits []Init, total int) int {
	t.Helper()
	sum, ours := 0, 0
	for _, in := range inits {
		sum += in.Bytes
		if in.Package != Module && !strings.HasPrefix(in.Package, Module+"/") {
			continue
		}
		ours++
		if in.Bytes > PackageBound {
			t.Errorf("%s allocates %d B at init, more than %d: build it on first use (sync.OnceValue)", in.Package, in.Bytes, PackageBound)
		}
	}
	if ours == 0 {
		t.Errorf("no inittrace line for a package of %s among %d", Module, len(inits))
	}
	if sum > total {
		t.Errorf("the binary's packages allocate %d B at init, more than %d: a dependency that builds tables at init came in (GODEBUG=inittrace=1 names it)", sum, total)
	}
	return sum
}
