// Command escape is the attacker's helper of the bash package's sandbox
// tests: each operation makes one raw system call a hostile command would
// make to leave the OS sandbox, and prints how the kernel answered ("ok N"
// or "errno NAME"). The tests build it with the Go toolchain and run it
// inside the sandbox.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
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
	case "ids":
		// Who the process is and what it may do, from the kernel.
		groups, _ := syscall.Getgroups()
		fmt.Printf("uid %d euid %d gid %d egid %d groups %v\n", syscall.Getuid(), syscall.Geteuid(), syscall.Getgid(), syscall.Getegid(), groups)
		printCaps()
	case "chmod":
		report(0, errnoOf(syscall.Chmod(arg, 0o777)))
	case "chown":
		report(0, errnoOf(syscall.Lchown(arg, os.Getuid(), os.Getgid())))
	case "utimes":
		// An explicit time needs ownership (or CAP_FOWNER).
		ts := []syscall.Timespec{{Sec: 1}, {Sec: 1}}
		report(0, errnoOf(syscall.UtimesNano(arg, ts)))
	case "setxattr-user":
		report(0, errnoOf(syscall.Setxattr(arg, "user.helikon", []byte("pwned"), 0)))
	case "setxattr-trusted":
		report(0, errnoOf(syscall.Setxattr(arg, "trusted.helikon", []byte("pwned"), 0)))
	case "mknod-mem":
		report(0, errnoOf(syscall.Mknod(arg, syscall.S_IFCHR|0o666, 1<<8|1)))
	case "sethostname":
		report(0, errnoOf(syscall.Sethostname([]byte(arg))))
	case "kill":
		pid, _ := strconv.Atoi(arg)
		report(0, errnoOf(syscall.Kill(pid, syscall.SIGKILL)))
	case "raise-nproc":
		var l syscall.Rlimit
		syscall.Getrlimit(6, &l) // RLIMIT_NPROC
		l.Cur, l.Max = l.Max+1000, l.Max+1000
		report(0, errnoOf(syscall.Setrlimit(6, &l)))
	case "unix-connect":
		// Connect to an abstract unix socket someone else serves.
		c, err := net.Dial("unix", "@"+arg)
		if err == nil {
			c.Close()
		}
		report(0, errnoOf(unwrap(err)))
	case "unix-self":
		// Serve an abstract unix socket and connect to it.
		ln, err := net.Listen("unix", "@"+arg)
		if err != nil {
			report(0, errnoOf(unwrap(err)))
			return
		}
		defer ln.Close()
		c, err := net.Dial("unix", "@"+arg)
		if err == nil {
			c.Close()
		}
		report(0, errnoOf(unwrap(err)))
	case "spawn":
		// Start sleeping children until the kernel refuses one, at
		// most arg, and print how many ran.
		max, _ := strconv.Atoi(arg)
		n := 0
		for ; n < max; n++ {
			if err := exec.Command("/bin/sleep", "60").Start(); err != nil {
				break
			}
		}
		fmt.Println(n)
	case "memfd":
		// Fill a memfd with arg MiB, memory no address space counts,
		// and print how much went in.
		n, _ := strconv.Atoi(arg)
		fd, err := unix.MemfdCreate("fill", 0)
		if err != nil {
			report(0, errnoOf(err))
			return
		}
		fmt.Printf("wrote %d MiB\n", fill(fd, n))
	case "hold":
		// Map arg MiB, touch every page, say so, and hold it for a
		// minute.
		n, _ := strconv.Atoi(arg)
		b, err := syscall.Mmap(-1, 0, n<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			report(0, errnoOf(err))
			return
		}
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Printf("held %d MiB\n", n)
		time.Sleep(time.Minute)
	case "shmget", "msgget", "semget":
		// Make a System V IPC object: it outlives every process (the
		// host's IPC namespace keeps it), so the helper removes one it
		// was let make, after reporting.
		report(sysvMake(op))
	case "shmat":
		// Attach a segment someone outside made for everyone (mode 0666).
		id, _ := strconv.Atoi(arg)
		r, _, e := syscall.RawSyscall(syscall.SYS_SHMAT, uintptr(id), 0, 0)
		if e == 0 {
			syscall.RawSyscall(syscall.SYS_SHMDT, r, 0, 0)
			r = 0
		}
		report(r, e)
	case "socketpair":
		// socketpair(family, type), both in decimal: socketpair FAMILY TYPE.
		fam, _ := strconv.Atoi(arg)
		typ, _ := strconv.Atoi(os.Args[len(os.Args)-1])
		var fds [2]int32
		_, _, e := syscall.RawSyscall6(syscall.SYS_SOCKETPAIR, uintptr(fam), uintptr(typ), 0, uintptr(unsafe.Pointer(&fds[0])), 0, 0)
		report(0, e)
	case "listmount":
		// The mounts of the namespace from its root, as
		// /proc/self/mountinfo lists them (Linux 6.8).
		req := mntIDReq{size: 24, mntID: ^uint64(0)} // LSMT_ROOT
		var ids [64]uint64
		r, _, e := syscall.RawSyscall6(458, uintptr(unsafe.Pointer(&req)), uintptr(unsafe.Pointer(&ids[0])), 64, 0, 0, 0)
		report(r, e)
	case "statmount":
		// Where the mount holding / is mounted, by its id from statx.
		var stx unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, "/", 0, 0x4000, &stx); err != nil { // STATX_MNT_ID_UNIQUE
			report(0, errnoOf(err))
			return
		}
		req := mntIDReq{size: 24, mntID: stx.Mnt_id, param: 0x10} // STATMOUNT_MNT_POINT
		var buf [4096]byte
		_, _, e := syscall.RawSyscall6(457, uintptr(unsafe.Pointer(&req)), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
		report(0, e)
	case "inotify":
		// Watch a directory outside for the names made in it.
		fd, _, e := syscall.RawSyscall(syscall.SYS_INOTIFY_INIT1, 0, 0, 0)
		if e != 0 {
			report(0, e)
			return
		}
		p, _ := syscall.BytePtrFromString(arg)
		_, _, e = syscall.RawSyscall(syscall.SYS_INOTIFY_ADD_WATCH, fd, uintptr(unsafe.Pointer(p)), syscall.IN_CREATE|syscall.IN_OPEN)
		report(0, e)
	case "fanotify":
		// FAN_CLASS_NOTIF|FAN_REPORT_FID, the unprivileged form (Linux 5.13).
		fd, _, e := syscall.RawSyscall(syscall.SYS_FANOTIFY_INIT, 0x200, uintptr(syscall.O_RDONLY), 0)
		if e != 0 {
			report(0, e)
			return
		}
		p, _ := syscall.BytePtrFromString(arg)
		// FAN_MARK_ADD, FAN_CREATE|FAN_EVENT_ON_CHILD, AT_FDCWD.
		_, _, e = syscall.RawSyscall6(syscall.SYS_FANOTIFY_MARK, fd, 1, 0x100|0x08000000, uintptr(0xffffff9c), uintptr(unsafe.Pointer(p)), 0)
		report(0, e)
	case "pids":
		// Walk pids 1..arg with the calls that take a pid and need no
		// permission over it, and print the pids any of them found but
		// this process's own threads (tgkill finds those alone).
		n, _ := strconv.Atoi(arg)
		self := os.Getpid()
		fmt.Printf("self %d seen", self)
		for pid := 1; pid <= n; pid++ {
			if _, _, e := syscall.RawSyscall(syscall.SYS_TGKILL, uintptr(self), uintptr(pid), 0); e == 0 && pid != self {
				continue
			}
			if exists(pid) {
				fmt.Printf(" %d", pid)
			}
		}
		fmt.Println()
	case "ns":
		// The namespaces this process is in, as the kernel names them.
		for _, ns := range []string{"pid", "ipc", "uts"} {
			l, err := os.Readlink("/proc/self/ns/" + ns)
			if err != nil {
				l = err.Error()
			}
			fmt.Println(l)
		}
	case "mq-open":
		// Open a POSIX message queue someone else made, by name.
		report(mqOpen(arg, syscall.O_RDWR))
	case "mq-make":
		// Make a POSIX message queue and leave it (the test removes it).
		report(mqOpen(arg, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL))
	case "pgid":
		// The process group this process is in.
		fmt.Println(syscall.Getpgrp())
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
	case syscall.EOPNOTSUPP:
		return "errno EOPNOTSUPP"
	case syscall.EAFNOSUPPORT:
		return "errno EAFNOSUPPORT"
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

// printCaps prints the capability sets (capget), the size of the bounding
// set, the ambient set and no_new_privs (prctl).
func printCaps() {
	hdr := struct {
		version uint32
		pid     int32
	}{0x20080522, 0}
	var data [2]struct{ eff, perm, inh uint32 }
	syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	bounding, ambient := 0, 0
	for c := 0; c < 64; c++ {
		if r, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 23, uintptr(c), 0); e == 0 && r == 1 { // PR_CAPBSET_READ
			bounding++
		}
		if r, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, 47, 1, uintptr(c), 0, 0, 0); e == 0 && r == 1 { // PR_CAP_AMBIENT_IS_SET
			ambient++
		}
	}
	nnp, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, 39, 0, 0) // PR_GET_NO_NEW_PRIVS
	fmt.Printf("effective %x permitted %x inheritable %x bounding %d ambient %d no_new_privs %d\n",
		uint64(data[1].eff)<<32|uint64(data[0].eff), uint64(data[1].perm)<<32|uint64(data[0].perm), uint64(data[1].inh)<<32|uint64(data[0].inh), bounding, ambient, nnp)
}

