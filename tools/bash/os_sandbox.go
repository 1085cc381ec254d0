package bash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paigasus/helikon/tools/sandbox"
)

// DefaultReadOnlyPaths are the host paths a confined command may read
// and execute: the programs and libraries a shell needs, and the few
// files of /etc they read. /etc as a whole, /home, /root, /proc and /tmp
// stay out of reach. The system's CA certificates and OpenSSL's
// configuration are public and read by every TLS client (Node exits at
// start when it may not read openssl.cnf; Python's default context held
// no certificate); /etc/ssl/private stays out of reach.
var DefaultReadOnlyPaths = []string{
	"/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime",
	"/etc/bash.bashrc", "/etc/profile", "/etc/inputrc", "/etc/gitconfig",
	"/etc/ssl/certs", "/etc/ssl/openssl.cnf",
}

// OsSandboxBackend runs commands like [HostBackend] and confines them
// with the kernel before the shell starts. Landlock lets them read and
// write only inside the sandbox directory and read the system
// directories of [DefaultReadOnlyPaths], and, on Linux 6.12+, keeps
// their signals and abstract unix sockets inside the call. A seccomp
// filter refuses every call of a foreign ABI, every socket (AF_UNIX too
// unless [WithUnixSockets]), clone with a namespace flag, clone3, and the
// syscalls that load kernel code, change mounts or namespaces, inspect
// other processes, reach the host's System V IPC, watch files (inotify,
// fanotify), or leave the session. A privileged process runs them as an unprivileged
// user with no capabilities ([WithSandboxUser]), each call in a PID, IPC
// and UTS namespace of its own: a command sees no process of the host,
// and every process of the call dies with its shell, the namespace's
// first process ([RequirePIDNamespace]; an unprivileged process gets no
// namespace, which its label says). A process cap binds
// ([DefaultProcessCap]), and so does a memory cap on each call as a
// whole ([DefaultMemoryCap]) where a memory cgroup can be made: a call
// that reaches it is ended and its result says [Result.OutOfMemory].
// Every process a call starts is killed when it ends, as [HostBackend]
// does. It needs no privilege; its [OsSandboxBackend.Guarantees] label
// names what this machine gave it.
//
// It does not bound what Landlock does not govern: looking paths up and
// reading their metadata outside, and changing the mode, times and
// extended attributes of files the command's uid owns anywhere (every
// file of an unprivileged agent's uid; only the workspace when it drops
// to the sandbox user). Nor the disk of a call, nor its memory where no
// memory cgroup can be made (RLIMIT_AS then caps each process, and
// memory outside any address space, a memfd or a tmpfs file, is capped
// by nothing here). docs/tools.md lists these limits.
type OsSandboxBackend struct {
	l local
}

// WithNetwork lets confined commands open sockets; it relaxes only the
// network axis.
func WithNetwork() HostOption { return func(c *hostConfig) { c.allowNetwork = true } }

// WithUnixSockets lets confined commands open AF_UNIX sockets while other
// sockets stay denied. Abstract sockets made outside the command are out
// of its reach on kernels with Landlock's scopes (ABI 6, Linux 6.12; the
// label says whether this one has them). Pathname sockets are not: on
// every kernel this backend supports, a command may connect to any
// socket file on the host that its uid may write, /run's and other
// users' included, however its path is otherwise confined.
func WithUnixSockets() HostOption { return func(c *hostConfig) { c.allowUnix = true } }

// DefaultSandboxUID and DefaultSandboxGID are the ids a confined command
// runs as when this process is privileged, unless [WithSandboxUser] says
// otherwise: one below nobody's, so no file or process of the host
// belongs to it. Construction refuses them when /etc/passwd or
// /etc/group names them.
const (
	DefaultSandboxUID = 65533
	DefaultSandboxGID = 65533
)

// DefaultProcessCap is the most processes (and threads) a confined
// command may run at once unless [Limits.Processes] says otherwise: a
// pids cgroup per call where this process may make one, and RLIMIT_NPROC
// of the sandbox user when the command runs as one.
const DefaultProcessCap = 1024

