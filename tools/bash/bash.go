package bash

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	// The governance rules read this tool's command lines with the parser.
	_ "github.com/paigasus/helikon/governance/shellsyntax"
	"github.com/paigasus/helikon/internal/shellmatch"
)

// MaxTimeout is the longest timeout a call may ask for.
const MaxTimeout = 10 * time.Minute

// MaxCommandBytes bounds a command line. The kernel refuses a single
// argument past 128 KiB; the bound is checked before the line is parsed.
const MaxCommandBytes = 100 << 10

// Args are the arguments of the Bash tool.
type Args struct {
	Command   string `json:"command" jsonschema:"the bash command line to run"`
	TimeoutMS int    `json:"timeout_ms,omitempty" jsonschema:"timeout in milliseconds (default the tool's, at most 600000)"`
}

// Bash is the Bash tool: it runs a command line through an
// [ExecutionBackend] and returns its exit code, stdout and stderr (each
// capped, head and tail kept). Its description tells the model the
// backend's containment label. It declares [governance.ShellTool], so the
// deny, allow and guard rules of the permission pipeline read its
// command, and its effect is SideEffect.
type Bash struct {
	inner   helikon.Tool
	backend ExecutionBackend
	timeout time.Duration
	output  int
	allow   map[string]bool
	deny    []string
}

// Option configures [New].
type Option func(*Bash)

// WithCallTimeout sets the timeout of a call that gives none (default
// [DefaultTimeout]).
func WithCallTimeout(d time.Duration) Option { return func(b *Bash) { b.timeout = d } }

// WithOutputLimit caps each output stream (default [DefaultOutputLimit]).
func WithOutputLimit(n int) Option { return func(b *Bash) { b.output = n } }

// WithAllowCommands admits only command lines every program of which is
// one of programs (by base name, after sudo, env, timeout and other
// wrappers); anything the matcher cannot resolve is refused.
func WithAllowCommands(programs ...string) Option {
	return func(b *Bash) {
		if b.allow == nil {
			b.allow = map[string]bool{}
		}
		for _, p := range programs {
			b.allow[p] = true
		}
	}
}

// WithDenyCommands refuses command lines that may run one of programs,
// and, failing closed, any command line the matcher cannot resolve.
func WithDenyCommands(programs ...string) Option {
	return func(b *Bash) { b.deny = append(b.deny, programs...) }
}

// New returns the Bash tool on backend.
func New(backend ExecutionBackend, opts ...Option) (*Bash, error) {
	if backend == nil {
		return nil, errors.New("bash: nil backend")
	}
	b := &Bash{backend: backend, timeout: DefaultTimeout, output: DefaultOutputLimit}
	for _, o := range opts {
		o(b)
	}
	if b.timeout <= 0 || b.timeout > MaxTimeout {
		return nil, fmt.Errorf("bash: call timeout %v, want in (0, %v]", b.timeout, MaxTimeout)
	}
	if b.output < 64 {
		return nil, fmt.Errorf("bash: output limit %d, want at least 64", b.output)
	}
	g := backend.Guarantees()
	desc := fmt.Sprintf("Run a bash command line in the workspace and get its exit code, stdout and stderr. Containment: %s (filesystem %s, network %s, syscalls %s).",
		g.Label, g.Filesystem, g.Network, g.Syscalls)
	inner, err := helikon.NewTool("Bash", desc, b.call)
	if err != nil {
		return nil, err
	}
	b.inner = inner
	return b, nil
}

// Name returns "Bash".
func (b *Bash) Name() string { return b.inner.Name() }

// Description returns the text the model reads, with the containment label.
func (b *Bash) Description() string { return b.inner.Description() }

// InputSchema returns the schema of [Args].
func (b *Bash) InputSchema() *jsonschema.Schema { return b.inner.InputSchema() }

// Call runs the command.
func (b *Bash) Call(tc *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	return b.inner.Call(tc, args)
}

// Effect returns SideEffect: a command may do anything its backend lets it.
func (b *Bash) Effect() helikon.ToolEffect { return helikon.SideEffect }

// ShellCommand returns the command line a call would run.
func (b *Bash) ShellCommand(args json.RawMessage) (string, error) {
	var a struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return "", fmt.Errorf("arguments: %w", err)
	}
	if a.Command == nil {
		return "", errors.New("arguments: no command")
	}
	return *a.Command, nil
}

// ResolvePath implements [governance.PathResolver]: on a backend that runs
// commands in a [sandbox.Sandbox] ([HostBackend], [OsSandboxBackend]) it
// follows the symlinks of p in that directory with
// [sandbox.Sandbox.ResolvePath]; on any other backend it returns p
// cleaned, and the rules see the paths of commands as written.
func (b *Bash) ResolvePath(p string) (string, error) {
	if lb, ok := b.backend.(interface{ local() *local }); ok && lb.local().sb != nil {
		return lb.local().sb.ResolvePath(p)
	}
	return path.Clean(p), nil
}

// Guarantees returns the backend's guarantees.
func (b *Bash) Guarantees() Guarantees { return b.backend.Guarantees() }

func (b *Bash) call(tc *helikon.ToolContext, in Args) (Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return Result{}, &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: "Bash", SchemaErrors: []string{"command: empty"}}
	}
	if len(in.Command) > MaxCommandBytes {
		return Result{}, &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: "Bash", SchemaErrors: []string{fmt.Sprintf("command: %d bytes, at most %d", len(in.Command), MaxCommandBytes)}}
	}
	if strings.IndexByte(in.Command, 0) >= 0 {
		return Result{}, &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: "Bash", SchemaErrors: []string{"command: contains a NUL byte, which no command line can carry"}}
	}
	if in.TimeoutMS < 0 || time.Duration(in.TimeoutMS)*time.Millisecond > MaxTimeout {
		return Result{}, &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: "Bash", SchemaErrors: []string{fmt.Sprintf("timeout_ms: %d, want 0 to %d", in.TimeoutMS, MaxTimeout.Milliseconds())}}
	}
	if why := b.screen(in.Command); why != "" {
		return Result{}, &helikon.ToolError{Kind: helikon.ToolDenied, Tool: "Bash", Reason: why}
	}
	timeout := b.timeout
	if in.TimeoutMS > 0 {
		timeout = time.Duration(in.TimeoutMS) * time.Millisecond
	}
	res, err := b.backend.Run(tc, Request{Command: in.Command, Timeout: timeout, OutputLimit: b.output})
	if err != nil {
		if tc.Err() != nil {
			return Result{}, tc.Err()
		}
		return Result{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: "Bash", Err: err}
	}
	return res, nil
}

// screen applies the tool's own allow and deny lists, returning why the
// command is refused or "".
func (b *Bash) screen(cmd string) string {
	if b.allow == nil && b.deny == nil {
		return ""
	}
	s := shellmatch.Parse(cmd)
	for _, p := range b.deny {
		if s.MayRun(p) {
			return "the command runs " + p + ", which this tool denies"
		}
	}
	if b.deny != nil && (s.Unresolved != "" || s.Approx) {
		why := s.Unresolved
		if why == "" {
			why = "a command line that does not parse"
		}
		return "cannot tell what the command runs (" + why + "), and this tool has a deny list"
	}
	if b.allow != nil && !s.OnlyRuns(func(p string) bool { return b.allow[p] }) {
		return "the command runs a program outside this tool's allow list"
	}
	return ""
}
