package main

import (
	"encoding/binary"
	"fmt"
	"runtime/debug"
	"strconv"
	"syscall"
)

// int80 makes a system call through the i386 ABI (int $0x80), which a
// 64-bit process on amd64 may use: the kernel looks the number up in the
// 32-bit table and tells seccomp the call's arch is AUDIT_ARCH_I386.
func int80(trap, a1, a2, a3 uintptr) int32

// noI386 is what the helper prints for an i386 call when the kernel has
// no i386 ABI (built without IA32 emulation, booted with
// ia32_emulation=0, or a confidential-computing guest that turns it
// off): int $0x80 then faults with SIGSEGV in every process, sandboxed
// or not, so the door the tests probe does not exist.
const noI386 = "no i386 ABI"

// call80 makes an i386 call and reports false when the kernel answered
// int $0x80 with a fault instead of a system call. The fault arrives as
// a runtime error only because the helper asks for panics on faults.
func call80(trap, a1, a2, a3 uintptr) (r int32, ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return int80(trap, a1, a2, a3), true
}

// report80 makes an i386 call and prints its outcome.
func report80(trap, a1, a2, a3 uintptr) {
	r, ok := call80(trap, a1, a2, a3)
	if !ok {
		fmt.Println(noI386)
		return
	}
	report32(r)
}

// The i386 numbers of the calls the tests make.
const (
	i386Setpgid = 57
	i386Setsid  = 66
	i386Getpid  = 20
	i386Unshare = 310
	i386Socket  = 359
	i386Connect = 362
	i386Keyctl  = 288
	i386Ptrace  = 26
)

// x32Bit marks a call of the x32 ABI, which shares the amd64 arch.
const x32Bit = 0x40000000

// low returns n bytes below 4 GiB, where a 32-bit call can point.
func low(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_32BIT)
	if err != nil {
		panic(err)
	}
	return b
}

func foreign(op, arg string) bool {
	switch op {
	case "i386-getpid":
		report80(i386Getpid, 0, 0, 0)
	case "i386-socket":
		report80(i386Socket, syscall.AF_INET, syscall.SOCK_STREAM, 0)
	case "i386-unshare":
		report80(i386Unshare, syscall.CLONE_NEWUSER, 0, 0)
	case "i386-setsid":
		report80(i386Setsid, 0, 0, 0)
	case "i386-keyctl":
		report80(i386Keyctl, 0, 0, 0) // KEYCTL_GET_KEYRING_ID
	case "i386-ptrace":
		report80(i386Ptrace, 0, 0, 0) // PTRACE_TRACEME
	case "i386-connect":
		// arg is a loopback TCP port.
		port, _ := strconv.Atoi(arg)
		fd, ok := call80(i386Socket, syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if !ok {
			fmt.Println(noI386)
			return true
		}
		if fd < 0 {
			report32(fd)
			return true
		}
		sa := low(4096)
		binary.LittleEndian.PutUint16(sa[0:], syscall.AF_INET)
		binary.BigEndian.PutUint16(sa[2:], uint16(port))
		copy(sa[4:], []byte{127, 0, 0, 1})
		report80(i386Connect, uintptr(fd), uintptr(ptr(sa)), 16)
	case "x32-socket":
		r, _, e := syscall.RawSyscall(x32Bit|syscall.SYS_SOCKET, syscall.AF_INET, syscall.SOCK_STREAM, 0)
		report(r, e)
	default:
		return false
	}
	return true
}

// foreignLeave tries to leave the group and the session through the
// i386 ABI.
func foreignLeave() {
	fmt.Print("i386 setpgid ")
	report80(i386Setpgid, 0, 0, 0)
	fmt.Print("i386 setsid ")
	report80(i386Setsid, 0, 0, 0)
}
