package workflow

import "flag"

// A test binary run under an instruction counter (callgrind runs a program
// some 50 times slower than the hardware) sees 20 µs pass after a few
// hundred nanoseconds' worth of work, and would count the hand-offs a
// fan-out makes only on a loaded machine. -handoffdelay scales the delay
// to the simulator's pace: see docs/multi-agent.md, Performance.
func init() {
	flag.DurationVar(&handoffDelay, "handoffdelay", handoffDelay, "how long a fan-out runs its children on the consumer's goroutine before it hands the rest to the pool")
}
