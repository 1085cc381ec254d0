// Command escape is the attacker's helper of the bash package's sandbox
// tests: each operation makes one raw system call a hostile command would
// make to leave the OS sandbox, and prints how the kernel answered ("ok N"
// or "errno NAME"). The tests build it with the Go toolchain and run it
// inside the sandbox.
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: escape OP [ARG]")
		os.Exit(2)
	}
	arg := ""
	if len(os.Args) > 2 {
		arg = os.Args[2]
	}
	switch op := os.Args[1]; op {
	case "clone-newuser":
		report(rawClone(syscall.CLONE_NEWUSER | uintptr(syscall.SIGCHLD)))
	case "clone-newpid":
		report(rawClone(syscall.CLONE_NEWPID | uintptr(syscall.SIGCHLD)))
	case "clone-parent":
		report(rawClone(syscall.CLONE_PARENT | uintptr(syscall.SIGCHLD)))
	case "clone3-newuser":
		// struct clone_args: flags, pidfd, child_tid, parent_tid,
		// exit_signal, stack, stack_size, tls, set_tid, set_tid_size,
		// cgroup.
		var args [11]uint64
		args[0] = syscall.CLONE_NEWUSER
		args[4] = uint64(syscall.SIGCHLD)
		r, _, e := syscall.RawSyscall(435, uintptr(unsafe.Pointer(&args[0])), unsafe.Sizeof(args), 0)
		if e == 0 && r == 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
		report(r, e)
	case "setpgid":
		report(0, errnoOf(syscall.Setpgid(0, 0)))
	case "leave-and-sleep":
		// Leave the process group and the session any way the kernel
		// lets, record the pid in the file arg, and sleep.
		fmt.Println("setpgid", name(errnoOf(syscall.Setpgid(0, 0))))
		_, err := syscall.Setsid()
		fmt.Println("setsid", name(errnoOf(err)))
		foreignLeave()
		if err := os.WriteFile(arg, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		time.Sleep(time.Hour)
	default:
		if !foreign(op, arg) {
			fmt.Fprintln(os.Stderr, "unknown op", op)
			os.Exit(2)
		}
	}
}

func rawClone(flags uintptr) (uintptr, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, flags, 0, 0, 0, 0, 0)
	if e == 0 && r == 0 {
		// The child: gone at once, before the runtime notices it.
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
	}
	return r, e
}

func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(syscall.Errno); ok {
		return e
	}
	return syscall.EINVAL
}

func name(e syscall.Errno) string {
	switch e {
	case 0:
		return "ok"
	case syscall.EPERM:
		return "errno EPERM"
	case syscall.ENOSYS:
		return "errno ENOSYS"
	case syscall.EACCES:
		return "errno EACCES"
	case syscall.EINVAL:
		return "errno EINVAL"
	}
	return fmt.Sprintf("errno %d", int(e))
}

func report(r uintptr, e syscall.Errno) {
	if e != 0 {
		fmt.Println(name(e))
		return
	}
	fmt.Println("ok", int(r))
}

// report32 prints the answer of a call through a 32-bit ABI, which
// returns -errno in the result register.
func report32(r int32) {
	if r < 0 && r > -4096 {
		fmt.Println(name(syscall.Errno(-r)))
		return
	}
	fmt.Println("ok", r)
}
