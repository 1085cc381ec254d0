package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/paigasus/helikon/cli/sidecar"
	"github.com/paigasus/helikon/cli/starlarktool"
)

// IO is where a command reads and writes.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// Stdio returns the process's standard streams.
func Stdio() IO { return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// Version is the helikon version; release builds set it with
// -ldflags "-X github.com/paigasus/helikon/cli.Version=v1.2.3", and
// otherwise it is the module version go install recorded.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// ExitError carries a process exit code: 1 for a failed run or eval, 2 for
// a usage or configuration error.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the underlying error's message.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *ExitError) Unwrap() error { return e.Err }

func failed(err error) error { return &ExitError{Code: 1, Err: err} }

// Main runs the helikon command with args (without the program name) and
// returns the process exit code.
func Main(ctx context.Context, args []string, stdio IO) int {
	o := &options{io: stdio, stop: func() {}}
	root := newCommand(o)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	o.stop()
	// Script tools' workers are this process's children: a warm one would
	// otherwise outlive the command until it saw its stdin close.
	starlarktool.StopWorkers()
	if err == nil {
		return 0
	}
	fmt.Fprintln(stdio.Err, "helikon:", err)
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return 2
}

// options are the flags every subcommand shares.
type options struct {
	agents string
	io     IO
	// stop releases the interrupt handler the command installed.
	stop context.CancelFunc
}

// NewCommand returns the helikon command tree.
func NewCommand(stdio IO) *cobra.Command {
	return newCommand(&options{io: stdio, stop: func() {}})
}

func newCommand(o *options) *cobra.Command {
	root := &cobra.Command{
		Use:   "helikon",
		Short: "Run, chat with, evaluate and serve the agents declared in agents.toml",
		Long: `helikon runs the agents an agents.toml sidecar declares: one question
(run), a chat (repl), a dataset (eval run), an MCP tool (mcp serve) or the
HTTP agent server (serve). Start with "helikon init" for a sample that
needs no API key.`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Interrupts end a command, except in the repl, where Ctrl-C cancels
	// only the turn in progress.
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		if cmd.Name() != "repl" {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			o.stop = stop
			cmd.SetContext(ctx)
		}
	}
	root.SetIn(o.io.In)
	root.SetOut(o.io.Out)
	root.SetErr(o.io.Err)
	root.PersistentFlags().StringVar(&o.agents, "agents", "agents.toml", "the sidecar file declaring the agents")
	root.AddCommand(newRunCommand(o), newInitCommand(o), newEvalCommand(o), newMCPCommand(o), newServeCommand(o), newReplCommand(o))
	return root
}

// load reads the sidecar, turning a missing default into advice.
func (o *options) load() (*sidecar.File, error) {
	f, err := sidecar.Load(o.agents)
	if err != nil {
		if _, statErr := os.Stat(o.agents); errors.Is(statErr, os.ErrNotExist) {
			return nil, fmt.Errorf("%s not found: run \"helikon init\" for a sample, or pass --agents PATH", o.agents)
		}
		return nil, err
	}
	return f, nil
}

// pickAgent returns name, or the alphabetically first agent when empty.
func pickAgent(f *sidecar.File, name string) (string, error) {
	if name == "" {
		return f.AgentNames()[0], nil
	}
	if _, ok := f.Agents[name]; !ok {
		return "", fmt.Errorf("%s has no agent %q; it declares %s", f.Path, name, nameList(f.AgentNames()))
	}
	return name, nil
}
