package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon/cli"
	"github.com/paigasus/helikon/cli/starlarktool"
	"github.com/paigasus/helikon/internal/browsertest"
)

// helikonBin is the helikon binary, built once for the tests that need a
// real process (stdio MCP, the pseudo-terminal REPL, exit codes).
var helikonBin string

// spinEnv makes the test binary spin until killed: the load of busy.
const spinEnv = "HELIKON_TEST_SPIN"

func TestMain(m *testing.M) {
	// Script tools run in workers re-executed from this test binary.
	starlarktool.WorkerMain()
	if os.Getenv(spinEnv) != "" {
		for {
		}
	}
	dir, err := os.MkdirTemp("", "helikon-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	helikonBin = filepath.Join(dir, "helikon")
	out, err := exec.Command("go", "build", "-o", helikonBin, "github.com/paigasus/helikon/cmd/helikon").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build helikon: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	browsertest.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one in-process invocation of the command.
type result struct {
	code        int
	out, errOut string
}

func run(t *testing.T, ctx context.Context, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(ctx, args, cli.IO{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return result{code, out.String(), errOut.String()}
}

// sampleDir runs helikon init into a fresh directory.
func sampleDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if r := run(t, context.Background(), "", "init", dir); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.errOut)
	}
	return dir
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
