//go:build linux && cgo

package starlarktool

/*
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>

// set_default_stack makes size the stack of every thread created from now
// on with default attributes, as the Go runtime creates its own.
static int set_default_stack(size_t size) {
	pthread_attr_t attr;
	int err = pthread_getattr_default_np(&attr);
	if (err != 0) {
		return err;
	}
	err = pthread_attr_setstacksize(&attr, size);
	if (err == 0) {
		err = pthread_setattr_default_np(&attr);
	}
	pthread_attr_destroy(&attr);
	return err;
}

// one_arena keeps malloc to the arenas it has, where the C library
// supports that (glibc; musl has no arenas and no M_ARENA_MAX).
static int one_arena(void) {
#ifdef M_ARENA_MAX
	return mallopt(M_ARENA_MAX, 1) == 1 ? 0 : -1;
#else
	return 0;
#endif
}

static size_t default_stack(void) {
	pthread_attr_t attr;
	size_t size = 0;
	if (pthread_getattr_default_np(&attr) == 0) {
		pthread_attr_getstacksize(&attr, &size);
		pthread_attr_destroy(&attr);
	}
	return size;
}
*/
import "C"

import (
	"fmt"
	"syscall"
)

// shrinkThreadMemory bounds the address space the threads this worker's
// runtime starts from now on take. A program linked with cgo starts its
// threads through the C library, which costs it twice under the worker's
// address space cap:
//   - each thread's stack is RLIMIT_STACK (8 MiB on most systems): a
//     loaded runtime's eighth or tenth thread could not start, and a heap
//     that could no longer grow read as the memory cap. Go code runs on
//     goroutine stacks of its own, so a thread's stack holds only the
//     runtime's scheduler and C calls: threadStack bytes.
//   - glibc gives each thread that first calls malloc an arena of its own,
//     64 MiB of address space: one thread that did left the Go heap no
//     room to grow. malloc keeps to the arenas made before the caps.
func shrinkThreadMemory() error {
	if err := C.set_default_stack(C.size_t(threadStack)); err != 0 {
		return fmt.Errorf("set the default thread stack: %w", syscall.Errno(err))
	}
	if C.one_arena() != 0 {
		return fmt.Errorf("keep malloc to one arena: mallopt(M_ARENA_MAX) failed")
	}
	return nil
}

// defaultThreadStack is the stack size threads start with now.
func defaultThreadStack() int { return int(C.default_stack()) }