// DefaultMemoryCap is the most memory a call of a confined command may
// use unless [Limits.MemoryBytes] says otherwise: a memory cgroup per call
// where this process may make one (the label says whether this machine
// gave one), which counts what no address space does (a memfd, a tmpfs
// file) and every process of the call together.
const DefaultMemoryCap = 2 << 30

// WithSandboxUser sets the unprivileged uid and gid a confined command
// runs as when this process is privileged (root, or holding any
// capability). Choose ids that own no file and run no process on the
// host: the command may change the metadata of files its uid owns
// anywhere, and, on kernels without Landlock's signal scope, signal its
// processes. Where neither a cgroup nor a PID namespace can be made, a
// call ends by killing every process of the uid (and the uid's calls on
// this host run one at a time), so do not share it with anything else. Backends on one host
// share the default uid, and with it the metadata of each other's
// workspaces (a command of one can chmod a file of another's): give
// each workspace that must not touch another's a uid of its own.
func WithSandboxUser(uid, gid int) HostOption {
	return func(c *hostConfig) { c.uid, c.gid, c.userSet = uid, gid, true }
}

// WithReadOnlyPaths replaces [DefaultReadOnlyPaths]. Which of them exist
// is settled when the backend is built.
func WithReadOnlyPaths(paths ...string) HostOption {
	return func(c *hostConfig) { c.readOnly = paths }
}

// NewOsSandboxBackend returns an OsSandboxBackend confined to sb's
// directory. It fails closed: on a kernel without Landlock (ABI v3) or
// seccomp the error names what is missing, and off Linux it is
// [ErrUnsupportedPlatform]; it never falls back to running unconfined. Asked for a memory cap ([Limits.MemoryBytes])
// where no memory cgroup can be made, it fails with [ErrNoMemoryCgroup];
// the default cap ([DefaultMemoryCap]) is dropped there instead, and the
// label says "no memory cap". Likewise with [RequirePIDNamespace] it fails
// with [ErrNoPIDNamespace] where its calls cannot have PID namespaces;
// without it the label says "no PID namespace" and why.
func NewOsSandboxBackend(sb *sandbox.Sandbox, opts ...HostOption) (*OsSandboxBackend, error) {
	opts = append([]HostOption{func(c *hostConfig) { c.readOnly, c.defaultMemory = DefaultReadOnlyPaths, DefaultMemoryCap }}, opts...)
	l, c, err := newLocal(sb, opts)
	if err != nil {
		return nil, err
	}
	if err := kernelSupport(); err != nil {
		return nil, err
	}
	// setpgid stays open (only setsid is refused): programs make groups
	// for their children and signal them, as timeout(1) does; refused
	// its group, it signalled the shell's. The cgroup per call, where
	// there is one, ends every process whatever its group.
	l.confine = &confineSpec{ReadWrite: []string{sb.Dir()}, ReadOnly: c.readOnly, AllowNetwork: c.allowNetwork, AllowUnix: c.allowUnix}
	if err := l.confine.compile(); err != nil {
		return nil, err
	}
	if err := checkHardLinks(sb.Dir()); err != nil {
		return nil, err
	}
	if err := prepareUser(&l, c, sb.Dir()); err != nil {
		return nil, err
	}
	// A PID, IPC and UTS namespace per call, which a privileged process
	// may make. An unprivileged one would need a user namespace, which a
	// process of many threads can enter only in a child it forks, and
	// the seccomp filter the child inherits refuses making one.
	switch {
	case c.noPIDNS:
		l.noPIDNS = "none asked for"
	case l.cred == nil:
		l.noPIDNS = "this process is not privileged, and the backend makes no user namespace"
	default:
		l.confine.Namespaces = true
	}
	if l.noPIDNS != "" && c.requirePIDNS {
		return nil, fmt.Errorf("%w: %s", ErrNoPIDNamespace, l.noPIDNS)
	}
	// The process cap: a pids cgroup per call where there is one, and
	// RLIMIT_NPROC when the command has a uid of its own (under this
	// process's uid the limit would count all of its processes).
	l.procCap = c.limits.Processes
	if l.procCap == 0 {
		l.procCap = DefaultProcessCap
		if l.cred != nil {
			lim := c.limits
			lim.Processes = DefaultProcessCap
			l.prefix = lim.prefix()
		}
	}
	if l.cgroups != nil && l.cgroups.pids != "" {
		l.maxProcs = int(l.procCap)
	}
	// A command's home and temporary directory are the sandbox.
	env := l.env[:0:0]
	for _, kv := range l.env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	l.env = append(env, "HOME="+sb.Dir(), "TMPDIR="+sb.Dir())
	// Fail closed on anything that keeps a confined command from
	// starting (a uid that cannot reach the workspace, a uid this
	// kernel's user namespace does not map): one command, at once.
	probe := Request{Command: "true", Timeout: 30 * time.Second}
	res, err := l.run(context.Background(), probe)
	if errors.Is(err, ErrNoPIDNamespace) && !c.requirePIDNS {
		// Privileged, and still refused (no CAP_SYS_ADMIN, a
		// container's seccomp profile): the label says so.
		// The label gives the kernel's reason, whatever wraps it.
		why := err.Error()
		if _, after, ok := strings.Cut(why, ErrNoPIDNamespace.Error()+": "); ok {
			why = after
		}
		l.confine.Namespaces, l.noPIDNS = false, why
		res, err = l.run(context.Background(), probe)
	}
	if err != nil || res.ExitCode != 0 {
		who := "the command"
		if l.cred != nil {
			who = fmt.Sprintf("uid %d", l.cred.Uid)
		}
		return nil, fmt.Errorf("bash: os sandbox: a confined probe command failed to run as %s in %s (every directory above it must be searchable by %s): %+v, %w", who, sb.Dir(), who, res, err)
	}
	return &OsSandboxBackend{l: l}, nil
}

