package bash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/paigasus/helikon/tools/sandbox"
)

// DefaultEnvAllowlist is the environment a command sees unless
// [WithEnvAllowlist] says otherwise: enough to find programs and keep
// the locale, and no credentials.
var DefaultEnvAllowlist = []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "USER", "LOGNAME"}

// HostBackend runs commands on this host with the working directory pinned
// to the sandbox root, the environment scrubbed to an allowlist and
// setrlimit caps on CPU time, file size and address space. It is not a
// security boundary: a command reaches everything this process can.
type HostBackend struct {
	l local
}

// HostOption configures [NewHostBackend] and [NewOsSandboxBackend].
type HostOption func(*hostConfig)

type hostConfig struct {
	env          []string
	timeout      time.Duration
	limits       Limits
	allowNetwork bool
	allowUnix    bool
	readOnly     []string
}

// WithEnvAllowlist sets the names of the variables a command inherits
// (default [DefaultEnvAllowlist]).
func WithEnvAllowlist(names ...string) HostOption {
	return func(c *hostConfig) { c.env = names }
}

// WithTimeout sets the default per-command timeout (default
// [DefaultTimeout]); a request's own timeout takes precedence.
func WithTimeout(d time.Duration) HostOption { return func(c *hostConfig) { c.timeout = d } }

// WithLimits sets the setrlimit caps (default [DefaultLimits]). A zero
// Limits turns them off, and the launcher is then not needed for
// [HostBackend].
func WithLimits(l Limits) HostOption { return func(c *hostConfig) { c.limits = l } }

func newLocal(sb *sandbox.Sandbox, opts []HostOption) (local, hostConfig, error) {
	if sb == nil {
		return local{}, hostConfig{}, errors.New("bash: nil sandbox")
	}
	c := hostConfig{env: DefaultEnvAllowlist, timeout: DefaultTimeout, limits: DefaultLimits}
	for _, o := range opts {
		o(&c)
	}
	if c.timeout <= 0 {
		return local{}, c, fmt.Errorf("bash: timeout %v, want more than 0", c.timeout)
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		return local{}, c, fmt.Errorf("bash: no bash on PATH: %w", err)
	}
	var env []string
	for _, name := range c.env {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	l := local{shell: shell, dir: sb.Dir(), env: env, timeout: c.timeout, limits: c.limits}
	return l, c, nil
}

// NewHostBackend returns a HostBackend running commands in sb's
// directory. With limits on (the default) the program must call
// [LauncherMain] first thing in main; construction fails otherwise.
func NewHostBackend(sb *sandbox.Sandbox, opts ...HostOption) (*HostBackend, error) {
	l, _, err := newLocal(sb, opts)
	if err != nil {
		return nil, err
	}
	if l.viaLauncher() && !launcherInstalled.Load() {
		return nil, errNoLauncher
	}
	return &HostBackend{l: l}, nil
}

var errNoLauncher = errors.New("bash: resource limits and kernel confinement need the launcher: call bash.LauncherMain() first thing in main (and TestMain)")

// Guarantees reports no containment on any axis.
func (h *HostBackend) Guarantees() Guarantees {
	return Guarantees{Label: "host (no containment)"}
}

// Run runs req.Command with bash -c in the sandbox directory.
func (h *HostBackend) Run(ctx context.Context, req Request) (Result, error) { return h.l.run(ctx, req) }
