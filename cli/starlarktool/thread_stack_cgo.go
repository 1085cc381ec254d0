//go:build linux && cgo

package starlarktool

/*
#define _GNU_SOURCE
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

// shrinkThreadStacks gives the threads this worker's runtime starts from
// now on stacks of threadStack bytes. A program linked with cgo starts its
// threads through the C library, whose default stack is RLIMIT_STACK (8
// MiB on most systems) of address space each; under the worker's address
// space cap a loaded runtime's eighth or tenth thread could not start, and
// a heap that could no longer grow read as the memory cap. Go code runs on
// goroutine stacks of its own, so a thread's stack holds only the
// runtime's scheduler and C calls.
func shrinkThreadStacks() error {
	if err := C.set_default_stack(C.size_t(threadStack)); err != 0 {
		return fmt.Errorf("set the default thread stack: %w", syscall.Errno(err))
	}
	return nil
}

// defaultThreadStack is the stack size threads start with now.
func defaultThreadStack() int { return int(C.default_stack()) }