// unwrap digs the errno out of a net error.
func unwrap(err error) error {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return err
}

// fill writes up to n MiB to fd, and returns how many MiB it wrote.
func fill(fd, n int) int {
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	for i := 0; i < n; i++ {
		if _, err := syscall.Write(fd, buf); err != nil {
			return i
		}
	}
	return n
}

// sysvMake makes a private System V IPC object of kind op, removes it
// again if the kernel let it be made, and returns how the kernel answered
// the make.
func sysvMake(op string) (uintptr, syscall.Errno) {
	const ipcCreat, ipcRmid = 0o1000, 0
	var r uintptr
	var e syscall.Errno
	switch op {
	case "shmget":
		r, _, e = syscall.RawSyscall(syscall.SYS_SHMGET, 0, 1<<20, ipcCreat|0o666)
		if e == 0 {
			syscall.RawSyscall(syscall.SYS_SHMCTL, r, ipcRmid, 0)
		}
	case "msgget":
		r, _, e = syscall.RawSyscall(syscall.SYS_MSGGET, 0, ipcCreat|0o666, 0)
		if e == 0 {
			syscall.RawSyscall(syscall.SYS_MSGCTL, r, ipcRmid, 0)
		}
	case "semget":
		r, _, e = syscall.RawSyscall(syscall.SYS_SEMGET, 0, 1, ipcCreat|0o666)
		if e == 0 {
			syscall.RawSyscall6(syscall.SYS_SEMCTL, r, 0, ipcRmid, 0, 0, 0)
		}
	}
	if e == 0 {
		r = 0
	}
	return r, e
}

