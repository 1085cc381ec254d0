package bash

import (
	"fmt"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls are refused to a confined command with EPERM: they load
// kernel code, change mounts or namespaces, inspect or steal from other
// processes, read the kernel log, bypass the socket filter (io_uring),
// reach the host's System V IPC (whose objects outlive the call and are
// shared with every process of the host), watch files Landlock does not
// let the command open (fanotify), or leave the session (setsid, which
// without a cgroup would leave the process group the backend kills).
var deniedSyscalls = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd", "kcmp",
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
	"setns", "unshare",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"bpf", "perf_event_open", "userfaultfd",
	"keyctl", "add_key", "request_key",
	"reboot", "swapon", "swapoff", "acct", "syslog",
	"open_by_handle_at", "name_to_handle_at",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
	"semget", "semop", "semtimedop", "semctl",
	"fanotify_init", "fanotify_mark",
	"setsid",
}

// absentSyscalls are answered ENOSYS, as if the kernel had no such call,
// so that programs fall back to what they do without it: clone3 (see
// seccompFilter); inotify, which watches a directory by path with no
// Landlock check and would tell a command the names of the files made or
// opened in /tmp or /etc, which it may not list (tail -f polls instead);
// listmount and statmount, which read the host's mount table without the
// /proc/self/mountinfo Landlock keeps out of reach. inotify_init is added
// where the architecture has it (arm64 has inotify_init1 alone, and the
// library refuses a name it does not know).
var absentSyscalls = []string{"clone3", "inotify_init1", "listmount", "statmount"}

// cloneDenied are the clone flags a confined command may not pass: every
// CLONE_NEW* namespace flag (CLONE_NEWTIME is 0x80, which clone reads as
// part of the exit signal, so only clone3 and unshare take it, and both
// are refused whole), and CLONE_PARENT, whose child would be this
// process's child rather than the command's.
const cloneDenied = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_PARENT

// errnoENOSYS is the action that makes a call look absent to the caller.
const errnoENOSYS = seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)

// seccompFilter assembles the filter of a confined command.
//
// The policy is go-seccomp-bpf's: the named calls refused, clone with a
// denied flag refused, clone3 answered ENOSYS (its flags sit in memory the
// filter cannot read, and the C library falls back to clone on ENOSYS),
// sockets refused as the network options say (and, without the network,
// socket pairs of any family but AF_UNIX), everything else allowed;
// the library also answers ENOSYS to the x32 ABI on amd64. What it cannot
// do is refuse the other ABIs this CPU runs (i386 through int $0x80 on
// amd64, 32-bit ARM on arm64): it sends a call of a foreign architecture
// to the default action, which is allow here. So the program starts with
// three instructions of our own that answer ENOSYS to every call whose
// seccomp_data.arch is not the native one, before the library's program,
// whose jumps are all relative and so unaffected.
func seccompFilter(allowNetwork, allowUnix bool) ([]unix.SockFilter, error) {
	native, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("bash: os sandbox: seccomp: %w", err)
	}
	absent := absentSyscalls
	if _, ok := native.SyscallNames["inotify_init"]; ok {
		absent = append(absent[:len(absent):len(absent)], "inotify_init")
	}
	groups := []seccomp.SyscallGroup{
		{Action: seccomp.ActionErrno, Names: deniedSyscalls},
		{Action: seccomp.ActionErrno, NamesWithCondtions: []seccomp.NameWithConditions{{
			Name:       "clone",
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: cloneDenied}},
		}}},
		{Action: errnoENOSYS, Names: absent},
	}
	if !allowNetwork {
		// socketpair makes both sockets of its family before the family's
		// code refuses a pair (most do), so any family but AF_UNIX would
		// reach protocol code (AF_TIPC's makes pairs) the socket rule
		// keeps out.
		groups = append(groups, seccomp.SyscallGroup{Action: seccomp.ActionErrno, NamesWithCondtions: []seccomp.NameWithConditions{{
			Name:       "socketpair",
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_UNIX}},
		}}})
		if allowUnix {
			groups = append(groups, seccomp.SyscallGroup{Action: seccomp.ActionErrno, NamesWithCondtions: []seccomp.NameWithConditions{{
				Name:       "socket",
				Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_UNIX}},
			}}})
		} else {
			groups = append(groups, seccomp.SyscallGroup{Action: seccomp.ActionErrno, Names: []string{"socket"}})
		}
	}
	policy := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}
	body, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("bash: os sandbox: seccomp policy: %w", err)
	}
	prelude := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(errnoENOSYS)},
	}
	raw, err := bpf.Assemble(append(prelude, body...))
	if err != nil {
		return nil, fmt.Errorf("bash: os sandbox: seccomp program: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return filter, nil
}
