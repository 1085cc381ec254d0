package bash

import "errors"

// ErrNoPIDNamespace is the construction error of an [OsSandboxBackend]
// built with [RequirePIDNamespace] where this process cannot give each
// call a PID namespace of its own (and an IPC and a UTS one): an
// unprivileged process, or a privileged one the kernel refuses them.
// Without the option the backend runs without them and its label says
// "no PID namespace" and why.
var ErrNoPIDNamespace = errors.New("bash: os sandbox: no PID namespace per call")

// RequirePIDNamespace makes [NewOsSandboxBackend] fail with
// [ErrNoPIDNamespace] where it cannot run each call in a PID, IPC and UTS
// namespace of its own, instead of running without them and saying so in
// its label. In a PID namespace a command sees no process but its call's:
// without one it can learn which processes the host runs (getsid,
// getpgid, sched_getaffinity, kill with signal 0 answer for any pid),
// though not reach them.
func RequirePIDNamespace() HostOption { return func(c *hostConfig) { c.requirePIDNS = true } }

// pidNSPrefix is what the shell runs first in a PID namespace: a trap
// (on a signal that the shell, the namespace's first process, ignores
// anyway) keeps bash from replacing itself with the last command of its
// line. The shell stays the namespace's process 1, which reaps the
// orphans of the call and is alone in ignoring the signals it has no
// handler for; a command made process 1 would ignore SIGPIPE, SIGXFSZ
// and SIGTERM from within the call, and leave its orphans unreaped,
// counted against the process cap until the call ends.
const pidNSPrefix = "trap : USR2; "

// namespaces names the namespaces of a call, or why there are none, for
// the guarantees label.
func (l *local) namespaces() string {
	if l.pidNS() {
		return "a PID, IPC and UTS namespace per call (no process of the host visible)"
	}
	return "no PID namespace (" + l.noPIDNS + "), nor an IPC or UTS one: the host's process ids are visible, not reachable, and the host's POSIX message queues can be probed by name"
}

// pidNS reports whether each call runs in a PID namespace of its own.
func (l *local) pidNS() bool { return l.confine != nil && l.confine.Namespaces }
