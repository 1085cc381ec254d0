package redislog

import "errors"

// A status change kept while Redis was unreachable (kept_status.go) is
// stored once a probe finds Redis back, and a newer one can reach Redis
// first: the probe closes the circuit before it stores what was kept, and
// a write in between goes out directly. Stored last, the older change
// would win (a kept "running" over the "paused" written after it), so
// every status change carries a sequence number, taken when the status
// is set in this process, and the scripts refuse one older than the
// run's stored change.
//
// The numbers come from one counter per Log (a replica): they order the
// changes of one replica, not of several, so the scripts compare them
// only with what the run's owner wrote. Every status change comes from
// the replica that owns the run (the one that created it, or claimed its
// pause last), so the owner is the epoch: a change from a replica that is
// not the owner (it lost the run to a claim while its change was kept) is
// refused whatever its number, and a claim stores the claimer's next
// number, so a change the claimer kept from before it lost and took back
// the run is refused too. A counter in Redis could not number a change set
// while Redis is unreachable, which is when the numbers matter.

// ErrStaleStatus reports a status change Redis did not store because a
// newer one of the run was stored before it, or because the replica that
// made it no longer owns the run (another claimed its pause). A kept
// change refused so is dropped.
var ErrStaleStatus = errors.New("redislog: a newer status of the run was stored")

// nextStatusSeq returns the number of a status change set now.
func (l *Log) nextStatusSeq() uint64 { return l.statusSeq.Add(1) }
