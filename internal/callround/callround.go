// Package callround shares a round of a run's tool calls out to the work
// pool's workers. A round is the calls of one model turn, numbered from 0;
// the core's driver says how to run call i ([Runner]) and keeps the calls'
// outcomes, and a round here only decides who runs which call, when
// workers join in, and how the driver learns that the round ended. Two
// kinds share it out: an [Inline] round runs on the driver's goroutine
// first and calls workers in once [HandoffDelay] has passed; a [Live]
// round runs on workers from the start while the driver streams the
// calls' events, and can be given up on.
package callround

import "time"

// Runner runs a round's call i. A round calls it once for each call, from
// the driver's goroutine or a worker's, several at a time.
type Runner interface{ RunCall(i int) }

// HandoffDelay is how long the calls of a round run one after another on
// the driver's goroutine before the calls not started yet go to workers.
// Most calls are done well within it (a lookup, a computation), and then
// the round costs no hand-off at all; a round of calls that wait (on the
// network, on each other) runs them side by side after it.
const HandoffDelay = 20 * time.Microsecond
