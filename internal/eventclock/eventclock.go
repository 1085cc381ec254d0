// Package eventclock is the clock that stamps events: the wall-clock time
// now, in UTC, for one reading of the monotonic clock where
// time.Now().UTC() takes two (the wall clock and the monotonic one).
//
// A run stamps most of its events (a run with one tool round about ten),
// and on a virtual machine whose clock is read through the hypervisor
// (kvm-clock) each reading costs tens of nanoseconds. [Now] adds the
// monotonic time since a base, a time.Now taken at most [RebaseAfter]
// earlier, to the base's wall-clock time. The monotonic clock and the
// wall clock advance at the same rate (NTP slews both); only a step of
// the wall clock (settimeofday, an NTP step) parts them, and [Now] follows
// a step at its next base, at most RebaseAfter later. A suspend of the
// machine stops the monotonic clock, so it parts them the same way: the
// first RebaseAfter of running time after a resume is stamped with the
// time before the suspend plus the time run since.
package eventclock

import (
	"sync/atomic"
	"time"
)

// RebaseAfter is how long a base serves: how late a step of the wall clock
// can show in event times.
const RebaseAfter = 100 * time.Millisecond

// base pairs a wall-clock time with the monotonic reading taken with it.
type base struct {
	wall time.Time // UTC, without the monotonic reading
	mono time.Time // as time.Now returned it, with the reading
}

var (
	cur atomic.Pointer[base]
	// wallNow is time.Now; a test steps the wall clock through it.
	wallNow = time.Now
)

// Now returns the time now in UTC, without a monotonic reading, as
// time.Now().UTC() does.
func Now() time.Time {
	if b := cur.Load(); b != nil {
		if d := time.Since(b.mono); d >= 0 && d < RebaseAfter {
			return b.wall.Add(d)
		}
	}
	return rebase()
}

// rebase takes a fresh base and returns its wall-clock time. Two calls
// racing each store one; either serves.
//
// time.Now reads the wall clock and then the monotonic one, and every
// time Now derives from the base is early by the gap between the two: a
// virtual processor descheduled between them would put it off by as long
// as that lasted, until the next base. So the two readings are bracketed
// by a monotonic one before them, and a base whose readings lie more than
// a microsecond apart is taken again, up to three times.
func rebase() time.Time {
	var now time.Time
	for range 3 {
		before := time.Now()
		if now = wallNow(); now.Sub(before) <= time.Microsecond {
			break
		}
	}
	b := &base{wall: now.UTC(), mono: now}
	cur.Store(b)
	return b.wall
}
