package bash

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// landlockABI is the Landlock ABI the backend asks for: v3 (Linux 6.2)
// governs truncation too, so a command cannot empty a read-only file.
const landlockABI = 3

// scopesABI is the Landlock ABI (Linux 6.12) whose scopes keep a command
// from signalling a process outside its domain and from connecting to an
// abstract unix socket made outside it.
const scopesABI = 6

// landlockConfig returns what the backend asks of Landlock on a kernel of
// ABI v: every filesystem right of ABI v3, and from ABI v6 both scopes.
// It is not best effort: a kernel below it fails the restriction rather
// than silently enforcing less.
func landlockConfig(v int) landlock.Config {
	c := landlock.Config{HandledAccessFS: landlock.V3.HandledAccessFS}
	if v >= scopesABI {
		c.Scoped = landlock.V6.Scoped
	}
	return c
}

// workspaceRights are the rights a command has in the workspace: all of
// ABI v3's but making character and block devices (which only a
// capability the sandbox drops would allow; refused here too, so a root
// command that kept it still could not make /dev/mem), with refer, so
// files move and link between its directories.
const workspaceRights = landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir |
	llsys.AccessFSWriteFile | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile | llsys.AccessFSMakeDir |
	llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo | llsys.AccessFSMakeSym |
	llsys.AccessFSRefer | llsys.AccessFSTruncate)

// kernelSupport returns an error naming the kernel feature this machine
// lacks for [OsSandboxBackend], or nil.
func kernelSupport() error {
	if err := archSupport(runtime.GOARCH); err != nil {
		return err
	}
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return fmt.Errorf("bash: os sandbox: the kernel does not enforce Landlock (%v); it needs Linux 5.13+ with CONFIG_SECURITY_LANDLOCK and landlock in the lsm= boot list", err)
	}
	if v < landlockABI {
		return fmt.Errorf("bash: os sandbox: the kernel's Landlock ABI is v%d; truncation control needs v%d (Linux 6.2+)", v, landlockABI)
	}
	if !seccomp.Supported() {
		return fmt.Errorf("bash: os sandbox: the kernel does not support seccomp filters (CONFIG_SECCOMP_FILTER)")
	}
	return nil
}

// archSupport refuses the architectures whose seccomp filter we have not
// checked. Some (386, s390x, ppc64, MIPS o32) multiplex System V IPC and
// sockets through ipc(2) and socketcall(2), which the filter does not
// name: there a command would reach both past the rules that refuse them.
func archSupport(goarch string) error {
	switch goarch {
	case "amd64", "arm64", "arm":
		return nil
	}
	return fmt.Errorf("bash: os sandbox: its seccomp filter is checked on amd64, arm64 and arm, not %s", goarch)
}

// startConfined starts cmd from an OS thread that has confined itself
// to c first, so the child inherits the confinement from its first
// instruction and nothing else in this process is confined.
//
// Go cannot run code between fork and exec, but Landlock and seccomp
// are per-thread and inherited by a child: a new goroutine locks itself
// to its thread, restricts that thread (no_new_privs,
// landlock_restrict_self and a seccomp filter, none of them
// synchronised to the other threads), forks and execs the shell from it,
// and ends still locked, which makes the runtime end the thread too. No
// other goroutine ever runs on it, and threads the runtime creates
// meanwhile are cloned by its template thread, not this one.
func startConfined(cmd *exec.Cmd, c *confineSpec) error {
	if c.Namespaces {
		checkPidfdFirst()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			// A goroutine that ends locked on the main thread does not
			// end it but parks it for good, still confined, and
			// /proc/PID/status (the main thread's) would report this
			// process confined. Hold the main thread instead while a
			// second goroutine, which cannot run here meanwhile, does the
			// work on another thread.
			defer runtime.UnlockOSThread()
			errc <- startConfined(cmd, c)
			return
		}
		// Never unlocked from here: the thread dies with this goroutine.
		if err := confineThread(c); err != nil {
			errc <- err
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

// compiled is the part of a confinement worked out once, when the
// backend is built: the Landlock rules (which read-only paths exist, and
// which are directories) and the assembled seccomp program.
type compiled struct {
	config landlock.Config
	abi    int
	rules  []landlock.Rule
	filter []unix.SockFilter
}

// compile works c out for confineThread.
func (c *confineSpec) compile() error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return fmt.Errorf("bash: os sandbox: landlock: %w", err)
	}
	rules := []landlock.Rule{landlock.PathAccess(workspaceRights, c.ReadWrite...)}
	for _, p := range c.ReadOnly {
		// Landlock takes directory rights only on directories; a path
		// that is missing on this host is left out.
		switch fi, err := os.Stat(p); {
		case err != nil:
		case fi.IsDir():
			rules = append(rules, landlock.RODirs(p))
		default:
			rules = append(rules, landlock.ROFiles(p))
		}
	}
	// Not /dev/tty: a command has no business with this process's
	// terminal (a prompt would hang the call; TIOCSTI would type into
	// the user's shell).
	rules = append(rules, landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random").IgnoreIfMissing())
	filter, err := seccompFilter(c.AllowNetwork, c.AllowUnix)
	if err != nil {
		return err
	}
	c.compiled = &compiled{config: landlockConfig(abi), abi: abi, rules: rules, filter: filter}
	return nil
}

// confineThread restricts the calling thread (and what it starts) to c:
// the call's namespaces, no_new_privs, Landlock for the files, then the
// seccomp filter for sockets and dangerous syscalls, none of them
// synchronised to the process's other threads. The namespaces come first:
// the filter refuses making them, to the command and to this thread.
func confineThread(c *confineSpec) error {
	if c.Namespaces {
		if err := unshareNamespaces(); err != nil {
			return err
		}
	}
	if c.Drop {
		if err := dropCapabilities(); err != nil {
			return err
		}
	}
	fd, flags, err := c.compiled.config.NewRulesetFD(c.compiled.rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock: the ruleset restricts nothing")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: restrict: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(c.compiled.filter)), Filter: &c.compiled.filter[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

// scopes names the Landlock scopes in force, for the guarantees label.
func (c *confineSpec) scopes() string {
	if c.compiled.abi >= scopesABI {
		return "signals and abstract sockets scoped to the call"
	}
	return fmt.Sprintf("no Landlock scopes (ABI v%d): signals and abstract sockets are bounded by the uid only", c.compiled.abi)
}
