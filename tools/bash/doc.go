// Package bash gives an agent the Bash tool and the execution backends it
// runs commands on.
//
// The tool ([New]) runs a command line through an [ExecutionBackend] with
// a per-call timeout, an output cap that keeps head and tail, the exit
// code and stderr in its result, and every process the call started
// killed on timeout, on cancellation and when the shell exits: through a
// cgroup v2 per call where this process may make one, so no process
// outlives the call whatever it does to its group or session, with the
// call's PID namespace in the OS sandbox of a privileged process without
// one, and through the process group elsewhere (the guarantees label
// says which). It declares [governance.ShellTool], so every
// DenyBash, AllowBash and guard rule reads its command, and its own allow
// and deny lists use the same shell matcher. Its effect is SideEffect.
//
// Containment is the backend's, and its [Guarantees] say what it is:
//
//   - [HostBackend]: the working directory pinned to the sandbox, the
//     environment scrubbed to an allowlist, setrlimit caps, and no
//     descriptor of this process but the standard streams (it marks
//     those it inherited open close-on-exec, for the whole process, so a
//     program that passes one on to its own children names it in
//     exec.Cmd.ExtraFiles). No containment: "host (no containment)".
//   - [OsSandboxBackend] (Linux): Landlock confines reads and writes to
//     the sandbox plus read-only system directories and, on Linux 6.12+,
//     scopes signals and abstract sockets to the call; seccomp refuses
//     sockets, dangerous syscalls, every foreign ABI and namespace
//     clones; a privileged process drops to an unprivileged uid with no
//     capabilities and runs each call in a PID, IPC and UTS namespace of
//     its own, so a command sees no process of the host; a process cap binds, and a memory cap on each call as
//     a whole where a memory cgroup can be made. Its label names each
//     part this machine got: "os-sandbox (landlock+seccomp; …)".
//   - forkd.Backend (package tools/bash/forkd, experimental): a microVM
//     per command through a forkd controller.
//
// [HostBackend] needs Unix process groups and [OsSandboxBackend] Linux;
// elsewhere their constructors fail with
// [ErrUnsupportedPlatform], and the package still builds.
//
// Containment is independent of approval: gate the tool with the
// permission rules whatever its backend.
//
// Both local backends need nothing of the program beyond the constructor
// call. The limits are set by the shell that runs the command (its ulimit
// builtin, before the command's first line), and the kernel confinement by
// the OS thread that starts it: Go cannot run code between fork and exec,
// but Landlock and seccomp apply to the calling thread and are inherited
// by its children, so a goroutine locks a fresh thread, confines it,
// starts the shell from it and ends with it.
//
//	sb, err := sandbox.Open("./workspace")
//	if err != nil { … }
//	backend, err := bash.NewOsSandboxBackend(sb) // fails closed
//	if err != nil { … }
//	tool, err := bash.New(backend)
package bash
