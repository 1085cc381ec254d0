package bash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/paigasus/helikon/tools/sandbox"
)

// DefaultEnvAllowlist is the environment a command sees unless
// [WithEnvAllowlist] says otherwise: enough to find programs and keep
// the locale, and no credentials.
var DefaultEnvAllowlist = []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "USER", "LOGNAME"}

// HostBackend runs commands on this host with the working directory pinned
// to the sandbox root, the environment scrubbed to an allowlist (plus
// SHELL, the bash that runs the command, unless the allowlist passes it) and
// setrlimit caps on CPU time, file size and address space. Before each
// command it marks the descriptors this process inherited close-on-exec,
// for the whole process (see the package documentation). Where this
// process may make a cgroup v2 (as root, or in a delegated subtree), each
// call gets one, and when the call ends every process in it is killed
// with cgroup.kill, whatever it did to its process group or session;
// elsewhere the call's process group is killed, which a process that
// calls setsid or setpgid leaves. [HostBackend.Guarantees] says which.
// [Limits.MemoryBytes], when set, caps each call's memory with a memory
// cgroup, and construction fails where none can be made.
// It is not a security boundary: a command reaches everything this
// process can (a root one can move itself out of its cgroup).
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
	uid, gid     int
	userSet      bool
	// defaultMemory is the memory cap when Limits.MemoryBytes is zero
	// (the OS sandbox's [DefaultMemoryCap]), enforced where a memory
	// cgroup can be made and named in the label where not.
	defaultMemory uint64
	// noCgroup makes the backend act as where no cgroup can be made
	// (tests of the fallbacks).
	noCgroup bool
	// requirePIDNS fails the OS sandbox's construction where its calls
	// cannot have PID namespaces ([RequirePIDNamespace]).
	requirePIDNS bool
	// noPIDNS makes the OS sandbox act as where no PID namespace can be
	// made (tests of the fallbacks, and of what the other mechanisms
	// hold on their own).
	noPIDNS bool
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
// Limits turns them off.
func WithLimits(l Limits) HostOption { return func(c *hostConfig) { c.limits = l } }

func newLocal(sb *sandbox.Sandbox, opts []HostOption) (local, hostConfig, error) {
	if sb == nil {
		return local{}, hostConfig{}, errors.New("bash: nil sandbox")
	}
	if err := processSupport(); err != nil {
		return local{}, hostConfig{}, err
	}
	c := hostConfig{env: DefaultEnvAllowlist, timeout: DefaultTimeout, limits: DefaultLimits}
	for _, o := range opts {
		o(&c)
	}
	if c.timeout <= 0 {
		return local{}, c, fmt.Errorf("bash: timeout %v, want more than 0", c.timeout)
	}
	for _, name := range c.env {
		if startupCode(name) {
			return local{}, c, fmt.Errorf("bash: the environment allowlist names %s, which would make bash run code before the command's limits are set", name)
		}
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
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "SHELL=") }) {
		// The shell running the command; bash would otherwise look the
		// user's login shell up in the password database on every call.
		env = append(env, "SHELL="+shell)
	}
	l := local{shell: shell, dir: sb.Dir(), sb: sb, env: env, timeout: c.timeout, prefix: c.limits.prefix()}
	l.memCap = c.limits.MemoryBytes
	if l.memCap == 0 {
		l.memCap = c.defaultMemory
	}
	cg, err := findCgroups(l.memCap > 0)
	if c.noCgroup {
		cg, err = nil, errors.New("no cgroup (asked for by a test)")
	}
	if err == nil {
		l.cgroups = cg
		if cg.pids != "" {
			l.maxProcs, l.procCap = int(c.limits.Processes), c.limits.Processes
		}
		if cg.memory != "" {
			l.maxMem = l.memCap
		} else {
			err = errors.New("no memory controller this process may use: neither cgroup v2's (enabled above it) nor a writable cgroup v1 memory hierarchy")
		}
	}
	if c.limits.MemoryBytes > 0 && l.maxMem == 0 {
		return local{}, c, fmt.Errorf("%w: %v", ErrNoMemoryCgroup, err)
	}
	return l, c, nil
}

// startupCode reports whether the variable name makes a non-interactive
// bash run code or trace commands as it starts, before the prefix that
// sets the limits: a startup file, exported functions, shell options
// (xtrace expands PS4, which may run commands).
func startupCode(name string) bool {
	switch name {
	case "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4":
		return true
	}
	return strings.HasPrefix(name, "BASH_FUNC_")
}

// NewHostBackend returns a HostBackend running commands in sb's
// directory. The environment allowlist may not name a variable that
// makes bash run code as it starts (BASH_ENV, ENV, BASH_FUNC_*,
// SHELLOPTS, BASHOPTS, PS4): that code would run before the limits.
// On a system without Unix process groups (Windows) it fails with
// [ErrUnsupportedPlatform].
func NewHostBackend(sb *sandbox.Sandbox, opts ...HostOption) (*HostBackend, error) {
	l, _, err := newLocal(sb, opts)
	if err != nil {
		return nil, err
	}
	return &HostBackend{l: l}, nil
}

// Guarantees reports no containment on any axis; the label says how the
// processes of a call are ended on this machine, and the memory cap when
// [Limits.MemoryBytes] sets one.
func (h *HostBackend) Guarantees() Guarantees {
	parts := []string{"no containment"}
	if h.l.memCap > 0 {
		parts = append(parts, h.l.memoryCap())
	}
	return Guarantees{Label: "host (" + strings.Join(append(parts, h.l.lifetime()), "; ") + ")"}
}

func (h *HostBackend) local() *local { return &h.l }

// Run runs req.Command with bash -c in the sandbox directory.
func (h *HostBackend) Run(ctx context.Context, req Request) (Result, error) { return h.l.run(ctx, req) }
