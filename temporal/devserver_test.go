package temporal

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/paigasus/helikon/session/sessiontest"
)

// installLine is how to get the Temporal CLI that holds the dev server.
const installLine = "GOBIN=${XDG_CACHE_HOME:-$HOME/.cache}/helikon/bin go install github.com/temporalio/cli/cmd/temporal@v1.5.1"

// cliPath finds the Temporal CLI: $HELIKON_TEMPORAL_CLI, the cache .ci/run
// installs it in, or the PATH.
func cliPath() (string, error) {
	if p := os.Getenv("HELIKON_TEMPORAL_CLI"); p != "" {
		return p, nil
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	p := filepath.Join(cache, "helikon", "bin", "temporal")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return exec.LookPath("temporal")
}

var (
	devOnce sync.Once
	dev     *testsuite.DevServer
	devDir  string
	devAddr string
	devErr  error
)

func quietLogger() tlog.Logger { return tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)) }

// devClient returns a client of the package's dev server, which it starts
// on first use (a fresh SQLite file, a free loopback port), or ends the
// test when the CLI is missing.
func devClient(t testing.TB) client.Client {
	t.Helper()
	devOnce.Do(func() {
		var exe string
		if exe, devErr = cliPath(); devErr != nil {
			return
		}
		if devDir, devErr = os.MkdirTemp("", "helikon-temporal-"); devErr != nil {
			return
		}
		if devAddr, devErr = freeAddr(); devErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		// HELIKON_TEMPORAL_DB=memory keeps the server's SQLite database in
		// memory, for benchmarks that compare the two.
		db := filepath.Join(devDir, "temporal.db")
		if os.Getenv("HELIKON_TEMPORAL_DB") == "memory" {
			db = ""
		}
		// Eager activities: a worker that completes a workflow task
		// gets the activity it scheduled in the reply, saving a trip
		// through the task queue per step (see docs/durable.md).
		// HELIKON_TEMPORAL_EAGER=off leaves them off, for benchmarks that
		// compare the two.
		extraArgs := []string{"--dynamic-config-value", "system.enableActivityEagerExecution=true"}
		if os.Getenv("HELIKON_TEMPORAL_EAGER") == "off" {
			extraArgs = nil
		}
		// HELIKON_TEMPORAL_DYNCFG adds dynamic-config settings
		// (space-separated KEY=VALUE), for measuring one without a code
		// change.
		for _, kv := range strings.Fields(os.Getenv("HELIKON_TEMPORAL_DYNCFG")) {
			extraArgs = append(extraArgs, "--dynamic-config-value", kv)
		}
		dev, devErr = testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
			ExistingPath:  exe,
			DBFilename:    db,
			LogLevel:      "error",
			ClientOptions: &client.Options{HostPort: devAddr, Logger: quietLogger()},
			Stdout:        io.Discard,
			Stderr:        io.Discard,
			ExtraArgs:     extraArgs,
		})
	})
	if devErr != nil {
		sessiontest.Unreachable(t, "Temporal dev server not available ("+devErr.Error()+"): install the CLI with `"+installLine+"`")
	}
	return dev.Client()
}

// newClient dials the dev server with its own connection, as another
// process would.
func newClient(t testing.TB) client.Client {
	t.Helper()
	devClient(t)
	c, err := client.Dial(client.Options{HostPort: devAddr, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func stopDevServer() {
	if dev != nil {
		if err := dev.Stop(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			fmt.Fprintln(os.Stderr, "stop dev server:", err)
		}
	}
	if devDir != "" {
		os.RemoveAll(devDir)
	}
}

// testParallel is how many of the package's parallel tests run at once
// unless -test.parallel says otherwise: they wait on the dev server's
// timeouts (heartbeats, sticky queues, workflow tasks) more than they
// compute, and the default, GOMAXPROCS (2 on the CI machine), ran the
// crash tests' four lanes two at a time.
const testParallel = "6"

// raiseParallel sets -test.parallel to testParallel when it was not given.
func raiseParallel() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", testParallel)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(workerProcessEnv) != "" {
		os.Exit(workerProcessMain())
	}
	raiseParallel()
	code := m.Run()
	stopDevServer()
	os.Exit(code)
}
