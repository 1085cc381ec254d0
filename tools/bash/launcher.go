package bash

import (
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
)

// launchEnv names the environment variable that carries a launch spec to
// the re-executed process. Its presence is what puts a process in
// launcher mode.
const launchEnv = "HELIKON_BASH_LAUNCH"

// launchStatusFD is the pipe on which the launcher reports why it could not
// confine or start the command; it is closed on exec, so EOF with nothing
// read means the shell started under every restriction asked for.
const launchStatusFD = 3

// launcherInstalled records that [LauncherMain] ran in this process, so a
// re-executed copy of it will reach the launcher too.
var launcherInstalled atomic.Bool

// LauncherMain must be called first thing in main (and in TestMain) by a
// program that uses [HostBackend] with resource limits or
// [OsSandboxBackend]. Go cannot run code between fork and exec, so those
// backends start the command by re-executing the program itself in a
// launcher mode: LauncherMain then applies the limits and the kernel
// restrictions to its own process and execs the shell, and never returns.
// In a normal start it only records that the launcher is reachable and
// returns at once.
//
//	func main() {
//		bash.LauncherMain()
//		…
//	}
func LauncherMain() {
	spec, ok := os.LookupEnv(launchEnv)
	if !ok {
		launcherInstalled.Store(true)
		return
	}
	status := os.NewFile(launchStatusFD, "launch-status")
	err := launch(spec)
	// launch returns only on failure.
	fmt.Fprintf(status, "%v", err)
	os.Exit(126)
}

// launchSpec is what the parent asks the launcher to do.
type launchSpec struct {
	Shell string   `json:"shell"`
	Args  []string `json:"args"`
	Env   []string `json:"env"`
	Dir   string   `json:"dir"`
	// Limits are setrlimit caps; zero leaves a resource as it is.
	Limits Limits `json:"limits"`
	// Confine, when set, asks for Landlock and seccomp.
	Confine *confineSpec `json:"confine,omitempty"`
}

// confineSpec is the kernel confinement of [OsSandboxBackend].
type confineSpec struct {
	// ReadWrite are directories the command may read and write.
	ReadWrite []string `json:"rw"`
	// ReadOnly are directories and files it may read and execute.
	ReadOnly []string `json:"ro"`
	// AllowNetwork lifts the socket filter.
	AllowNetwork bool `json:"allow_network"`
	// AllowUnix admits AF_UNIX sockets while the network is denied.
	AllowUnix bool `json:"allow_unix"`
}

// launch applies spec to this process and execs the shell.
func launch(raw string) error {
	var spec launchSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return fmt.Errorf("launcher: spec: %w", err)
	}
	syscall.CloseOnExec(launchStatusFD)
	if err := os.Chdir(spec.Dir); err != nil {
		return fmt.Errorf("launcher: %w", err)
	}
	if err := applyLimits(spec.Limits); err != nil {
		return fmt.Errorf("launcher: setrlimit: %w", err)
	}
	if spec.Confine != nil {
		if err := confine(spec.Confine); err != nil {
			return fmt.Errorf("launcher: %w", err)
		}
	}
	return fmt.Errorf("launcher: exec %s: %w", spec.Shell, syscall.Exec(spec.Shell, spec.Args, spec.Env))
}
