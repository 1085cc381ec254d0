package bash

import "errors"

// ErrUnsupportedPlatform is the construction error of a local backend on
// an operating system it cannot work on, so that a program built there
// compiles and fails when it asks for one, not when a command runs.
// [HostBackend] ends a call's processes through Unix process groups, so
// it is refused on Windows; [OsSandboxBackend] confines with Landlock and
// seccomp, so it is refused off Linux. The error names the system and
// what it lacks. forkd.Backend, which runs commands
// in a microVM elsewhere, works on every system.
var ErrUnsupportedPlatform = errors.New("bash: not supported on this operating system")