// mntIDReq is struct mnt_id_req of listmount and statmount, in its first
// version (24 bytes).
type mntIDReq struct {
	size, spare uint32
	mntID       uint64
	param       uint64
}

// exists reports whether any call that takes a pid and needs no
// permission over it answers for pid with anything but ESRCH.
func exists(pid int) bool {
	var set [16]uint64
	calls := []func() syscall.Errno{
		func() syscall.Errno { _, _, e := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0); return e },
		func() syscall.Errno { _, _, e := syscall.RawSyscall(syscall.SYS_GETPGID, uintptr(pid), 0, 0); return e },
		func() syscall.Errno { _, _, e := syscall.RawSyscall(syscall.SYS_KILL, uintptr(pid), 0, 0); return e },
		func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, uintptr(pid), unsafe.Sizeof(set), uintptr(unsafe.Pointer(&set[0])))
			return e
		},
		func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_GETPRIORITY, 0, uintptr(pid), 0) // PRIO_PROCESS
			return e
		},
		func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, uintptr(pid), 0, 0)
			return e
		},
		func() syscall.Errno {
			fd, _, e := syscall.RawSyscall(unix.SYS_PIDFD_OPEN, uintptr(pid), 0, 0)
			if e == 0 {
				syscall.Close(int(fd))
			}
			return e
		},
	}
	for _, call := range calls {
		if call() != syscall.ESRCH {
			return true
		}
	}
	return false
}

// mqOpen makes mq_open(name, flags) with mode 0666 and the default
// attributes, and closes a queue it opened.
func mqOpen(name string, flags int) (uintptr, syscall.Errno) {
	p, _ := syscall.BytePtrFromString(name)
	fd, _, e := syscall.RawSyscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), uintptr(flags), 0o666, 0, 0, 0)
	if e == 0 {
		syscall.Close(int(fd))
		fd = 0
	}
	return fd, e
}