// Guarantees reports kernel enforcement on all three axes, or none on the
// network with [WithNetwork].
func (o *OsSandboxBackend) Guarantees() Guarantees {
	parts := []string{"landlock+seccomp", o.l.confine.scopes()}
	if o.l.cred != nil {
		parts = append(parts, fmt.Sprintf("uid %d with no capabilities", o.l.cred.Uid))
	}
	parts = append(parts, o.l.namespaces(), o.l.processCap(), o.l.memoryCap(), o.l.lifetime())
	g := Guarantees{Filesystem: OsKernel, Network: OsKernel, Syscalls: OsKernel, Label: "os-sandbox (" + strings.Join(parts, "; ") + ")"}
	if o.l.confine.AllowNetwork {
		g.Network = None
	}
	return g
}

func (o *OsSandboxBackend) local() *local { return &o.l }

// Run runs req.Command with bash -c under the confinement.
func (o *OsSandboxBackend) Run(ctx context.Context, req Request) (Result, error) {
	return o.l.run(ctx, req)
}

// confineSpec is the kernel confinement of [OsSandboxBackend].
type confineSpec struct {
	// ReadWrite are directories the command may read and write.
	ReadWrite []string
	// ReadOnly are directories and files it may read and execute.
	ReadOnly []string
	// AllowNetwork lifts the socket filter.
	AllowNetwork bool
	// AllowUnix admits AF_UNIX sockets while the network is denied.
	AllowUnix bool
	// Drop empties the starting thread's capability sets, for a shell
	// that then switches to an unprivileged uid.
	Drop bool
	// Namespaces starts the shell as the first process of a PID
	// namespace of its own, with an IPC and a UTS namespace of its own
	// (a privileged process only; see unshareNamespaces).
	Namespaces bool
	// compiled is what NewOsSandboxBackend worked out for each start.
	compiled *compiled
}
